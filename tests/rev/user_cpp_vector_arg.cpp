// A std::vector<double> passed by reference and duplicated with a shadow
// vector of the same size (how Enzyme's C++ users pass one), read with
// range-for and operator[], and a std::vector<int> of indices enzyme_const.
#include <cmath>
#include <vector>
#include "both_modes.h"
static double gather_energy(const std::vector<double> &x, const std::vector<int> &idx) {
  double e = 0;
  for (double v : x) e += std::cos(v);
  for (size_t k = 0; k + 1 < idx.size(); k++) {
    double d = x[idx[k + 1]] - x[idx[k]];
    e += d * d * (k + 1);
  }
  return e;
}
#define N 5
static const std::vector<int> order = {4, 0, 3, 1, 2, 0};
static long double value(const long double *p) {
  std::vector<double> x(N);
  for (int i = 0; i < N; i++) x[i] = (double)p[i];
  return gather_energy(x, order);
}
static long double run(const long double *p) {
  long double r = value(p);
  for (int i = 0; i < N; i++) r += rc_seed_value(i) * p[i];
  return r;
}
int main() {
  std::vector<double> x = {0.3, -1.1, 0.8, 2.0, -0.4}, dx(N), tx(N);
  long double p[N], got[N], grad[N], v[N];
  for (int i = 0; i < N; i++) p[i] = x[i], dx[i] = rc_seed_value(i), v[i] = tx[i] = 0.5 - 0.3 * i;
  __enzyme_autodiff((void *)gather_energy, enzyme_dup, &x, &dx, enzyme_const, &order);
  for (int i = 0; i < N; i++) got[i] = dx[i], grad[i] = dx[i] - rc_seed_value(i);
  rc_check("vector argument gradient", run, p, got, N);
  double t = __enzyme_fwddiff((void *)gather_energy, enzyme_dup, &x, &tx, enzyme_const, &order);
  bm_check_tangent("vector argument forward", value, p, v, N, t, grad);
  return rc_result();
}
