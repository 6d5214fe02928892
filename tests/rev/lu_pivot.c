/* Solve A x = b by LU with partial pivoting, rows swapped by memcpy into
 * and out of a scratch row, then |x|^2.  The copies move a run-time count
 * of doubles at a run-time index into local arrays (`&a[k * n]`): the
 * bytes there are the arrays' elements, whatever the index. */
#include <string.h>

#include "rev_check.h"

enum { N = 4 };

static double solve(double *p, int n) {
  (void)n;
  double a[N * N], b[N], row[N], x[N];
  memcpy(a, p, N * N * sizeof(double));
  memcpy(b, p + N * N, N * sizeof(double));
  for (int k = 0; k < N; k++) {
    int piv = k;
    for (int i = k + 1; i < N; i++)
      if (fabs(a[i * N + k]) > fabs(a[piv * N + k]))
        piv = i;
    if (piv != k) {
      int len = N - k;
      memcpy(row, &a[k * N + k], len * sizeof(double));
      memcpy(&a[k * N + k], &a[piv * N + k], len * sizeof(double));
      memcpy(&a[piv * N + k], row, len * sizeof(double));
      double t = b[k];
      b[k] = b[piv];
      b[piv] = t;
    }
    for (int i = k + 1; i < N; i++) {
      double f = a[i * N + k] / a[k * N + k];
      for (int j = k; j < N; j++)
        a[i * N + j] -= f * a[k * N + j];
      b[i] -= f * b[k];
    }
  }
  for (int i = N - 1; i >= 0; i--) {
    double s = b[i];
    for (int j = i + 1; j < N; j++)
      s -= a[i * N + j] * x[j];
    x[i] = s / a[i * N + i];
  }
  double r = 0;
  for (int i = 0; i < N; i++)
    r += x[i] * x[i];
  return r;
}

RC_ARRAY_TEST(solve, N * N + N,
              /* A: the pivots are rows 1, 2, 3, 3 by a wide margin */
              1.0, 0.4, 0.2, 0.5, 6.0, 1.0, 0.2, 1.0, 0.5, 7.0, 1.5, 1.0,
              1.0, 0.1, 0.3, 8.0,
              /* b */
              1.0, 2.0, 3.0, 4.0)
