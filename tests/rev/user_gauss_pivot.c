/* Gaussian elimination with partial pivoting (fabs comparisons of active
 * values pick the pivot, rows swapped in a local 2-D array), then back
 * substitution: a loss on the solution of A z = b, A and b in x. */
#include "both_modes.h"
#define M 3
static double solve_loss(double *x, int n) {
  (void)n;
  double a[M][M + 1];
  for (int i = 0; i < M; i++)
    for (int j = 0; j <= M; j++) a[i][j] = x[i * (M + 1) + j];
  for (int k = 0; k < M; k++) {
    int piv = k;
    for (int i = k + 1; i < M; i++)
      if (fabs(a[i][k]) > fabs(a[piv][k])) piv = i;
    if (piv != k)
      for (int j = 0; j <= M; j++) {
        double t = a[k][j];
        a[k][j] = a[piv][j];
        a[piv][j] = t;
      }
    for (int i = k + 1; i < M; i++) {
      double f = a[i][k] / a[k][k];
      for (int j = k; j <= M; j++) a[i][j] -= f * a[k][j];
    }
  }
  double z[M];
  for (int i = M - 1; i >= 0; i--) {
    double s = a[i][M];
    for (int j = i + 1; j < M; j++) s -= a[i][j] * z[j];
    z[i] = s / a[i][i];
  }
  return z[0] * z[0] + 2 * z[1] - z[2] * z[1];
}
static const double x0[12] = {1.0, 2.0, -1.0, 1.0,  4.0, 0.5, 1.0, -2.0,
                              -2.0, 1.0, 3.0, 0.5};
static const double dir[12] = {0.1, -0.2, 0.3, 0.5, -0.1, 0.2,
                               0.4, -0.3, 0.25, 0.1, -0.5, 1.0};
BM_ARRAY_BOTH(solve_loss, 12, x0, dir)
int main(void) {
  both_solve_loss();
  return rc_result();
}
