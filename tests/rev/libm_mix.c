#include <math.h>
#include "rev_check.h"
static double libm_mix(double *x, int n) {
  (void)n;
  double a = sin(x[0]) * exp(x[1]) + log(x[2]) * pow(x[3], x[1]);
  double b = sqrt(x[2] + x[3]) * tanh(x[0]) + atan2(x[1], x[3]);
  double c = fmax(x[0], x[1]) + fmin(x[2], x[3]) + cos(x[4]) + atan(x[4]);
  return a * b + c + exp2(x[4]) + log10(x[2]) + sinh(x[1]) + cosh(x[0]);
}
RC_ARRAY_TEST(libm_mix, 5, 0.3, 0.6, 1.7, 2.2, -0.4)
