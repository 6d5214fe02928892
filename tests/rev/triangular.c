#include "rev_check.h"
static double triangular(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double row = 0;
    for (int j = 0; j <= i; j++)
      row += x[j] * x[i - j];
    s += row * row;
  }
  return s;
}
RC_ARRAY_TEST(triangular, 5, 0.5, -0.25, 0.75, 1.0, -0.5)
