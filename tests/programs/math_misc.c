/* The piecewise and special libm functions: fabs, fmax, fmin, copysign,
 * fma, erf, erfc, away from their kinks. */
#include "enzyme.h"
#include "tangent_check.h"

double f_fabs(double x) { return fabs(x) * 3.0; }
double f_fmax(double x, double y) { return fmax(x, y); }
double f_fmin(double x, double y) { return fmin(x, y); }
double f_copysign(double x, double y) { return copysign(x, y); }
double f_fma(double a, double b, double c) { return fma(a, b, c); }
double f_erf(double x) { return erf(x); }
double f_erfc(double x) { return erfc(x); }

int main(void) {
  check_tangent("fabs x>0", __enzyme_fwddiff((void *)f_fabs, 1.25, 1.0), 3.0L);
  check_tangent("fabs x<0", __enzyme_fwddiff((void *)f_fabs, -0.75, 1.0), -3.0L);
  check_tangent("fmax picks x",
                __enzyme_fwddiff((void *)f_fmax, 2.0, 0.5, 1.0, 7.0), 0.5L);
  check_tangent("fmax picks y",
                __enzyme_fwddiff((void *)f_fmax, -2.0, 0.5, 1.0, 7.0), 7.0L);
  check_tangent("fmin picks x",
                __enzyme_fwddiff((void *)f_fmin, -2.0, 0.5, 1.0, 7.0), 0.5L);
  check_tangent("fmin picks y",
                __enzyme_fwddiff((void *)f_fmin, 2.0, 0.5, 1.0, 7.0), 7.0L);
  /* copysign(x, y) = sign(y) |x|: d = sign(x) sign(y) dx, none from y. */
  check_tangent("copysign same sign",
                __enzyme_fwddiff((void *)f_copysign, 1.5, 2.0, 3.0, 9.0), 2.0L);
  check_tangent("copysign flips",
                __enzyme_fwddiff((void *)f_copysign, 1.5, 2.0, -3.0, 9.0),
                -2.0L);
  check_tangent("fma", __enzyme_fwddiff((void *)f_fma, 2.0, 0.1, -3.0, 0.2, 0.5,
                                        0.3),
                0.1L * -3.0L + 2.0L * 0.2L + 0.3L);
  const double xs[] = {-1.1, 0.2, 0.9};
  for (int i = 0; i < 3; i++) {
    long double x = xs[i];
    long double g = 2.0L / sqrtl(3.14159265358979323846264338327950288L) *
                    expl(-x * x);
    check_tangent("erf", __enzyme_fwddiff((void *)f_erf, xs[i], 1.0), g);
    check_tangent("erfc", __enzyme_fwddiff((void *)f_erfc, xs[i], 1.0), -g);
  }
  return tc_finish("math_misc");
}
