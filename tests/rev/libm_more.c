#include <math.h>
#include "rev_check.h"
static double libm_more(double *x, int n) {
  (void)n;
  return hypot(x[0], x[1]) + cbrt(x[2]) + expm1(x[0]) + log1p(x[1]) +
         erf(x[2]) + tan(x[0]) + asin(x[3]) + acos(x[3]) + log2(x[2]) +
         fabs(x[1] - x[2]) + copysign(x[0], x[1]) + fmod(x[2], 0.7) +
         asinh(x[1]) + atanh(x[3]) + exp(-x[0] * x[0]);
}
RC_ARRAY_TEST(libm_more, 4, 0.4, -0.3, 1.6, 0.2)
