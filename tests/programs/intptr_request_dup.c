/* enzyme_dup on an integer parameter that carries a pointer (a device
 * handle as uint64_t): the shadow is an integer of the same type, here the
 * address of the shadow buffer.  The requested function passes the handle
 * on to a helper, and also gets two directions at once (enzyme_width 2:
 * two integer shadows). */
#include <stdint.h>

#include "enzyme.h"
#include "tangent_check.h"

typedef uint64_t handle;
typedef struct {
  double d[2];
} tangent2;
tangent2 __enzyme_fwddiff2(void *, ...) asm("__enzyme_fwddiff");
void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

__attribute__((noinline)) double dot(handle a, handle b, int n) {
  const double *x = (const double *)(uintptr_t)a;
  const double *y = (const double *)(uintptr_t)b;
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

static const double C[3] = {3.0, 0.5, -1.0};

/* f = (<x, x> * x_0 + <x, C>) * k, k read through a constant handle.  dot
 * is differentiated twice: both handles duplicated, and the second one
 * constant (a different signature, a second derivative). */
double f(handle xs, handle ks, int n) {
  double k = *(const double *)(uintptr_t)ks;
  return (dot(xs, xs, n) * *(const double *)(uintptr_t)xs +
          dot(xs, (handle)(uintptr_t)C, n)) *
         k;
}

/* out_i = exp(in_i), both handles */
void exp_all(handle out, handle in, int n) {
  double *o = (double *)(uintptr_t)out;
  const double *x = (const double *)(uintptr_t)in;
  for (int i = 0; i < n; i++)
    o[i] = exp(x[i]);
}

#define N 3
static const double X[N] = {0.5, -1.25, 2.0};
static const double K = 1.5;

static double line_f(double t, void *ctx) {
  const double *dx = ctx;
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = X[i] + t * dx[i];
  return f((handle)(uintptr_t)x, (handle)(uintptr_t)&K, N);
}

int main(void) {
  double x[N], k = K, dx[N] = {1.0, 0.5, -2.0}, ex[N] = {0, 0, 1};
  for (int i = 0; i < N; i++)
    x[i] = X[i];
  long double xx = 0, dxx = 0, xc_d = 0, dxx2 = 0, xc_d2 = 0;
  for (int i = 0; i < N; i++) {
    xx += (long double)x[i] * x[i];
    dxx += 2.0L * x[i] * dx[i];
    dxx2 += 2.0L * x[i] * ex[i];
    xc_d += (long double)dx[i] * C[i];
    xc_d2 += (long double)ex[i] * C[i];
  }
  long double want = (dxx * x[0] + xx * dx[0] + xc_d) * k;
  long double want2 = (dxx2 * x[0] + xx * ex[0] + xc_d2) * k;
  check_reference("f", want, fd_derivative(line_f, dx));
  check_tangent("f", __enzyme_fwddiff((void *)f, enzyme_dup, (handle)(uintptr_t)x,
                                      (handle)(uintptr_t)dx, enzyme_const,
                                      (handle)(uintptr_t)&k, enzyme_const, N),
                want);
  tangent2 t = __enzyme_fwddiff2((void *)f, enzyme_width, 2, enzyme_dup,
                                 (handle)(uintptr_t)x, (handle)(uintptr_t)dx,
                                 (handle)(uintptr_t)ex, enzyme_const,
                                 (handle)(uintptr_t)&k, enzyme_const, N);
  /* the buffers themselves for the handles (converted to integers) */
  check_tangent("f, pointers given", __enzyme_fwddiff((void *)f, enzyme_dup, x,
                                                      dx, enzyme_const, &k,
                                                      enzyme_const, N),
                want);
  check_tangent("f lane 0", t.d[0], want);
  check_tangent("f lane 1", t.d[1], want2);

  double y[N], dy[N];
  __enzyme_fwddiff_void((void *)exp_all, enzyme_dup, (handle)(uintptr_t)y,
                        (handle)(uintptr_t)dy, enzyme_dup, (handle)(uintptr_t)x,
                        (handle)(uintptr_t)dx, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    check_primal_out("y", y[i], expl(x[i]));
    check_tangent("dy", dy[i], expl(x[i]) * dx[i]);
  }
  return tc_finish("intptr_request_dup");
}
