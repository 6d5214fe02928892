/* Forward mode's side of tests/rev/const_scratch.c: scratch and output
 * buffers passed enzyme_const (Julia's `autodiff(Forward, f,
 * Duplicated(x, dx), Const(buf))`) receive active values, and nothing the
 * function runs reads them back, so their values carry no tangent anything
 * depends on and the request is taken, as Enzyme takes it.  The buffers
 * are reached by a store through a GEP in a loop, by memset, by memcpy
 * from active memory, and through a local slot at -O0.  The tangent is
 * checked against a central finite difference in long double, and the
 * buffers must hold the primal's values afterwards. */
#include <math.h>
#include <string.h>

#include "enzyme_compat.h"

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
static long double f_long(const long double *p) {
  long double s = 0;
  for (int i = 0; i < N; i++)
    s += sinl(p[i]) * p[(i + 1) % N];
  return s * s + p[0];
}
int main(void) {
  double x[N] = {0.3, -1.1, 0.8, 1.7}, dx[N] = {1.0, -0.5, 0.25, 2.0};
  double log_out[N] = {-1, -1, -1, -1}, copy_out[4] = {-1, -1, -1, -1};
  double got = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const,
                                log_out, enzyme_const, copy_out,
                                enzyme_const, N);
  /* the directional derivative along dx, central difference */
  const long double h = 1e-6L;
  long double up[N], down[N];
  for (int i = 0; i < N; i++)
    up[i] = x[i] + h * dx[i], down[i] = x[i] - h * dx[i];
  long double want = (f_long(up) - f_long(down)) / (2 * h);
  APPROX_EQ(got, (double)want, 1e-7 * (1 + fabs((double)want)));
  /* the primal ran: the buffers hold its values */
  for (int i = 0; i < N; i++) {
    double t = sin(x[i]) * x[(i + 1) % N];
    APPROX_EQ(log_out[i], t * t, 1e-15);
  }
  TEST_EQ(copy_out[0], 0.0);
  TEST_EQ(copy_out[1], 0.0);
  TEST_EQ(copy_out[2], x[0]);
  TEST_EQ(copy_out[3], x[1]);
  /* the inputs and their tangents are only read */
  TEST_EQ(x[0], 0.3);
  TEST_EQ(dx[3], 2.0);
  return enzyme_compat_result();
}
