/* A matrix as an array of row pointers (double **): the shadow is itself
 * an array of pointers to shadow rows. */
#include "enzyme.h"
#include "tangent_check.h"

double trace_of_square(double **a, int n) {
  double t = 0.0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      t += a[i][k] * a[k][i];
  return t;
}

#define N 3
int main(void) {
  double r0[N] = {1, 2, 3}, r1[N] = {-1, 0.5, 2}, r2[N] = {0.25, 4, -2};
  double d0[N] = {0, 1, 0}, d1[N] = {0.5, 0, 0}, d2[N] = {0, 0, 1};
  double *a[N] = {r0, r1, r2};
  double *da[N] = {d0, d1, d2};
  /* d tr(A^2) = 2 tr(A dA) */
  long double want = 0;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < N; k++)
      want += 2.0L * a[i][k] * da[k][i];
  double t = __enzyme_fwddiff((void *)trace_of_square, enzyme_dup, a, da,
                              enzyme_const, N);
  check_tangent("d tr(A^2)", t, want);
  check_primal("primal", trace_of_square(a, N), 1 + 2 * 2 * -1 + 2 * 3 * 0.25 +
                0.25 + 2 * 2 * 4 + 4);
  return tc_finish("pointer_to_pointer");
}
