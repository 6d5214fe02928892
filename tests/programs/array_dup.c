/* Arrays through enzyme_dup pointers: a read-only input array with its
 * shadow, and the length as an enzyme_const integer. */
#include "enzyme.h"
#include "tangent_check.h"

double weighted_squares(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * x[i] * x[i];
  return s;
}

#define N 7
static double x0[N] = {0.5, -1.0, 2.0, 0.25, 3.0, -0.75, 1.5};
static double dir[N] = {1.0, 0.5, -2.0, 0.0, 1.0, 3.0, -1.0};

static double along(double t, void *ctx) {
  (void)ctx;
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i] + t * dir[i];
  return weighted_squares(x, N);
}

int main(void) {
  double dx[N], x_before[N];
  long double want = 0;
  for (int i = 0; i < N; i++) {
    dx[i] = dir[i];
    x_before[i] = x0[i];
    want += 2.0L * (i + 1) * x0[i] * dir[i];
  }
  check_reference("analytic", want, fd_derivative(along, NULL));
  double t = __enzyme_fwddiff((void *)weighted_squares, enzyme_dup, x0, dx,
                              enzyme_const, N);
  check_tangent("directional", t, want);
  for (int i = 0; i < N; i++) {
    check_primal("x unchanged", x0[i], x_before[i]);
    check_primal("dx unchanged", dx[i], dir[i]);
  }
  /* Unit seeds give the gradient one component at a time. */
  for (int k = 0; k < N; k++) {
    double e[N] = {0};
    e[k] = 1.0;
    check_tangent("gradient component",
                  __enzyme_fwddiff((void *)weighted_squares, enzyme_dup, x0, e,
                                   enzyme_const, N),
                  2.0L * (k + 1) * x0[k]);
  }
  return tc_finish("array_dup");
}
