/* A bubble sort of active values (swaps decided by comparing them), then
 * an order-weighted sum: the gradient follows the permutation. */
#include "both_modes.h"
static double sorted_weights(double *x, int n) {
  double a[8];
  for (int i = 0; i < n; i++) a[i] = x[i] * x[i] + 0.1 * x[i];
  for (int i = 0; i < n - 1; i++)
    for (int j = 0; j < n - 1 - i; j++)
      if (a[j] > a[j + 1]) {
        double t = a[j];
        a[j] = a[j + 1];
        a[j + 1] = t;
      }
  double s = 0;
  for (int i = 0; i < n; i++) s += (i + 1) * a[i] * a[i] + sin(a[i]);
  return s;
}
static const double x0[6] = {1.3, -0.2, 0.7, 2.1, -1.6, 0.45};
static const double dir[6] = {0.5, -1.0, 0.25, 1.5, -0.75, 1.0};
BM_ARRAY_BOTH(sorted_weights, 6, x0, dir)
int main(void) {
  both_sorted_weights();
  return rc_result();
}
