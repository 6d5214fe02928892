/* Heap scratch inside the differentiated function: malloc a work array,
 * fill it from the input, reduce it, free it.  The derivative needs a
 * shadow allocation for the scratch. */
#include <stdlib.h>

#include "enzyme.h"
#include "tangent_check.h"

double smooth_norm(const double *x, int n) {
  double *work = malloc(sizeof(double) * n);
  if (!work)
    return NAN;
  for (int i = 0; i < n; i++)
    work[i] = x[i] * x[i] + 1.0;
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += sqrt(work[i]);
  free(work);
  return s;
}

#define N 6
static const double x0[N] = {0.1, -2.0, 1.5, 3.0, -0.4, 0.0};
static const double dir[N] = {1.0, 1.0, -0.5, 0.25, 2.0, 1.0};

static double along(double t, void *ctx) {
  (void)ctx;
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i] + t * dir[i];
  return smooth_norm(x, N);
}

int main(void) {
  double x[N], dx[N];
  long double want = 0;
  for (int i = 0; i < N; i++) {
    x[i] = x0[i];
    dx[i] = dir[i];
    want += (long double)x0[i] * dir[i] / sqrtl(1.0L * x0[i] * x0[i] + 1);
  }
  check_reference("analytic", want, fd_derivative(along, NULL));
  double t = __enzyme_fwddiff((void *)smooth_norm, enzyme_dup, x, dx,
                              enzyme_const, N);
  check_tangent("directional", t, want);
  /* Called repeatedly, a leaked or double-freed shadow would show up under
   * ASan/valgrind; the value must stay the same. */
  for (int k = 0; k < 100; k++)
    t = __enzyme_fwddiff((void *)smooth_norm, enzyme_dup, x, dx, enzyme_const,
                         N);
  check_tangent("repeated", t, want);
  return tc_finish("heap_scratch");
}
