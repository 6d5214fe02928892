// Lambdas passed to a templated integrator: composite Simpson's rule over
// a lambda capturing the parameters by reference, and a fixed-step Euler
// integrator over a lambda capturing one by value.
#include <cmath>
#include "both_modes.h"
template <typename F> static double simpson(F f, double a, double b, int m) {
  double h = (b - a) / m, s = f(a) + f(b);
  for (int i = 1; i < m; i++) s += f(a + i * h) * (i % 2 ? 4 : 2);
  return s * h / 3;
}
template <typename F> static double euler(F rhs, double y, double t1, int steps) {
  double h = t1 / steps;
  for (int i = 0; i < steps; i++) y += h * rhs(i * h, y);
  return y;
}
static double model(double *x, int n) {
  (void)n;
  const double &amp = x[0], &freq = x[1];
  auto wave = [&](double t) { return amp * std::sin(freq * t) * std::exp(-0.1 * t); };
  double k = x[2];
  auto decay = [k](double t, double y) { return -k * y + std::cos(t); };
  return simpson(wave, 0.0, x[3], 16) + euler(decay, 1.0, 2.0, 40);
}
static const double x0[4] = {1.5, 2.0, 0.7, 3.0};
static const double dir[4] = {0.25, -0.5, 1.0, 0.5};
BM_ARRAY_BOTH(model, 4, x0, dir)
int main() {
  both_model();
  return rc_result();
}
