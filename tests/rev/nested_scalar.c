/* Reverse over reverse: the gradient of a function that takes a gradient
 * itself (a scalar second derivative), and of that one again (the third),
 * checked against finite differences of the analytic lower derivatives. */
#include <math.h>
#include "rev_check.h"

static double f(double x) { return sin(x) * x * x + exp(0.5 * x) / (1 + x * x); }
static double df(double x) { return __enzyme_autodiff((void *)f, x); }
static double ddf(double x) { return __enzyme_autodiff((void *)df, x); }
static double dddf(double x) { return __enzyme_autodiff((void *)ddf, x); }

/* f' and f'', analytically */
static long double df_exact(long double x) {
  long double q = 1 + x * x, e = expl(0.5L * x);
  return cosl(x) * x * x + 2 * x * sinl(x) + 0.5L * e / q - 2 * x * e / (q * q);
}
static long double ddf_exact(long double x) {
  long double q = 1 + x * x, e = expl(0.5L * x);
  /* d/dx [0.5 e/q - 2 x e/q^2] */
  long double a = 0.25L * e / q - x * e / (q * q);
  long double b = -2 * e / (q * q) - x * e / (q * q) + 8 * x * x * e / (q * q * q);
  return -sinl(x) * x * x + 4 * x * cosl(x) + 2 * sinl(x) + a + b;
}
static long double run_df(const long double *p) { return df_exact(p[0]); }
static long double run_ddf(const long double *p) { return ddf_exact(p[0]); }

int main(void) {
  static const double xs[3] = {0.7, -1.3, 2.1};
  for (int i = 0; i < 3; i++) {
    long double p[1] = {xs[i]}, got[1];
    rc_expect("first derivative", df(xs[i]), df_exact(xs[i]), 1e-12L);
    got[0] = ddf(xs[i]);
    rc_check("second derivative", run_df, p, got, 1);
    got[0] = dddf(xs[i]);
    rc_check("third derivative", run_ddf, p, got, 1);
  }
  return rc_result();
}
