/* Helpers that return a pointer as an integer (uintptr_t): the caller
 * reads through the result, so the helper's derivative returns the
 * result's shadow (an integer of the same type) next to the primal. */
#include <stdint.h>

#include "enzyme.h"
#include "tangent_check.h"

/* address of x[i], as an integer */
__attribute__((noinline)) uintptr_t element_address(double *x, int i) {
  return (uintptr_t)(x + i);
}

/* integer in, integer out: pointer arithmetic on a handle */
__attribute__((noinline)) uintptr_t advance(uintptr_t p, long k) {
  return p + (uintptr_t)k * sizeof(double);
}

/* f = sum_i (i+1) x_i^2 */
double weighted(double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double v = *(const double *)element_address(x, i);
    s += (i + 1.0) * v * v;
  }
  return s;
}

/* g = x_{n-1} * x_1 + x_0, through a chain of handles; also writes
 * y = 3 x_1 through a returned handle */
double chained(double *x, double *y, int n) {
  uintptr_t h = (uintptr_t)x;
  uintptr_t last = advance(h, n - 1);
  uintptr_t second = advance(advance(h, 2), -1);
  *(double *)advance((uintptr_t)y, 0) = 3.0 * *(const double *)second;
  return *(const double *)last * *(const double *)second + *(double *)h;
}

#define N 5
static const double X[N] = {0.5, -1.25, 2.0, 1.5, -0.75};

static double line_weighted(double t, void *ctx) {
  const double *dx = ctx;
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = X[i] + t * dx[i];
  return weighted(x, N);
}
static double line_chained(double t, void *ctx) {
  const double *dx = ctx;
  double x[N], y;
  for (int i = 0; i < N; i++)
    x[i] = X[i] + t * dx[i];
  return chained(x, &y, N);
}

int main(void) {
  double x[N], dx[N] = {1.0, 0.5, -2.0, 0.25, 2.0};
  for (int i = 0; i < N; i++)
    x[i] = X[i];
  long double want = 0;
  for (int i = 0; i < N; i++)
    want += 2.0L * (i + 1) * x[i] * dx[i];
  check_reference("weighted", want, fd_derivative(line_weighted, dx));
  check_tangent("weighted", __enzyme_fwddiff((void *)weighted, enzyme_dup, x,
                                             dx, enzyme_const, N),
                want);

  double y = 0, dy = 0;
  long double want_g =
      dx[N - 1] * x[1] + x[N - 1] * dx[1] + dx[0];
  check_reference("chained", want_g, fd_derivative(line_chained, dx));
  check_tangent("chained", __enzyme_fwddiff((void *)chained, enzyme_dup, x, dx,
                                            enzyme_dup, &y, &dy, enzyme_const,
                                            N),
                want_g);
  check_primal_out("y", y, 3.0L * x[1]);
  check_tangent("dy", dy, 3.0L * dx[1]);
  return tc_finish("intptr_call_return");
}
