#include "rev_check.h"
/* y = W v (W 3x4 at x[0..11], v at x[12..15]); returns |y|^2 */
static double matvec(double *x, int n) {
  (void)n;
  double y[3];
  for (int i = 0; i < 3; i++) {
    y[i] = 0;
    for (int j = 0; j < 4; j++)
      y[i] += x[4 * i + j] * x[12 + j];
  }
  return y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
}
RC_ARRAY_TEST(matvec, 16, 0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9, 1.0,
              1.1, -1.2, 1.0, -2.0, 0.5, 0.25)
