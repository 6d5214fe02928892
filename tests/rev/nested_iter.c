/* __enzyme_iter(n, step): n in the primal, n + k step inside a k-th order
 * reverse-mode derivative.  The truncated exponential series of length
 * __enzyme_iter(10, 1), differentiated three times in reverse over
 * reverse over reverse, is again the series of length 10: the same value
 * as the primal (without the growth it would be the series of length 7). */
#include <math.h>
#include "rev_check.h"

unsigned long long __enzyme_iter(unsigned long long, unsigned long long);

static double series(double x) {
  unsigned long long n = __enzyme_iter(10, 1);
  double term = 1, s = 1;
  for (unsigned long long i = 1; i <= n; i++) {
    term = term * x / (double)i;
    s += term;
  }
  return s;
}
static double d1(double x) { return __enzyme_autodiff((void *)series, x); }
static double d2(double x) { return __enzyme_autodiff((void *)d1, x); }
static double d3(double x) { return __enzyme_autodiff((void *)d2, x); }

static long double series_exact(long double x, int n) {
  long double term = 1, s = 1;
  for (int i = 1; i <= n; i++) {
    term = term * x / i;
    s += term;
  }
  return s;
}

int main(void) {
  static const double xs[3] = {1.2, -0.7, 2.5};
  for (int i = 0; i < 3; i++) {
    long double want = series_exact(xs[i], 10);
    rc_expect("primal", series(xs[i]), want, 1e-12L * (1 + fabsl(want)));
    rc_expect("first derivative", d1(xs[i]), want, 1e-12L * (1 + fabsl(want)));
    rc_expect("second derivative", d2(xs[i]), want, 1e-12L * (1 + fabsl(want)));
    rc_expect("third derivative", d3(xs[i]), want, 1e-12L * (1 + fabsl(want)));
  }
  return rc_result();
}
