#include <math.h>
#include "rev_check.h"
/* a scalar enzyme_out and a duplicated array in one request */
static double f(double k, double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += sin(k * x[i]);
    x[i] *= k;
  }
  return s * k;
}
#define N 3
static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[1 + i];
  long double r = f((double)p[0], x, N);
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * (long double)x[i];
  return r;
}
int main(void) {
  double x[N] = {0.5, -1, 1.5}, dx[N];
  long double p[1 + N] = {0.8, 0.5, -1, 1.5}, got[1 + N];
  rc_seed(dx, N);
  got[0] = __enzyme_autodiff((void *)f, enzyme_out, 0.8, enzyme_dup, x, dx,
                             enzyme_const, N);
  for (int i = 0; i < N; i++)
    got[1 + i] = dx[i];
  rc_check("mixed_out_dup", run, p, got, 1 + N);
  return rc_result();
}
