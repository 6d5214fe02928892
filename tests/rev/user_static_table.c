/* `static` lookup tables: Chebyshev coefficients in a static const array, a
 * static (mutable, never written) weights table, and a static local table
 * indexed by a computed integer. */
#include "both_modes.h"
static const double cheb[6] = {1.0, -0.5, 0.25, 0.125, -0.0625, 0.03125};
static double weights[4] = {0.5, 1.5, -1.0, 2.0};
static double chebyshev(double t) {
  double b1 = 0, b2 = 0;
  for (int k = 5; k >= 1; k--) {
    double b0 = 2 * t * b1 - b2 + cheb[k];
    b2 = b1;
    b1 = b0;
  }
  return t * b1 - b2 + cheb[0];
}
static double tabled(double *x, int n) {
  static const double knots[5] = {0.0, 0.2, 0.5, 0.9, 1.4};
  double s = 0;
  for (int i = 0; i < n; i++) {
    double u = tanh(x[i]);
    int bin = (int)(fabs(u) * 4);
    s += weights[i % 4] * chebyshev(u) + knots[bin] * x[i] * x[i];
  }
  return s;
}
static const double x0[4] = {0.3, -0.7, 1.1, 0.05};
static const double dir[4] = {1.0, 0.25, -0.5, 2.0};
BM_ARRAY_BOTH(tabled, 4, x0, dir)
int main(void) {
  both_tabled();
  return rc_result();
}
