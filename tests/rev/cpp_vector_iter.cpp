// C++: std::vector<double> filled with push_back, walked with
// iterators (std::accumulate over begin/end, a second vector built from
// rbegin/rend, so std::reverse_iterator's copies) and operator[].
#include <cmath>
#include <numeric>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
template <typename T, typename... A> T __enzyme_autodiff(void *, A...);

static double model(double *x, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; i++)
    v.push_back(x[i] * x[i] + std::sin(x[i]));
  double s = std::accumulate(v.begin(), v.end(), 0.0,
                             [](double a, double b) { return a + b * b; });
  std::vector<double> w(v.rbegin(), v.rend());
  for (size_t i = 1; i < w.size(); i++)
    w[i] += 0.5 * w[i - 1];
  return s + w.back() * x[0];
}
RC_ARRAY_RUN(run_model, model, 6)
int main() {
  double x[6] = {0.1, -0.4, 1.3, 0.8, -2.0, 0.25}, dx[6];
  long double p[6], got[6];
  for (int i = 0; i < 6; i++)
    p[i] = x[i];
  rc_seed(dx, 6);
  __enzyme_autodiff<void>((void *)model, enzyme_dup, x, dx, enzyme_const, 6);
  for (int i = 0; i < 6; i++)
    got[i] = dx[i];
  rc_check("cpp_vector_iter", run_model, p, got, 6);
  return rc_result();
}
