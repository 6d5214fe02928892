// C++: std::array members indexed through operator[] (a reference into
// the array member, returned by a call), the struct holding them copied by
// value: at -O0 one llvm.memcpy whose bytes only those references type.
#include <array>
#include <cmath>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

struct state {
  std::array<double, 3> q;
  std::array<double, 3> w;
};
static double step(const state *in) {
  state s = *in; // a copy by value
  for (int k = 0; k < 3; k++)
    s.q[k] = s.q[k] * s.w[(k + 1) % 3] + std::sin(s.q[(k + 2) % 3]);
  double e = 0;
  for (int k = 0; k < 3; k++)
    e += s.q[k] * s.q[k] + s.w[k] * s.q[(k + 1) % 3];
  return e;
}
static double model(double *x, int n) {
  state s;
  for (int k = 0; k < 3; k++) {
    s.q[k] = x[k];
    s.w[k] = x[n - 1 - k];
  }
  state t = s;
  return step(&t) + step(&s) * t.w[2];
}
RC_ARRAY_TEST_AS("cpp_std_array", RC_MARKED, model, 5,
                 0.3, -0.8, 0.55, 1.1, -0.25)
