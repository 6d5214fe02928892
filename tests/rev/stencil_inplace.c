#include "rev_check.h"
/* Gauss-Seidel sweeps updating the buffer in place, then its energy */
static double stencil_inplace(double *u, int n) {
  for (int sweep = 0; sweep < 4; sweep++)
    for (int i = 1; i < n - 1; i++)
      u[i] = 0.25 * u[i - 1] + 0.5 * u[i] * u[i] + 0.25 * u[i + 1];
  double e = 0;
  for (int i = 0; i + 1 < n; i++)
    e += (u[i + 1] - u[i]) * (u[i + 1] - u[i]);
  return e;
}
RC_ARRAY_TEST(stencil_inplace, 7, 0.1, 0.3, -0.2, 0.4, 0.2, -0.1, 0.3)
