#define _GNU_SOURCE
#include "rev_check.h"
/* Math calls with out-parameters (sincos, modf, frexp) writing into
 * enzyme_const buffers that nothing reads back, as stores may
 * (const_scratch): taken without a derivative in both modes, the buffers
 * holding the primal's values afterwards. */
extern double __enzyme_fwddiff(void *, ...);
#define N 3
static double f(const double *x, double *sc, double *ip, int *ex, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    sincos(x[i], &sc[2 * i], &sc[2 * i + 1]);
    s += modf(x[i] * 2.5, &ip[i]) * x[i];
    s += frexp(x[i] * 3.0, &ex[i]);
  }
  return s;
}
/* the points keep 2.5 x and 3 x away from modf's and frexp's jumps */
static long double primal(const long double *p) {
  long double s = 0;
  for (int i = 0; i < N; i++) {
    long double y = 2.5L * p[i], z = 3.0L * p[i];
    s += (y - truncl(y)) * p[i];
    int e;
    s += frexpl(z, &e);
  }
  return s;
}
static long double run_f(const long double *p) {
  long double r = primal(p);
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * p[i]; /* x only read: its seed stays */
  return r;
}
int main(void) {
  double x[N] = {0.3, -1.1, 0.7}, dx[N], sc[2 * N], ip[N];
  int ex[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  rc_seed(dx, N);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, sc,
                    enzyme_const, ip, enzyme_const, ex, enzyme_const, N);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("const_math_out reverse", run_f, p, got, N);
  double t[N] = {1, 0.5, -0.25}, d;
  for (int i = 0; i < N; i++)
    sc[i] = sc[N + i] = ip[i] = -7;
  d = __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, sc,
                       enzyme_const, ip, enzyme_const, ex, enzyme_const, N);
  long double q[N], h = 1e-5L;
  for (int i = 0; i < N; i++)
    q[i] = x[i] + h * t[i];
  long double up = primal(q);
  for (int i = 0; i < N; i++)
    q[i] = x[i] - h * t[i];
  rc_expect("const_math_out forward", d, (up - primal(q)) / (2 * h), 1e-6L);
  for (int i = 0; i < N; i++) {
    int e;
    rc_expect("sin out", sc[2 * i], sin(x[i]), 0);
    rc_expect("cos out", sc[2 * i + 1], cos(x[i]), 0);
    rc_expect("modf out", ip[i], trunc(x[i] * 2.5), 0);
    frexp(x[i] * 3.0, &e);
    rc_expect("frexp out", ex[i], e, 0);
  }
  return rc_result();
}
