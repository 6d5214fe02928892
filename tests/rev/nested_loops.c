#include "rev_check.h"
static double nested_loops(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s += x[i] * x[j] / (1.0 + i + j) + (i == j ? x[i] * x[i] * x[i] : 0.0);
  return s;
}
RC_ARRAY_TEST(nested_loops, 4, 0.5, -1.0, 1.5, 0.25)
