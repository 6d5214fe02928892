#include "rev_check.h"
static double switch_case(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    switch (i % 4) {
    case 0: s += x[i] * x[i]; break;
    case 1: s *= x[i]; break;
    case 2: s -= x[i] / (1 + x[i] * x[i]); break;
    default: s = s * s * 0.1 + x[i]; break;
    }
  }
  return s;
}
RC_ARRAY_TEST(switch_case, 7, 0.5, -1.0, 1.5, 0.75, 2.0, -0.5, 0.3)
