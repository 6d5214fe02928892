#include <math.h>
#include "rev_check.h"
static double select_ternary(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double v = x[i] > 0 ? x[i] * 2.0 : x[i] * x[i];
    double w = x[i] < s ? s : x[i];
    s += v + w * 0.5 + fabs(x[i]) + fmax(x[i], 0.1) + fmin(x[i], -0.1);
  }
  return s;
}
RC_ARRAY_TEST(select_ternary, 5, 0.5, -1.0, 1.5, -0.75, 2.0)
