/* A pointer held as an integer inside a struct passed by pointer to a
 * helper (a "view": uintptr_t data + count).  The struct's memory has a
 * shadow whose data member holds the shadow address, so the helper reads
 * and writes shadow memory through it. */
#include <stdint.h>

#include "enzyme.h"
#include "tangent_check.h"

struct view {
  uintptr_t data;
  long count;
};

/* sum_i data_i^2 */
__attribute__((noinline)) double view_norm2(const struct view *v) {
  const double *d = (const double *)v->data;
  double s = 0.0;
  for (long i = 0; i < v->count; i++)
    s += d[i] * d[i];
  return s;
}

/* dst_i = sin(src_i) */
__attribute__((noinline)) void view_sin(const struct view *dst,
                                        const struct view *src) {
  double *o = (double *)dst->data;
  const double *in = (const double *)src->data;
  for (long i = 0; i < src->count; i++)
    o[i] = sin(in[i]);
}

/* f = sum sin(x_i)^2 + x_0 * |x|^2 */
double f(double *x, long n) {
  double tmp[8];
  struct view vx = {(uintptr_t)x, n}, vt = {(uintptr_t)tmp, n};
  view_sin(&vt, &vx);
  return view_norm2(&vt) + x[0] * view_norm2(&vx);
}

#define N 4
static const double X[N] = {0.5, -1.25, 2.0, 1.5};

static double line_f(double t, void *ctx) {
  const double *dx = ctx;
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = X[i] + t * dx[i];
  return f(x, N);
}

int main(void) {
  double x[N], dx[N] = {1.0, 0.5, -2.0, 0.25};
  for (int i = 0; i < N; i++)
    x[i] = X[i];
  long double norm2 = 0, dnorm2 = 0, want = 0;
  for (int i = 0; i < N; i++) {
    norm2 += (long double)x[i] * x[i];
    dnorm2 += 2.0L * x[i] * dx[i];
    want += 2.0L * sinl(x[i]) * cosl(x[i]) * dx[i];
  }
  want += dx[0] * norm2 + x[0] * dnorm2;
  check_reference("f", want, fd_derivative(line_f, dx));
  check_tangent("f", __enzyme_fwddiff((void *)f, enzyme_dup, x, dx,
                                      enzyme_const, (long)N),
                want);
  return tc_finish("intptr_call_struct");
}
