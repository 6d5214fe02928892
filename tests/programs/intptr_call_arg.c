/* Pointers passed as integers (uintptr_t) to helpers that are themselves
 * differentiated: the helper's derivative must receive the shadow of the
 * integer (an integer of the same type) and read or write shadow memory
 * through it.  The helpers are noinline so the call survives -O2; a plain
 * integer parameter (the count) gets no shadow. */
#include <stdint.h>

#include "enzyme.h"
#include "tangent_check.h"

typedef struct {
  double d[2];
} tangent2;
tangent2 __enzyme_fwddiff2(void *, ...) asm("__enzyme_fwddiff");

/* reads through the integer */
__attribute__((noinline)) double sum_squares(uintptr_t p, int n) {
  const double *v = (const double *)p;
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[i];
  return s;
}

/* writes through one integer, reads through another */
__attribute__((noinline)) void scale_into(uintptr_t dst, uintptr_t src,
                                          double a, int n) {
  double *out = (double *)dst;
  const double *in = (const double *)src;
  for (int i = 0; i < n; i++)
    out[i] = a * in[i] * in[i];
}

/* only integer parameters: the call is still differentiated */
__attribute__((noinline)) void cube_in_place(uintptr_t p, long n) {
  double *v = (double *)p;
  for (long i = 0; i < n; i++)
    v[i] = v[i] * v[i] * v[i];
}

/* the integer passed on through a second level */
__attribute__((noinline)) double twice_sum(uintptr_t p, int n) {
  return 2.0 * sum_squares(p, n);
}

/* f1 = sum x_i^2 + x_0 */
double f1(double *x, int n) { return sum_squares((uintptr_t)x, n) + x[0]; }

/* f2 = sum_i w_i a x_i^2  (through a local buffer) */
double f2(double *x, double a, int n) {
  double buf[8];
  scale_into((uintptr_t)buf, (uintptr_t)x, a, n);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (i + 1.0) * buf[i];
  return s;
}

/* f3 = sum x_i^3 + 2 sum x_i^2 (x is overwritten: work on a copy) */
double f3(const double *x, int n) {
  double w[8];
  for (int i = 0; i < n; i++)
    w[i] = x[i];
  cube_in_place((uintptr_t)w, n);
  double s = twice_sum((uintptr_t)x, n);
  for (int i = 0; i < n; i++)
    s += w[i];
  return s;
}

#define N 4
static const double X[N] = {0.5, -1.25, 2.0, 1.5};

static double line_f1(double t, void *ctx) {
  const double *dx = ctx;
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = X[i] + t * dx[i];
  return f1(x, N);
}
static double line_f2(double t, void *ctx) {
  const double *dx = ctx; /* dx[N] is the direction of a */
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = X[i] + t * dx[i];
  return f2(x, 0.75 + t * dx[N], N);
}
static double line_f3(double t, void *ctx) {
  const double *dx = ctx;
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = X[i] + t * dx[i];
  return f3(x, N);
}

int main(void) {
  double x[N], dx[N + 1] = {1.0, 0.5, -2.0, 0.25, 0.5};
  double ex[N] = {0, 1, 0, 0};
  for (int i = 0; i < N; i++)
    x[i] = X[i];

  long double want1 = dx[0];
  for (int i = 0; i < N; i++)
    want1 += 2.0L * x[i] * dx[i];
  check_reference("f1", want1, fd_derivative(line_f1, dx));
  check_tangent("f1", __enzyme_fwddiff((void *)f1, enzyme_dup, x, dx,
                                       enzyme_const, N),
                want1);

  long double want2 = 0;
  for (int i = 0; i < N; i++)
    want2 += (i + 1.0L) * (dx[N] * x[i] * x[i] + 0.75L * 2 * x[i] * dx[i]);
  check_reference("f2", want2, fd_derivative(line_f2, dx));
  check_tangent("f2", __enzyme_fwddiff((void *)f2, enzyme_dup, x, dx, 0.75,
                                       dx[N], enzyme_const, N),
                want2);

  long double want3 = 0;
  for (int i = 0; i < N; i++)
    want3 += (3.0L * x[i] * x[i] + 4.0L * x[i]) * dx[i];
  check_reference("f3", want3, fd_derivative(line_f3, dx));
  check_tangent("f3", __enzyme_fwddiff((void *)f3, enzyme_dup, x, dx,
                                       enzyme_const, N),
                want3);

  /* two directions at once: the integer's shadow is an [2 x i64] */
  tangent2 t = __enzyme_fwddiff2((void *)f1, enzyme_width, 2, enzyme_dup, x,
                                 dx, ex, enzyme_const, N);
  check_tangent("f1 lane 0", t.d[0], want1);
  check_tangent("f1 lane 1", t.d[1], 2.0L * x[1]);
  return tc_finish("intptr_call_arg");
}
