#include "rev_check.h"
/* a three-term recurrence: several values carried around a loop */
static double recurrence_phis(double *x, int n) {
  double a = x[0], b = x[1], c = x[2];
  for (int i = 0; i < 12; i++) {
    double t = 0.5 * a + 0.3 * b * c + 0.1 * x[i % n];
    a = b;
    b = c;
    c = t;
  }
  return a + b * c;
}
RC_ARRAY_TEST(recurrence_phis, 4, 0.5, 1.0, -0.5, 1.5)
