#include "rev_check.h"
/* RK4 on the oscillator y'' = -k y - c y'^3, x = {y, v, k}; final energy */
static void deriv(const double *s, double k, double *d) {
  d[0] = s[1];
  d[1] = -k * s[0] - 0.1 * s[1] * s[1] * s[1];
}
static double rk4(double *x, int n) {
  (void)n;
  double s[2] = {x[0], x[1]}, k = x[2], h = 0.1;
  for (int step = 0; step < 10; step++) {
    double k1[2], k2[2], k3[2], k4[2], t[2];
    deriv(s, k, k1);
    for (int i = 0; i < 2; i++) t[i] = s[i] + 0.5 * h * k1[i];
    deriv(t, k, k2);
    for (int i = 0; i < 2; i++) t[i] = s[i] + 0.5 * h * k2[i];
    deriv(t, k, k3);
    for (int i = 0; i < 2; i++) t[i] = s[i] + h * k3[i];
    deriv(t, k, k4);
    for (int i = 0; i < 2; i++)
      s[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return 0.5 * s[1] * s[1] + 0.5 * k * s[0] * s[0];
}
RC_ARRAY_TEST(rk4, 3, 1.0, 0.2, 2.0)
