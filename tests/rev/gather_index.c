#include "rev_check.h"
/* integer indices chosen by the data (a permutation), integer counters */
static double gather_index(double *x, int n) {
  int idx[5] = {3, 0, 4, 1, 2};
  double s = 0;
  int count = 0;
  for (int i = 0; i < n; i++) {
    int j = idx[i];
    if (x[j] > 0)
      count++;
    s += x[j] * x[i] * (count + 1);
  }
  return s;
}
RC_ARRAY_TEST(gather_index, 5, 0.5, 1.0, -0.5, 1.5, 0.2)
