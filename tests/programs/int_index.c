/* Integer index arithmetic around active loads: strided and permuted
 * indices (mul, add, rem, shifts), and the loop counter converted to double
 * as an inactive factor. */
#include "enzyme.h"
#include "tangent_check.h"

double permuted_energy(const double *x, int n) {
  double e = 0.0;
  for (int i = 0; i < n; i++) {
    int j = (i * 7 + 3) % n;  /* a permutation, n prime to 7 */
    int k = (i << 1) % n;
    e += (double)(i + 1) * x[j] * x[k] + x[(n - 1 - i) & 7];
  }
  return e;
}

#define N 8
static const double x0[N] = {0.5, -1, 2, 0.25, 1.5, -0.75, 3, 1};
static const double dir[N] = {1, 0.5, -1, 2, 0, 1, -0.5, 0.25};

static double along(double t, void *ctx) {
  (void)ctx;
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i] + t * dir[i];
  return permuted_energy(x, N);
}

int main(void) {
  double x[N], dx[N];
  long double want = 0;
  for (int i = 0; i < N; i++) {
    x[i] = x0[i];
    dx[i] = dir[i];
  }
  for (int i = 0; i < N; i++) {
    int j = (i * 7 + 3) % N, k = (i << 1) % N;
    want += (i + 1.0L) * (dir[j] * x0[k] + x0[j] * dir[k]) + dir[(N - 1 - i) & 7];
  }
  check_reference("analytic", want, fd_derivative(along, NULL));
  check_tangent("directional", __enzyme_fwddiff((void *)permuted_energy,
                                                enzyme_dup, x, dx, enzyme_const,
                                                N),
                want);
  return tc_finish("int_index");
}
