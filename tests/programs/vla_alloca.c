/* Stack arrays whose size is known only at run time (VLAs, i.e. dynamic
 * allocas): the shadow needs a dynamic alloca of its own. */
#include "enzyme.h"
#include "tangent_check.h"

double prefix_product_sum(const double *x, int n) {
  double prefix[n];
  prefix[0] = x[0];
  for (int i = 1; i < n; i++)
    prefix[i] = prefix[i - 1] * x[i];
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += prefix[i];
  return s;
}

#define N 5
static const double x0[N] = {1.1, 0.9, -1.2, 0.5, 2.0};
static const double dir[N] = {1, -1, 0.5, 2, 0.25};

static double along(double t, void *ctx) {
  (void)ctx;
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i] + t * dir[i];
  return prefix_product_sum(x, N);
}

int main(void) {
  double x[N], dx[N];
  for (int i = 0; i < N; i++) {
    x[i] = x0[i];
    dx[i] = dir[i];
  }
  for (int n = 1; n <= N; n++) {
    double t = __enzyme_fwddiff((void *)prefix_product_sum, enzyme_dup, x, dx,
                                enzyme_const, n);
    if (n == N)
      check_tangent_fd("directional", t, fd_derivative(along, NULL));
    else {
      long double want = 0, prod = 1, dprod = 0;
      for (int i = 0; i < n; i++) {
        dprod = dprod * x[i] + prod * dx[i];
        prod *= x[i];
        want += dprod;
      }
      check_tangent("prefix", t, want);
    }
  }
  return tc_finish("vla_alloca");
}
