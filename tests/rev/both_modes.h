/*
 * Both modes of one function, as a user checks them: the gradient from
 * __enzyme_autodiff (rev_check.h: against finite differences, from nonzero
 * shadows), and the tangent from __enzyme_fwddiff along a direction v,
 * against a finite difference of the value along v and against
 * <gradient, v> (forward and reverse mode meet in w^T J v; here w = 1).
 */
#ifndef TANJIT_TESTS_BOTH_MODES_H
#define TANJIT_TESTS_BOTH_MODES_H

#include "rev_check.h"

#ifdef __cplusplus
extern "C" {
#endif
extern int enzyme_width;
#ifndef BM_OWN_FWDDIFF
double __enzyme_fwddiff(void *, ...);
#endif
#ifdef __cplusplus
}
#endif

/* d/dt value(p0 + t v) at t = 0, five-point, in long double. */
static RC_UNUSED long double bm_fd_along(rc_fun value, const long double *p0,
                                         const long double *v, int n) {
  static const int steps[4] = {-2, -1, 1, 2};
  long double p[256], f[4], h = 1e-3L;
  for (int s = 0; s < 4; s++) {
    for (int k = 0; k < n && k < 256; k++)
      p[k] = p0[k] + steps[s] * h * v[k];
    f[s] = value(p);
  }
  return (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h);
}

static RC_UNUSED void bm_expect(const char *name, const char *what,
                                long double got, long double want,
                                long double rtol, long double atol) {
  rc_checks++;
  if (!isnan(got) && fabsl(got - want) <= atol + rtol * fabsl(want))
    return;
  rc_failures++;
  printf("MISMATCH %s: %s: got %.17Lg, expected %.17Lg\n", name, what, got,
         want);
}

/* The forward tangent along v: against the finite difference of value,
 * and (grad not NULL: value's own gradient, seeds taken off) <grad, v>. */
static RC_UNUSED void bm_check_tangent_tol(const char *name, rc_fun value,
                                           const long double *p0,
                                           const long double *v, int n,
                                           long double tangent,
                                           const long double *grad,
                                           long double rtol,
                                           long double atol) {
  bm_expect(name, "tangent vs finite difference", tangent,
            bm_fd_along(value, p0, v, n), rtol, atol);
  if (grad) {
    long double dot = 0;
    for (int i = 0; i < n; i++)
      dot += grad[i] * v[i];
    bm_expect(name, "tangent vs <gradient, v>", tangent, dot, 1e-3L * rtol,
              1e-3L * atol);
  }
}

static RC_UNUSED void bm_check_tangent(const char *name, rc_fun value,
                                       const long double *p0,
                                       const long double *v, int n,
                                       long double tangent,
                                       const long double *grad) {
  bm_check_tangent_tol(name, value, p0, v, n, tangent, grad, 1e-6L, 1e-8L);
}

/* The common shape, double f(double *x, int n) reading x only: the
 * gradient from nonzero shadows, then the tangent along V, both checked.
 * X0 and V name arrays of N doubles. */
#define BM_ARRAY_BOTH(f, N, X0, V)                                           \
  RC_ARRAY_RUN(run_##f, f, N)                                                \
  static long double value_##f(const long double *p) {                      \
    double x[N];                                                             \
    for (int i = 0; i < N; i++)                                              \
      x[i] = (double)p[i];                                                   \
    return f(x, N);                                                          \
  }                                                                          \
  static void both_##f(void) {                                               \
    double x[N], dx[N], tx[N];                                               \
    long double p[N], got[N], grad[N], v[N];                                 \
    for (int i = 0; i < N; i++)                                              \
      x[i] = X0[i], p[i] = X0[i], tx[i] = V[i], v[i] = V[i];                 \
    rc_seed(dx, N);                                                          \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);        \
    for (int i = 0; i < N; i++)                                              \
      got[i] = dx[i], grad[i] = dx[i] - rc_seed_value(i);                    \
    rc_check(#f " gradient", run_##f, p, got, N);                            \
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, tx, enzyme_const,  \
                                N);                                          \
    bm_check_tangent(#f " forward", value_##f, p, v, N, t, grad);            \
  }

#endif
