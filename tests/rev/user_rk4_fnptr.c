/* A Runge-Kutta integrator that takes its right-hand side as a function
 * pointer, passed to the request as enzyme_const (Lotka-Volterra with
 * active parameters and initial state): the loss is the final state's. */
#include "both_modes.h"
typedef void (*rhs_fn)(const double *y, const double *theta, double *dy);
static void lotka(const double *y, const double *theta, double *dy) {
  dy[0] = theta[0] * y[0] - theta[1] * y[0] * y[1];
  dy[1] = theta[2] * y[0] * y[1] - theta[3] * y[1];
}
static void rk4(rhs_fn f, double *y, const double *theta, double h) {
  double k1[2], k2[2], k3[2], k4[2], t[2];
  f(y, theta, k1);
  for (int i = 0; i < 2; i++) t[i] = y[i] + 0.5 * h * k1[i];
  f(t, theta, k2);
  for (int i = 0; i < 2; i++) t[i] = y[i] + 0.5 * h * k2[i];
  f(t, theta, k3);
  for (int i = 0; i < 2; i++) t[i] = y[i] + h * k3[i];
  f(t, theta, k4);
  for (int i = 0; i < 2; i++)
    y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}
/* p = {y0, y1, theta0..3} */
static double simulate(rhs_fn f, const double *p, int steps) {
  double y[2] = {p[0], p[1]};
  for (int s = 0; s < steps; s++) rk4(f, y, p + 2, 0.05);
  return y[0] * y[0] + 0.5 * y[1];
}
#define N 6
static long double value(const long double *q) {
  double p[N];
  for (int i = 0; i < N; i++) p[i] = (double)q[i];
  return simulate(lotka, p, 20);
}
static long double run(const long double *q) {
  long double r = value(q);
  for (int i = 0; i < N; i++) r += rc_seed_value(i) * q[i];
  return r;
}
int main(void) {
  double p[N] = {1.0, 0.5, 1.1, 0.4, 0.1, 0.4}, dp[N], tp[N];
  long double q[N], got[N], grad[N], v[N];
  for (int i = 0; i < N; i++) q[i] = p[i], v[i] = tp[i] = 0.3 - 0.15 * i;
  rc_seed(dp, N);
  __enzyme_autodiff((void *)simulate, enzyme_const, (void *)lotka,
                    enzyme_dup, p, dp, enzyme_const, 20);
  for (int i = 0; i < N; i++) got[i] = dp[i], grad[i] = dp[i] - rc_seed_value(i);
  rc_check("rk4 gradient", run, q, got, N);
  double t = __enzyme_fwddiff((void *)simulate, enzyme_const, (void *)lotka,
                              enzyme_dup, p, tp, enzyme_const, 20);
  bm_check_tangent("rk4 forward", value, q, v, N, t, grad);
  return rc_result();
}
