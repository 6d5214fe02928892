/* Piecewise-constant and scaling libm functions inside smooth code: floor,
 * ceil, trunc, round and nearbyint contribute zero tangent; fmod, ldexp,
 * frexp's mantissa and modf's fraction have simple derivatives between
 * their jumps. */
#include "enzyme.h"
#include "tangent_check.h"

double with_rounding(double x) {
  return x * floor(x) + ceil(x) * x * x + trunc(x) + round(x) * sin(x) +
         nearbyint(2 * x);
}
double f_fmod(double x, double y) { return fmod(x, y); }
double f_ldexp(double x) { return ldexp(x, 5) + ldexp(x * x, -3); }
double f_frexp(double x) {
  int e;
  double m = frexp(x, &e);
  return m * (double)e; /* m = x / 2^e, e constant between powers of two */
}
double f_modf(double x) {
  double whole;
  double frac = modf(x, &whole);
  return frac * frac + whole;
}

int main(void) {
  const double x = 2.3;
  long double lx = x;
  /* floor 2, ceil 3, trunc 2, round 2 */
  check_tangent("rounding", __enzyme_fwddiff((void *)with_rounding, x, 1.0),
                2 + 3 * 2 * lx + 2 * cosl(lx));
  /* fmod(7.5, 2) = 1.5: d/dx = 1, d/dy = -trunc(x/y) = -3 */
  check_tangent("fmod d/dx", __enzyme_fwddiff((void *)f_fmod, 7.5, 1.0, 2.0,
                                              0.0),
                1.0L);
  check_tangent("fmod d/dy", __enzyme_fwddiff((void *)f_fmod, 7.5, 0.0, 2.0,
                                              1.0),
                -3.0L);
  check_tangent("ldexp", __enzyme_fwddiff((void *)f_ldexp, x, 1.0),
                32 + 2 * lx / 8);
  /* 2.3 = 0.575 * 2^2: m = x/4, e = 2, so d(m e) = 2/4 */
  check_tangent("frexp", __enzyme_fwddiff((void *)f_frexp, x, 1.0), 0.5L);
  /* modf(2.3) = 0.3 + 2: d = 2 * 0.3 */
  check_tangent("modf", __enzyme_fwddiff((void *)f_modf, x, 1.0),
                2 * (lx - 2));
  return tc_finish("math_rounding");
}
