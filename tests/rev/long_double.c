#define RC_OWN_PROTOTYPE
#include <math.h>
#include "rev_check.h"
void __enzyme_autodiff(void *, ...);
static long double f(long double *x, int n) {
  long double s = 0;
  for (int i = 0; i < n; i++)
    s += sinl(x[i]) * expl(x[i] * 0.5L) + x[i] * x[i] / (1 + x[i] * x[i]);
  return s;
}
#define N 3
static long double run(const long double *p) {
  long double x[N];
  for (int i = 0; i < N; i++)
    x[i] = p[i];
  long double r = f(x, N);
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * x[i];
  return r;
}
int main(void) {
  long double x[N] = {0.5L, -1, 1.5L}, dx[N], p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  rc_seedl(dx, N);
  __enzyme_autodiff((void *)f, x, dx, N);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check_tol("long_double", run, p, got, N, 1e-9L, 1e-11L);
  return rc_result();
}
