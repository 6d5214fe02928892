#include "rev_check.h"
static double division(double *x, int n) {
  double r = x[0];
  for (int i = 1; i < n; i++)
    r = r / x[i] + 1.0 / (x[i] * x[i]) + -1.0 / (x[i] + 3.0) + 2.5 / x[i];
  return r / (1.0 + x[0] * x[0]);
}
RC_ARRAY_TEST(division, 4, 1.5, 0.5, -2.0, 1.25)
