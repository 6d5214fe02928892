// std::sort of active values (a std::vector copy of the inputs, sorted by
// a lambda comparing them), then a trimmed, rank-weighted mean.
#include <algorithm>
#include <cmath>
#include <vector>
#include "both_modes.h"
static double trimmed(double *x, int n) {
  std::vector<double> v(x, x + n);
  for (double &a : v) a = a * a * 0.5 + std::sin(a);
  std::sort(v.begin(), v.end(), [](double a, double b) { return a > b; });
  double s = 0;
  for (int i = 1; i + 1 < n; i++) s += (i + 1) * v[i];
  return s / (n - 2) + v.front() * v.back();
}
static const double x0[7] = {0.3, -1.2, 2.4, 0.9, -0.5, 1.7, 3.1};
static const double dir[7] = {1.0, -0.5, 0.25, 0.75, -1.25, 0.5, 0.3};
BM_ARRAY_BOTH(trimmed, 7, x0, dir)
int main() {
  both_trimmed();
  return rc_result();
}
