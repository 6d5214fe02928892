#include "rev_check.h"
static double product(double *x, int n) {
  double p = 1;
  for (int i = 0; i < n; i++)
    p *= x[i];
  return p;
}
RC_ARRAY_TEST(product, 5, 1.5, -0.5, 2.0, 0.75, 1.25)
