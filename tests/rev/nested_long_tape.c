/* Reverse over reverse with an inner tape that grows (a data-dependent
 * loop of thousands of iterations, each recording values active for the
 * outer gradient): the inner buffer is realloc'd and moves while the
 * outer still holds shadow addresses of earlier records. */
#include <math.h>
#include "rev_check.h"

#define STEPS 3000

/* y <- x sin(y) + 0.1, while |y| stays small (always, here) */
static double f(double x) {
  double y = 0.5;
  int k = 0;
  while (k < STEPS && fabs(y) < 100) {
    y = x * sin(y) + 0.1;
    k++;
  }
  return y;
}
static double df(double x) { return __enzyme_autodiff((void *)f, x); }

/* f' by the tangent recurrence, in long double */
static long double df_exact(long double x) {
  long double y = 0.5L, dy = 0;
  for (int k = 0; k < STEPS; k++) {
    dy = sinl(y) + x * cosl(y) * dy;
    y = x * sinl(y) + 0.1L;
  }
  return dy;
}
static long double run(const long double *p) { return df_exact(p[0]); }

int main(void) {
  static const double xs[2] = {0.6, -0.45};
  for (int i = 0; i < 2; i++) {
    long double p[1] = {xs[i]}, got[1];
    rc_expect("first derivative", df(xs[i]), df_exact(xs[i]), 1e-10L);
    got[0] = __enzyme_autodiff((void *)df, xs[i]);
    rc_check("second derivative", run, p, got, 1);
  }
  return rc_result();
}
