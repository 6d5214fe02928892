// A catch that goes on after a call whose reverse rule would undo a call
// that did not complete, were it to throw (operator new of active memory
// in a try block, here and in a callee below one): the gradient of the
// path that runs, as Enzyme gives it; an exception from such a call traps
// (README), so none is thrown here.  Checked against finite differences.
#include "rev_check.h"

struct scaled {
  double *p;
  explicit scaled(long n) : p(new double[n]) {}
  ~scaled() { delete[] p; }
};

__attribute__((noinline)) static double fill(const double *x, long n) {
  scaled s(n); /* a new in a callee whose exception f catches */
  for (long k = 0; k < n; k++)
    s.p[k] = x[k] * x[(k + 1) % n];
  double r = 0;
  for (long k = 0; k < n; k++)
    r += std::sin(s.p[k]);
  return r;
}

static double f(double *x, int n) {
  double *p;
  try {
    p = new double[n];
  } catch (...) {
    return 0;
  }
  for (int k = 0; k < n; k++)
    p[k] = x[k] * x[k];
  double r = 0;
  try {
    r = fill(p, n);
  } catch (...) {
    r = -1;
  }
  for (int k = 0; k < n; k++)
    r += p[k] * x[(k + 2) % n];
  delete[] p;
  return r;
}

RC_ARRAY_TEST_AS("cpp_catch_new_eh", RC_UNMARKED, f, 5, 0.5, -1.25, 0.75, 1.5,
                 -0.4)
