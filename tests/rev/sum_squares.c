#include "rev_check.h"
static double sum_squares(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}
RC_ARRAY_TEST(sum_squares, 5, 1.0, -2.0, 0.5, 3.0, 0.25)
