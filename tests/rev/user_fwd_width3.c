/* __enzyme_fwddiff with enzyme_width 3: the three columns of a Jacobian of
 * a 3 -> 2 map (written through an output array) in one request, a struct
 * of three tangents back for its scalar result, each lane checked against
 * finite differences and against the gradient. */
#include "both_modes.h"
typedef struct { double d[3]; } tangents3;
tangents3 __enzyme_fwddiff_w3(void *, ...) __asm__("__enzyme_fwddiff");
static double spherical(const double *x, double *out, int n) {
  (void)n;
  double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  out[0] = acos(x[2] / r);
  out[1] = atan2(x[1], x[0]);
  return r * out[0] + out[1] * out[1];
}
#define N 3
static int component; /* -1: the result; 0, 1: out[k] */
static long double value(const long double *p) {
  double x[N] = {(double)p[0], (double)p[1], (double)p[2]}, out[2];
  double r = spherical(x, out, N);
  return component < 0 ? r : out[component];
}
static long double run(const long double *p) {
  double x[N] = {(double)p[0], (double)p[1], (double)p[2]}, out[2];
  long double r = spherical(x, out, N);
  for (int i = 0; i < N; i++) r += rc_seed_value(i) * p[i];
  return r;
}
int main(void) {
  double x[N] = {0.6, -0.8, 1.1}, out[2];
  long double p[N] = {0.6L, -0.8L, 1.1L}, grad[N], got[N];
  /* the gradient of the scalar result (out's adjoints zero) */
  double dx[N], dout[2] = {0, 0};
  rc_seed(dx, N);
  __enzyme_autodiff((void *)spherical, enzyme_dup, x, dx, enzyme_dupnoneed, out, dout,
                    enzyme_const, N);
  for (int i = 0; i < N; i++) got[i] = dx[i], grad[i] = dx[i] - rc_seed_value(i);
  rc_check("spherical gradient", run, p, got, N);
  double d0[N] = {1, 0, 0}, d1[N] = {0, 1, 0}, d2[N] = {0.5, 0.25, -1};
  double o0[2], o1[2], o2[2];
  tangents3 t = __enzyme_fwddiff_w3((void *)spherical, enzyme_width, 3, enzyme_dup, x,
                                    d0, d1, d2, enzyme_dup, out, o0, o1, o2,
                                    enzyme_const, N);
  const double *dirs[3] = {d0, d1, d2}, *outs[3] = {o0, o1, o2};
  for (int lane = 0; lane < 3; lane++) {
    long double v[N] = {dirs[lane][0], dirs[lane][1], dirs[lane][2]};
    component = -1;
    bm_check_tangent("width 3 result", value, p, v, N, t.d[lane], grad);
    for (component = 0; component < 2; component++)
      bm_check_tangent("width 3 out", value, p, v, N, outs[lane][component], NULL);
  }
  return rc_result();
}
