#include <stdlib.h>
#include "rev_check.h"
/* Helpers write active values through a mutable global pointer that the
 * differentiated function itself points at its output buffer (duplicated)
 * or at a local malloc: the global's shadow follows (reverse and forward
 * mode).  A global the program set outside the request: err_global_unset. */
extern double __enzyme_fwddiff(void *, ...);
#define N 4
static double *g;
__attribute__((noinline)) static void put(int i, double v) { g[i] = v; }
__attribute__((noinline)) static double sum(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * (i + 1);
  return s;
}
static double f(double *x, double *out, int n) {
  g = out;
  for (int i = 0; i < n; i++)
    put(i, x[i] * x[i]);
  return sum(out, n);
}
static double f_local(double *x, int n) {
  double *tmp = malloc(n * sizeof *tmp);
  g = tmp;
  for (int i = 0; i < n; i++)
    put(i, sin(x[i]) * x[(i + 1) % n]);
  double r = sum(tmp, n);
  free(tmp);
  return r;
}
/* x only read (its seed stays), out overwritten (its seed consumed as
 * the adjoint of its final value x_i^2) */
static long double run_f(const long double *p) {
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += p[i] * p[i] * ((i + 1) + rc_seed_value(i)) + rc_seed_value(i) * p[i];
  return r;
}
static long double run_local(const long double *p) {
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += sinl(p[i]) * p[(i + 1) % N] * (i + 1) + rc_seed_value(i) * p[i];
  return r;
}
/* the results themselves, for forward mode's central difference */
static long double primal_f(const long double *p) {
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += p[i] * p[i] * (i + 1);
  return r;
}
static long double primal_local(const long double *p) {
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += sinl(p[i]) * p[(i + 1) % N] * (i + 1);
  return r;
}
static long double tangent_of(long double (*run)(const long double *),
                              const double *x, const double *t) {
  long double p[N], h = 1e-4L, f[2];
  for (int s = 0; s < 2; s++) {
    for (int i = 0; i < N; i++)
      p[i] = x[i] + (s ? h : -h) * t[i];
    f[s] = run(p);
  }
  return (f[1] - f[0]) / (2 * h);
}
int main(void) {
  double x[N] = {0.3, -1.1, 0.8, 1.7}, dx[N], out[N], dout[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  rc_seed(dx, N);
  rc_seed(dout, N);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, out, dout,
                    enzyme_const, N);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("global_pointer_writes out", run_f, p, got, N);
  for (int i = 0; i < N; i++)
    rc_expect("dout consumed", dout[i], 0, 0);
  rc_seed(dx, N);
  __enzyme_autodiff((void *)f_local, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("global_pointer_writes local", run_local, p, got, N);
  double t[N] = {1, 0.5, -0.25, 2};
  double d = __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_dup, out,
                              dout, enzyme_const, N);
  rc_expect("forward out", d, tangent_of(primal_f, x, t), 1e-6L);
  d = __enzyme_fwddiff((void *)f_local, enzyme_dup, x, t, enzyme_const, N);
  rc_expect("forward local", d, tangent_of(primal_local, x, t), 1e-6L);
  return rc_result();
}
