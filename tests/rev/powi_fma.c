#include <math.h>
#include "rev_check.h"
static double powi_fma(double *x, int n) {
  (void)n;
  return __builtin_powi(x[0], 3) + __builtin_powi(x[1], -2) +
         fma(x[0], x[1], x[2]) + __builtin_fma(x[2], x[2], x[0]) +
         pow(x[2], 2.5);
}
RC_ARRAY_TEST(powi_fma, 3, 0.7, 1.3, 0.9)
