#include "rev_check.h"
static const double weights[6] = {0.5, -1.25, 2.0, 0.75, -0.5, 1.5};
static double const_table(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += weights[i] * x[i] * x[(i + 1) % n];
  return s * s;
}
RC_ARRAY_TEST(const_table, 6, 0.5, 1.0, -2.5, 1.0, 0.3, 0.7)
