#include "rev_check.h"
static double branches(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (x[i] > 0.5)
      s += x[i] * x[i];
    else if (x[i] > -0.5)
      s -= 3.0 * x[i];
    else
      s += x[i] * s;
  }
  return s;
}
RC_ARRAY_TEST(branches, 6, 1.0, 0.2, -1.0, 2.0, -0.1, -0.9)
