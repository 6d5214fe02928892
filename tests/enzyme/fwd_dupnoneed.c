/* enzyme_dupnoneed in forward mode, as Enzyme's Sparse programs use it:
 * the output buffer's primal is (double *)0x1, not memory, and only its
 * shadow is real.  The derivative must not touch the primal buffer: its
 * stores (through a GEP, a pointer stepped in a loop, a callee's
 * parameter), its memset and memcpy, and its `+=` (a load whose primal
 * value only feeds the dropped store) are left out, while their tangents
 * go into the shadow.  Every shadow entry and the returned tangent are
 * checked against central finite differences in long double along dx; the
 * shadow starts nonzero, so the tangent of `+=` adds to what it held. */
#include <math.h>
#include <string.h>

#include "enzyme_compat.h"

#define N 4
/* out: [0, N) products, N an accumulator, N+1..N+2 zeroed, N+3..N+4 a
 * copy of x[0..1], N+5..N+7 stepped through by a pointer, N+8 the
 * callee's */
#define NOUT (N + 9)

__attribute__((noinline)) static void accumulate(double *out, double v,
                                                 int k) {
  out[k] += v * v;
}

static double f(const double *x, double *out, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    out[i] = x[i] * x[(i + 1) % n];
    s += sin(x[i]);
  }
  out[n] += cos(x[0]) * x[1];
  memset(out + n + 1, 0, 2 * sizeof *out);
  memcpy(out + n + 3, x, 2 * sizeof *x);
  double t = x[2];
  for (double *p = out + n + 5; p != out + n + 8; p++) {
    *p = t;
    t = t * x[3];
  }
  accumulate(out, x[1] + x[3], n + 8);
  return s * x[0];
}

/* f in long double, writing out from zero where f adds (the seed of the
 * accumulated entries drops out of the difference) */
static long double f_long(const long double *x, long double *out) {
  long double s = 0;
  for (int i = 0; i < NOUT; i++)
    out[i] = 0;
  for (int i = 0; i < N; i++) {
    out[i] = x[i] * x[(i + 1) % N];
    s += sinl(x[i]);
  }
  out[N] += cosl(x[0]) * x[1];
  out[N + 3] = x[0], out[N + 4] = x[1];
  long double t = x[2];
  for (int k = 5; k < 8; k++) {
    out[N + k] = t;
    t = t * x[3];
  }
  out[N + 8] += (x[1] + x[3]) * (x[1] + x[3]);
  return s * x[0];
}

int main(void) {
  double x[N] = {0.3, -1.1, 0.8, 1.7}, dx[N] = {1.0, -0.5, 0.25, 2.0};
  double dout[NOUT];
  for (int i = 0; i < NOUT; i++)
    dout[i] = 0.5 + 0.125 * i; /* what the shadow held before */
  double got = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dupnoneed,
                                (double *)0x1, dout, enzyme_const, N);

  const long double h = 1e-6L;
  long double up[N], down[N], out_up[NOUT], out_down[NOUT];
  for (int i = 0; i < N; i++)
    up[i] = x[i] + h * dx[i], down[i] = x[i] - h * dx[i];
  long double r_up = f_long(up, out_up), r_down = f_long(down, out_down);
  long double want = (r_up - r_down) / (2 * h);
  APPROX_EQ(got, (double)want, 1e-7 * (1 + fabs((double)want)));
  for (int i = 0; i < NOUT; i++) {
    long double d = (out_up[i] - out_down[i]) / (2 * h);
    /* stores and the memset overwrite the shadow; += adds to it */
    int adds = i == N || i == N + 8;
    long double w = adds ? 0.5 + 0.125 * i + d : d;
    APPROX_EQ(dout[i], (double)w, 1e-7 * (1 + fabs((double)w)));
  }
  /* the inputs and their tangents are only read */
  TEST_EQ(x[1], -1.1);
  TEST_EQ(dx[3], 2.0);
  return enzyme_compat_result();
}
