/* Hyperbolic functions and their inverses: sinh, cosh, tanh, asinh, acosh,
 * atanh. */
#include "enzyme.h"
#include "tangent_check.h"

double f_sinh(double x) { return sinh(x); }
double f_cosh(double x) { return cosh(x); }
double f_tanh(double x) { return tanh(x); }
double f_asinh(double x) { return asinh(x); }
double f_acosh(double x) { return acosh(x + 2.0); }
double f_atanh(double x) { return atanh(x); }

int main(void) {
  const double points[] = {-0.7, 0.05, 0.6};
  for (int i = 0; i < 3; i++) {
    long double x = points[i];
    CHECK_UNARY("sinh", f_sinh, points[i], coshl(x));
    CHECK_UNARY("cosh", f_cosh, points[i], sinhl(x));
    CHECK_UNARY("tanh", f_tanh, points[i], 1.0L / (coshl(x) * coshl(x)));
    CHECK_UNARY("asinh", f_asinh, points[i], 1.0L / sqrtl(x * x + 1));
    CHECK_UNARY("acosh", f_acosh, points[i],
              1.0L / sqrtl((x + 2) * (x + 2) - 1));
    CHECK_UNARY("atanh", f_atanh, points[i], 1.0L / (1 - x * x));
  }
  return tc_finish("math_hyperbolic");
}
