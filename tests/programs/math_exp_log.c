/* The exponential and logarithm families of libm: exp, exp2, expm1, log,
 * log2, log10, log1p, each differentiated alone against its analytic
 * derivative. */
#include "enzyme.h"
#include "tangent_check.h"

double f_exp(double x) { return exp(x); }
double f_exp2(double x) { return exp2(x); }
double f_expm1(double x) { return expm1(x); }
double f_log(double x) { return log(x); }
double f_log2(double x) { return log2(x); }
double f_log10(double x) { return log10(x); }
double f_log1p(double x) { return log1p(x); }

int main(void) {
  const double points[] = {0.25, 1.0, 3.5};
  for (int i = 0; i < 3; i++) {
    long double x = points[i];
    CHECK_UNARY("exp", f_exp, points[i], expl(x));
    CHECK_UNARY("exp2", f_exp2, points[i], exp2l(x) * logl(2.0L));
    CHECK_UNARY("expm1", f_expm1, points[i], expl(x));
    CHECK_UNARY("log", f_log, points[i], 1.0L / x);
    CHECK_UNARY("log2", f_log2, points[i], 1.0L / (x * logl(2.0L)));
    CHECK_UNARY("log10", f_log10, points[i], 1.0L / (x * logl(10.0L)));
    CHECK_UNARY("log1p", f_log1p, points[i], 1.0L / (1.0L + x));
  }
  return tc_finish("math_exp_log");
}
