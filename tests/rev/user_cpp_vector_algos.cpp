// std::vector built with push_back from the inputs, std::transform,
// std::accumulate and std::inner_product over it, range-for loops.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>
#include "both_modes.h"
static double algos(double *x, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; i++) v.push_back(x[i] * 0.5 + 1.0);
  std::vector<double> w(v.size());
  std::transform(v.begin(), v.end(), w.begin(), [](double a) { return std::log(a * a + 1); });
  double sum = std::accumulate(w.begin(), w.end(), 0.0);
  double dot = std::inner_product(v.begin(), v.end(), w.begin(), 0.0);
  double sq = 0;
  for (double a : v) sq += a * a;
  return sum * dot + std::sqrt(sq);
}
static const double x0[6] = {0.2, -1.4, 0.9, 2.5, -0.3, 1.1};
static const double dir[6] = {1.0, 0.5, -0.5, 0.25, 2.0, -1.0};
BM_ARRAY_BOTH(algos, 6, x0, dir)
int main() {
  both_algos();
  return rc_result();
}
