#include <cmath>
#include "rev_check.h"
// A C++ object holding doubles and a pointer to the caller's output, passed
// by value (byval) to a member-calling function that mutates its copy; the
// caller's object must stay unchanged and the adjoints of the copy's
// members must reach the caller's.
struct Stepper {
  double h, k;
  double *acc;
  double scratch[3];
  void step(double y) {
    scratch[0] = h * y;
    scratch[1] = k * std::cos(scratch[0]);
    h *= 0.5;
    acc[0] += scratch[1] * h;
  }
};

__attribute__((noinline)) double integrate(Stepper s, double y, int steps) {
  for (int i = 0; i < steps; i++) {
    s.step(y);
    y += s.scratch[1] * s.h;
  }
  return y * s.k + s.scratch[0];
}

static double cpp_byval_written(double *x, int n) {
  Stepper s{x[0], x[1], &x[3], {x[2], 0.5, 0.25}};
  double y = integrate(s, x[2], n - 1);
  y += integrate(s, y, 2) * s.h;
  return y;
}

RC_ARRAY_TEST(cpp_byval_written, 4, 0.6, 1.1, 0.3, -0.4)
