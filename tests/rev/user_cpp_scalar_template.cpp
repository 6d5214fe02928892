// Templates over the scalar type: one Rosenbrock-plus-penalty template
// instantiated for float and for double, both differentiated in both modes.
#include <cmath>
#include "both_modes.h"
extern "C" float __enzyme_fwddiff_f(void *, ...) __asm__("__enzyme_fwddiff");
template <typename T> struct Penalty {
  T weight;
  T operator()(T v) const { return weight * v * v * v * v; }
};
template <typename T> static T rosen(T *x, int n) {
  Penalty<T> pen{T(0.01)};
  T s = T(0);
  for (int i = 0; i + 1 < n; i++) {
    T a = x[i + 1] - x[i] * x[i], b = T(1) - x[i];
    s += T(100) * a * a + b * b + pen(x[i]);
  }
  return s;
}
static double rosen_d(double *x, int n) { return rosen<double>(x, n); }
static float rosen_f(float *x, int n) { return rosen<float>(x, n); }
#define N 4
static const double x0[N] = {-1.2, 1.0, 0.8, 0.5};
static const double dir[N] = {0.5, -0.5, 1.0, 0.25};
BM_ARRAY_BOTH(rosen_d, N, x0, dir)
static long double value_f(const long double *p) {
  float x[N];
  for (int i = 0; i < N; i++) x[i] = (float)p[i];
  return rosen_f(x, N);
}
static long double run_f(const long double *p) {
  long double r = value_f(p);
  for (int i = 0; i < N; i++) r += rc_seed_value(i) * p[i];
  return r;
}
int main() {
  both_rosen_d();
  float x[N], dx[N], tx[N];
  long double p[N], got[N], grad[N], v[N];
  for (int i = 0; i < N; i++) x[i] = (float)x0[i], p[i] = x[i], tx[i] = (float)dir[i], v[i] = tx[i];
  rc_seedf(dx, N);
  __enzyme_autodiff((void *)rosen_f, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++) got[i] = dx[i], grad[i] = dx[i] - (float)rc_seed_value(i);
  rc_checkf("rosen<float> gradient", run_f, p, got, N);
  float t = __enzyme_fwddiff_f((void *)rosen_f, enzyme_dup, x, tx, enzyme_const, N);
  bm_check_tangent_tol("rosen<float> forward", value_f, p, v, N, t, grad, 2e-3L, 2e-3L);
  return rc_result();
}
