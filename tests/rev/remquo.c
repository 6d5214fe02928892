/* remquo, remquof and remquol in reverse: r = x - n y with n = rint(x/y),
 * so x' += r' and y' -= n r' (remainder's partials), and the quotient's
 * low bits written through the int pointer carry no derivative; the
 * augmented pass keeps the primal's write, which the function reads back
 * (r * q) and the caller finds afterwards (into a duplicated array, a
 * constant one, and a local).  The points keep x/y away from the
 * half-integers where n jumps, with |n| < 8 (the quotient bits are n). */
#include "rev_check.h"
#define NP 4
#define N (2 * NP)

static double remquo_sum(double *x, int *q, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double r = remquo(x[2 * i], x[2 * i + 1], &q[i]);
    s += r * r + r * q[i];
  }
  return s;
}
static double remquo_local(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    int q;
    double r = remquo(x[2 * i] * 1.5, x[2 * i + 1], &q);
    s += r * (q + 0.5) * x[2 * i + 1];
  }
  return s;
}
static float remquof_sum(float *x, int *q, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) {
    float r = remquof(x[2 * i], x[2 * i + 1], &q[i]);
    s += r * r + r * (float)q[i];
  }
  return s;
}
static long double remquol_sum(long double *x, int *q, int n) {
  long double s = 0;
  for (int i = 0; i < n; i++) {
    long double r = remquol(x[2 * i], x[2 * i + 1], &q[i]);
    s += r * r + r * q[i];
  }
  return s;
}

static long double seeded(const long double *p, long double r) {
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * p[i]; /* x only read: its seed stays */
  return r;
}
static long double run_d(const long double *p) {
  double x[N];
  int q[NP];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  return seeded(p, remquo_sum(x, q, NP));
}
static long double run_local(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  return seeded(p, remquo_local(x, NP));
}
static long double run_f(const long double *p) {
  float x[N];
  int q[NP];
  for (int i = 0; i < N; i++)
    x[i] = (float)p[i];
  return seeded(p, remquof_sum(x, q, NP));
}
static long double run_l(const long double *p) {
  long double x[N];
  int q[NP];
  for (int i = 0; i < N; i++)
    x[i] = p[i];
  return seeded(p, remquol_sum(x, q, NP));
}

/* The quotients the gradient's primal wrote, against remquo's own. */
static void check_quotients(const char *name, const double *x, const int *q) {
  for (int i = 0; i < NP; i++) {
    int want;
    (void)remquo(x[2 * i], x[2 * i + 1], &want);
    rc_expect(name, q[i], want, 0);
  }
}

int main(void) {
  const double x0[N] = {7.1, 2.1, -9.7, 2.5, 5.0, -1.7, 2.9, 1.1};
  double x[N], dx[N];
  float xf[N], dxf[N];
  long double xl[N], dxl[N], p[N], got[N];
  int q[NP], dq[NP];
  for (int i = 0; i < N; i++)
    x[i] = x0[i], p[i] = x0[i];

  /* the quotients into a duplicated array */
  rc_seed(dx, N);
  for (int i = 0; i < NP; i++)
    q[i] = dq[i] = -100;
  __enzyme_autodiff((void *)remquo_sum, enzyme_dup, x, dx, enzyme_dup, q, dq,
                    enzyme_const, NP);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("remquo, duplicated quotients", run_d, p, got, N);
  check_quotients("remquo, duplicated quotients' values", x0, q);

  /* ... into a constant one */
  rc_seed(dx, N);
  for (int i = 0; i < NP; i++)
    q[i] = -100;
  __enzyme_autodiff((void *)remquo_sum, enzyme_dup, x, dx, enzyme_const, q,
                    enzyme_const, NP);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("remquo, constant quotients", run_d, p, got, N);
  check_quotients("remquo, constant quotients' values", x0, q);

  /* ... into a local */
  rc_seed(dx, N);
  __enzyme_autodiff((void *)remquo_local, enzyme_dup, x, dx, enzyme_const, NP);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("remquo, local quotient", run_local, p, got, N);

  for (int i = 0; i < N; i++)
    xf[i] = (float)x0[i], p[i] = xf[i];
  rc_seedf(dxf, N);
  __enzyme_autodiff((void *)remquof_sum, enzyme_dup, xf, dxf, enzyme_dup, q,
                    dq, enzyme_const, NP);
  for (int i = 0; i < N; i++)
    got[i] = dxf[i];
  rc_checkf("remquof", run_f, p, got, N);
  check_quotients("remquof's quotients", x0, q);

  for (int i = 0; i < N; i++)
    xl[i] = x0[i], p[i] = x0[i];
  rc_seedl(dxl, N);
  __enzyme_autodiff((void *)remquol_sum, enzyme_dup, xl, dxl, enzyme_dup, q,
                    dq, enzyme_const, NP);
  for (int i = 0; i < N; i++)
    got[i] = dxl[i];
  rc_check("remquol", run_l, p, got, N);
  check_quotients("remquol's quotients", x0, q);
  return rc_result();
}
