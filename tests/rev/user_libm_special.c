/* The libm calls users reach for beyond exp/log: fmax, fmin, fabs,
 * copysign, hypot, atan2, pow, cbrt, erf, erfc, lgamma, tgamma, expm1,
 * log1p, in one function; both modes. */
#include "both_modes.h"
static double special(double *x, int n) {
  (void)n;
  double a = x[0], b = x[1], c = x[2], d = x[3];
  double r = fmax(a, b) * fmin(c, d) + fabs(b) * copysign(a, b);
  r += hypot(a, c) + atan2(b, d) + pow(c, d) + pow(fabs(a), 1.5);
  r += cbrt(a * c) + erf(b) * erfc(c) + lgamma(c + 1) + tgamma(d);
  r += expm1(0.5 * b) + log1p(c * c);
  return r;
}
static const double x0[4] = {1.25, -0.6, 2.2, 1.7};
static const double dir[4] = {0.3, 1.0, -0.5, 0.8};
BM_ARRAY_BOTH(special, 4, x0, dir)
int main(void) {
  both_special();
  return rc_result();
}
