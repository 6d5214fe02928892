/* Least-squares fitting as users write it: the model's parameters in a
 * struct (its shadow a struct of the same type), the data enzyme_const, a
 * residual buffer the caller owns (enzyme_dupnoneed), and a Heron square
 * root iterated until it converges (a data-dependent trip count). */
#include "both_modes.h"
typedef struct {
  double amp, rate, shift;
} model;
static const double ts[6] = {0.0, 0.4, 0.9, 1.5, 2.2, 3.0};
static const double ys[6] = {2.1, 1.6, 1.05, 0.8, 0.45, 0.3};
static double heron(double v) {
  double r = v > 1 ? v : 1;
  while (fabs(r * r - v) > 1e-14 * v) r = 0.5 * (r + v / r);
  return r;
}
static double fit(const model *m, const double *t, const double *y,
                  double *res, int n) {
  double ss = 0;
  for (int i = 0; i < n; i++) {
    res[i] = m->amp * exp(-m->rate * t[i]) + m->shift - y[i];
    ss += res[i] * res[i];
  }
  return heron(ss / n);
}
static long double value(const long double *p) {
  model m = {(double)p[0], (double)p[1], (double)p[2]};
  double res[6];
  return fit(&m, ts, ys, res, 6);
}
static long double run(const long double *p) {
  long double r = value(p);
  for (int i = 0; i < 3; i++) r += rc_seed_value(i) * p[i];
  return r;
}
int main(void) {
  model m = {2.0, 0.7, 0.2}, dm, tm = {0.5, -0.25, 1.0};
  double res[6], dres[6] = {0}, tres[6];
  long double p[3] = {2.0L, 0.7L, 0.2L}, got[3], grad[3], v[3] = {0.5L, -0.25L, 1.0L};
  dm.amp = rc_seed_value(0), dm.rate = rc_seed_value(1), dm.shift = rc_seed_value(2);
  __enzyme_autodiff((void *)fit, enzyme_dup, &m, &dm, enzyme_const, ts,
                    enzyme_const, ys, enzyme_dupnoneed, res, dres,
                    enzyme_const, 6);
  got[0] = dm.amp, got[1] = dm.rate, got[2] = dm.shift;
  for (int i = 0; i < 3; i++) grad[i] = got[i] - rc_seed_value(i);
  rc_check("fit gradient", run, p, got, 3);
  double t = __enzyme_fwddiff((void *)fit, enzyme_dup, &m, &tm, enzyme_const,
                              ts, enzyme_const, ys, enzyme_dup, res, tres,
                              enzyme_const, 6);
  bm_check_tangent("fit forward", value, p, v, 3, t, grad);
  return rc_result();
}
