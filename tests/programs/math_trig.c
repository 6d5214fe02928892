/* Trigonometric functions and their inverses: sin, cos, tan, asin, acos,
 * atan, and atan2 in both arguments. */
#include "enzyme.h"
#include "tangent_check.h"

double f_sin(double x) { return sin(x); }
double f_cos(double x) { return cos(x); }
double f_tan(double x) { return tan(x); }
double f_asin(double x) { return asin(x); }
double f_acos(double x) { return acos(x); }
double f_atan(double x) { return atan(x); }
double f_atan2(double y, double x) { return atan2(y, x); }

int main(void) {
  const double points[] = {-0.6, 0.1, 0.45};
  for (int i = 0; i < 3; i++) {
    long double x = points[i];
    CHECK_UNARY("sin", f_sin, points[i], cosl(x));
    CHECK_UNARY("cos", f_cos, points[i], -sinl(x));
    CHECK_UNARY("tan", f_tan, points[i], 1.0L / (cosl(x) * cosl(x)));
    CHECK_UNARY("asin", f_asin, points[i], 1.0L / sqrtl(1 - x * x));
    CHECK_UNARY("acos", f_acos, points[i], -1.0L / sqrtl(1 - x * x));
    CHECK_UNARY("atan", f_atan, points[i], 1.0L / (1 + x * x));
  }
  /* atan2(y, x): d = (x dy - y dx) / (x^2 + y^2), seeded in both at once. */
  const double y = 0.7, x = -1.3, dy = 0.4, dx = -2.0;
  long double want = ((long double)x * dy - (long double)y * dx) /
                     ((long double)x * x + (long double)y * y);
  check_tangent("atan2", __enzyme_fwddiff((void *)f_atan2, y, dy, x, dx), want);
  check_tangent("atan2 dy only",
                __enzyme_fwddiff((void *)f_atan2, y, 1.0, x, 0.0),
                (long double)x / ((long double)x * x + (long double)y * y));
  return tc_finish("math_trig");
}
