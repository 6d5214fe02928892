#include "rev_check.h"
static double loop_break(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i] * (i + 1);
    if (s > 10.0)
      break;
    s += x[i];
  }
  return s;
}
RC_ARRAY_TEST(loop_break, 6, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)
