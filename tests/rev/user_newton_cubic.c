/* A Newton solve with a fixed iteration count, as users write one: the root
 * y(a, b) of y^3 + a y - b = 0 from y = 1, then a loss on the root; the
 * gradient flows through every iterate (both modes). */
#include "both_modes.h"
static double solve(double *x, int n) {
  (void)n;
  double a = x[0], b = x[1], y = 1.0;
  for (int it = 0; it < 12; it++) {
    double f = y * y * y + a * y - b, fp = 3 * y * y + a;
    y -= f / fp;
  }
  return y * y + sin(y) + x[2] * y;
}
static const double x0[3] = {2.0, 3.5, 0.75}, dir[3] = {0.5, -1.0, 2.0};
BM_ARRAY_BOTH(solve, 3, x0, dir)
int main(void) {
  both_solve();
  return rc_result();
}
