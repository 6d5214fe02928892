/* float and long double programs: a float kernel over an array (gradient
 * and tangent), a float scalar whose adjoint comes back as the request's
 * float result (enzyme_out), and a long double function of two scalars
 * whose adjoints come back as a struct of two long doubles. */
#include "both_modes.h"
float __enzyme_autodiff_f(void *, ...) __asm__("__enzyme_autodiff");
float __enzyme_fwddiff_f(void *, ...) __asm__("__enzyme_fwddiff");
typedef struct { long double a, b; } ld_pair;
ld_pair __enzyme_autodiff_ld(void *, ...) __asm__("__enzyme_autodiff");
long double __enzyme_fwddiff_ld(void *, ...) __asm__("__enzyme_fwddiff");

static float fkernel(float *x, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) s += sinf(x[i]) * expf(-0.25f * x[i]) + x[i] * x[i];
  return sqrtf(s);
}
static float fscalar(float a, float b) { return powf(a, 2.5f) * logf(b) + tanhf(a * b); }
static long double lfun(long double a, long double b) {
  return expl(a) * cosl(b) + a * a * sqrtl(b) + atan2l(a, b);
}

#define N 4
static const float fx0[N] = {0.5f, 1.25f, -0.75f, 2.0f};
static long double value_fk(const long double *p) {
  float x[N];
  for (int i = 0; i < N; i++) x[i] = (float)p[i];
  return fkernel(x, N);
}
static long double run_fk(const long double *p) {
  long double r = value_fk(p);
  for (int i = 0; i < N; i++) r += rc_seed_value(i) * p[i];
  return r;
}
static long double value_fs(const long double *p) { return fscalar((float)p[0], (float)p[1]); }
static long double value_ld(const long double *p) { return lfun(p[0], p[1]); }

int main(void) {
  float x[N], dx[N], tx[N];
  long double p[N], got[N], grad[N], v[N];
  for (int i = 0; i < N; i++) x[i] = fx0[i], p[i] = fx0[i], v[i] = tx[i] = 0.5f - 0.25f * i;
  rc_seedf(dx, N);
  __enzyme_autodiff((void *)fkernel, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++) got[i] = dx[i], grad[i] = dx[i] - (float)rc_seed_value(i);
  rc_checkf("float kernel gradient", run_fk, p, got, N);
  float t = __enzyme_fwddiff_f((void *)fkernel, enzyme_dup, x, tx, enzyme_const, N);
  bm_check_tangent_tol("float kernel forward", value_fk, p, v, N, t, grad, 2e-3L, 2e-3L);

  long double ps[2] = {1.5L, 2.0L}, gs[2];
  gs[0] = __enzyme_autodiff_f((void *)fscalar, 1.5f, enzyme_const, 2.0f);
  float tb = __enzyme_fwddiff_f((void *)fscalar, enzyme_const, 1.5f, 2.0f, 1.0f);
  long double e0[2] = {1, 0}, e1[2] = {0, 1};
  bm_check_tangent_tol("float scalar da (reverse)", value_fs, ps, e0, 2, gs[0], NULL, 2e-3L, 2e-3L);
  bm_check_tangent_tol("float scalar db (forward)", value_fs, ps, e1, 2, tb, NULL, 2e-3L, 2e-3L);

  long double pl[2] = {0.75L, 1.25L}, vl[2] = {0.5L, -2.0L}, gl[2];
  ld_pair g = __enzyme_autodiff_ld((void *)lfun, pl[0], pl[1]);
  gl[0] = g.a, gl[1] = g.b;
  long double tl = __enzyme_fwddiff_ld((void *)lfun, pl[0], vl[0], pl[1], vl[1]);
  bm_check_tangent_tol("long double da", value_ld, pl, e0, 2, g.a, NULL, 1e-9L, 1e-11L);
  bm_check_tangent_tol("long double db", value_ld, pl, e1, 2, g.b, NULL, 1e-9L, 1e-11L);
  bm_check_tangent_tol("long double forward", value_ld, pl, vl, 2, tl, gl, 1e-9L, 1e-11L);
  return rc_result();
}
