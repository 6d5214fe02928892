#define RC_OWN_PROTOTYPE
#include <math.h>
#include "rev_check.h"
void __enzyme_autodiff(void *, ...);
static float f(float *x, int n) {
  float s = 0;
  for (int i = 0; i < n; i++)
    s += sinf(x[i]) * x[i] + sqrtf(x[i] * x[i] + 1.0f) + expf(0.1f * x[i]);
  return s;
}
#define N 4
static long double run(const long double *p) {
  float x[N];
  for (int i = 0; i < N; i++)
    x[i] = (float)p[i];
  long double r = f(x, N);
  for (int i = 0; i < N; i++)
    r += (float)rc_seed_value(i) * (long double)x[i];
  return r;
}
int main(void) {
  float x[N] = {0.5f, -1, 1.5f, 2}, dx[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  rc_seedf(dx, N);
  __enzyme_autodiff((void *)f, x, dx, N);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_checkf("float_kernel", run, p, got, N);
  return rc_result();
}
