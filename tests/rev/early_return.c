#include "rev_check.h"
static double early_return(double *x, int n) {
  for (int i = 0; i < n; i++) {
    if (x[i] < 0)
      return x[i] * x[0];
    if (x[i] > 3)
      return x[i] * x[i] * x[1];
    x[i] = x[i] * 1.5;
  }
  return x[0] + x[n - 1];
}
static double wrap(double *x, int n) { return early_return(x, n) + early_return(x + 2, n - 2); }
RC_ARRAY_TEST(wrap, 5, 0.5, 1.0, 2.5, -1.0, 0.3)
