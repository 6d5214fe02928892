#include <string.h>
#include "rev_check.h"
/* Scratch and output buffers passed enzyme_const (Julia's `Const(buf)`,
 * a C caller's workspace): the function stores active values there, and
 * nothing it runs reads them back, so they carry no derivative the
 * gradient depends on and Enzyme takes the request.  Each buffer is
 * reached another way: stored into directly, through a GEP in a loop,
 * by memcpy from active memory, by memset, and through a local slot at
 * -O0.  The buffers must also hold the primal's values afterwards. */
#define N 4
static double f(const double *x, double *log_out, double *copy_out, int n) {
  double s = 0;
  memset(copy_out, 0, 2 * sizeof *copy_out);
  for (int i = 0; i < n; i++) {
    double t = sin(x[i]) * x[(i + 1) % n];
    log_out[i] = t * t; /* a per-term log, never read back */
    s += t;
  }
  memcpy(copy_out + 2, x, 2 * sizeof *x);
  return s * s + x[0];
}
static long double run_f(const long double *p) {
  long double s = 0;
  for (int i = 0; i < N; i++)
    s += sinl(p[i]) * p[(i + 1) % N];
  /* x is only read: x_after = x, the seeds stay in the shadow */
  long double r = s * s + p[0];
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * p[i];
  return r;
}
int main(void) {
  double x[N] = {0.3, -1.1, 0.8, 1.7}, dx[N], log_out[N], copy_out[4];
  rc_seed(dx, N);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, log_out,
                    enzyme_const, copy_out, enzyme_const, N);
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i], got[i] = dx[i];
  rc_check("const_scratch", run_f, p, got, N);
  /* the primal ran: the buffers hold its values */
  for (int i = 0; i < N; i++) {
    double t = sin(x[i]) * x[(i + 1) % N];
    rc_checks++;
    if (log_out[i] != t * t) {
      rc_failures++;
      printf("MISMATCH log_out[%d] = %g, want %g\n", i, log_out[i], t * t);
    }
  }
  rc_checks++;
  if (copy_out[0] != 0 || copy_out[1] != 0 || copy_out[2] != x[0] ||
      copy_out[3] != x[1]) {
    rc_failures++;
    printf("MISMATCH copy_out\n");
  }
  return rc_result();
}
