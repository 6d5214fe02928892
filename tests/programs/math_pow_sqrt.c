/* Powers and roots: pow in base and exponent, sqrt, cbrt, hypot, and an
 * integer power through __builtin_powi. */
#include "enzyme.h"
#include "tangent_check.h"

double f_pow(double b, double e) { return pow(b, e); }
double f_sqrt(double x) { return sqrt(x); }
double f_cbrt(double x) { return cbrt(x); }
double f_hypot(double x, double y) { return hypot(x, y); }
double f_powi(double x) { return __builtin_powi(x, 5); }

int main(void) {
  const double b = 1.7, e = 2.3;
  long double pb = powl(b, e);
  check_tangent("pow d/dbase", __enzyme_fwddiff((void *)f_pow, b, 1.0, e, 0.0),
                e * pb / b);
  check_tangent("pow d/dexp", __enzyme_fwddiff((void *)f_pow, b, 0.0, e, 1.0),
                pb * logl(b));
  check_tangent("pow both",
                __enzyme_fwddiff((void *)f_pow, b, 0.5, e, -1.0),
                0.5L * e * pb / b - pb * logl(b));
  const double xs[] = {0.3, 2.0, 9.5};
  for (int i = 0; i < 3; i++) {
    long double x = xs[i];
    check_tangent("sqrt", __enzyme_fwddiff((void *)f_sqrt, xs[i], 1.0),
                  0.5L / sqrtl(x));
    check_tangent("cbrt", __enzyme_fwddiff((void *)f_cbrt, xs[i], 1.0),
                  1.0L / (3 * cbrtl(x) * cbrtl(x)));
    check_tangent("powi", __enzyme_fwddiff((void *)f_powi, xs[i], 1.0),
                  5 * x * x * x * x);
  }
  const double x = 3.0, y = -4.0;
  check_tangent("hypot dx", __enzyme_fwddiff((void *)f_hypot, x, 1.0, y, 0.0),
                3.0L / 5.0L);
  check_tangent("hypot dy", __enzyme_fwddiff((void *)f_hypot, x, 0.0, y, 1.0),
                -4.0L / 5.0L);
  return tc_finish("math_pow_sqrt");
}
