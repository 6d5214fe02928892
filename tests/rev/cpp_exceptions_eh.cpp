// C++ with exceptions on (compiled without -fno-exceptions: the name ends
// in _eh): calls inside a scope with a destructor are invokes whose
// landing pads run the cleanup and resume; the normal path is
// differentiated like calls.
#define RC_OWN_PROTOTYPE
#include <stdexcept>
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);
struct scratch {
  double *p;
  explicit scratch(int n) : p(new double[n]) {}
  ~scratch() { delete[] p; }
};
__attribute__((noinline)) static double checked_sq(double x) {
  if (x > 100)
    throw std::range_error("too big");
  return x * x;
}
static double f(double *x, int n) {
  scratch s(n);
  for (int i = 0; i < n; i++)
    s.p[i] = checked_sq(x[i]) + x[(i + 1) % n];
  double r = 0;
  for (int i = 0; i < n; i++)
    r += s.p[i] * std::sin(x[i]);
  return r;
}
RC_ARRAY_TEST_AS("cpp_exceptions_eh", RC_UNMARKED, f, 4, 0.5, -1.0, 1.5, 0.75)
