#include "rev_check.h"
/* void f with duplicated pointers only: gradients go to the shadows */
static void f(const double *in, double *out, int n) {
  for (int i = 0; i < n; i++)
    out[i] = in[i] * in[(i + 1) % n] + out[i] * 0.5;
}
#define N 4
static long double run(const long double *p) {
  double in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = (double)p[i], out[i] = (double)p[N + i];
  f(in, out, N);
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * (long double)in[i] + rc_seed_value(N + i) * (long double)out[i];
  return r;
}
int main(void) {
  double in[N] = {0.5, -1, 1.5, 2}, out[N] = {0.1, 0.2, 0.3, 0.4}, d[2 * N];
  long double p[2 * N], got[2 * N];
  for (int i = 0; i < N; i++)
    p[i] = in[i], p[N + i] = out[i];
  rc_seed(d, 2 * N);
  __enzyme_autodiff((void *)f, enzyme_dup, in, d, enzyme_dup, out, d + N,
                    enzyme_const, N);
  for (int i = 0; i < 2 * N; i++)
    got[i] = d[i];
  rc_check("void_outparam", run, p, got, 2 * N);
  return rc_result();
}
