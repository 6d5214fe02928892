/* Forward over reverse (over reverse): __enzyme_fwddiff of a gradient,
 * and of a gradient of a gradient, whose inner tapes hold active values
 * (a loop's pushes; the second level's tape shadow is an address-space
 * reservation, rev/nested.c, whose tangent is a reservation of its own).
 * Checked against finite differences of the analytic lower derivatives. */
#include <math.h>
#include "rev_check.h"

double __enzyme_fwddiff(void *, ...);

/* a loop with a data-dependent trip count: the tape records each step */
static double f(double x, int n) {
  double s = 0, t = x;
  for (int i = 0; i < n; i++) {
    s += sin(t) * t;
    t = 0.5 * t + 0.25 * x * x;
  }
  return s;
}
static double df(double x, int n) {
  return __enzyme_autodiff((void *)f, x, enzyme_const, n);
}
static double ddf(double x, int n) {
  return __enzyme_autodiff((void *)df, x, enzyme_const, n);
}
/* forward over reverse: f''; forward over reverse over reverse: f''' */
static double fwd_df(double x, int n) {
  return __enzyme_fwddiff((void *)df, x, 1.0, enzyme_const, n);
}
static double fwd_ddf(double x, int n) {
  return __enzyme_fwddiff((void *)ddf, x, 1.0, enzyme_const, n);
}

enum { STEPS = 5 };
static long double f_exact(long double x) {
  long double s = 0, t = x;
  for (int i = 0; i < STEPS; i++) {
    s += sinl(t) * t;
    t = 0.5L * t + 0.25L * x * x;
  }
  return s;
}
static long double run_f(const long double *p) { return f_exact(p[0]); }
/* f' and f'' by central differences of f' (f' itself is checked first) */
static long double run_df(const long double *p) {
  return df((double)p[0], STEPS);
}
static long double run_ddf(const long double *p) {
  return ddf((double)p[0], STEPS);
}

int main(void) {
  static const double xs[3] = {0.7, -1.3, 2.1};
  for (int i = 0; i < 3; i++) {
    long double p[1] = {xs[i]}, got[1];
    got[0] = df(xs[i], STEPS);
    rc_check("first derivative", run_f, p, got, 1);
    got[0] = fwd_df(xs[i], STEPS);
    rc_check("forward over reverse", run_df, p, got, 1);
    got[0] = ddf(xs[i], STEPS);
    rc_expect("reverse over reverse = forward over reverse", got[0],
              fwd_df(xs[i], STEPS), 1e-9L * (1 + fabsl(got[0])));
    got[0] = fwd_ddf(xs[i], STEPS);
    rc_check("forward over reverse over reverse", run_ddf, p, got, 1);
  }
  return rc_result();
}
