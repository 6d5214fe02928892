/* Math calls with out-parameters and integer arguments: frexp, modf,
 * sincos (double and float), ldexp, scalbn.  The points stay away from
 * the jumps of frexp's mantissa and modf's integral part. */
#define _GNU_SOURCE
#include "rev_check.h"
static double frexp_modf(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    int e;
    double m = frexp(x[i] * 3.0, &e);
    double ip;
    double fr = modf(x[i] * 2.5, &ip);
    double sn, cs;
    sincos(x[i], &sn, &cs);
    s += m * m * (e + 1) + fr * fr + ip * 0.25 + sn * cs * x[i] +
         ldexp(x[i], 3) * scalbn(x[i], -2);
  }
  return s;
}
static float frexp_modf_f(float *x, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) {
    int e;
    float m = frexpf(x[i] * 3.0f, &e);
    float ip;
    float fr = modff(x[i] * 2.5f, &ip);
    float sn, cs;
    sincosf(x[i], &sn, &cs);
    s += m * (float)e + fr * x[i] + sn * sn + cs * ip;
  }
  return s;
}
RC_ARRAY_RUN(run_d, frexp_modf, 5)
static long double run_f(const long double *p) {
  float x[5];
  for (int i = 0; i < 5; i++)
    x[i] = (float)p[i];
  long double r = frexp_modf_f(x, 5);
  for (int i = 0; i < 5; i++)
    r += rc_seed_value(i) * (long double)x[i];
  return r;
}
int main(void) {
  double x0[5] = {0.5, -1.0, 1.7, 0.3, 2.2}, x[5], dx[5];
  float xf[5], dxf[5];
  long double p[5], got[5];
  for (int i = 0; i < 5; i++)
    x[i] = x0[i], xf[i] = (float)x0[i], p[i] = x0[i];
  rc_seed(dx, 5);
  rc_seedf(dxf, 5);
  __enzyme_autodiff((void *)frexp_modf, enzyme_dup, x, dx, enzyme_const, 5);
  for (int i = 0; i < 5; i++)
    got[i] = dx[i];
  rc_check("frexp_modf", run_d, p, got, 5);
  __enzyme_autodiff((void *)frexp_modf_f, enzyme_dup, xf, dxf, enzyme_const, 5);
  for (int i = 0; i < 5; i++)
    got[i] = dxf[i], p[i] = xf[i];
  rc_checkf("frexp_modf_f", run_f, p, got, 5);
  return rc_result();
}
