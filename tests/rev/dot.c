#include "rev_check.h"
static double dot(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n / 2; i++)
    s += x[i] * x[n / 2 + i];
  return s * s;
}
RC_ARRAY_TEST(dot, 8, 1, 2, 3, 4, 0.5, -0.5, 0.25, -1)
