// C++: std::vector<double> filled with push_back, walked with
// iterators (std::accumulate over begin/end, a second vector built from
// rbegin/rend, so std::reverse_iterator's copies) and operator[].
#include <cmath>
#include <numeric>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

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
RC_ARRAY_TEST_AS("cpp_vector_iter", RC_MARKED, model, 6,
                 0.1, -0.4, 1.3, 0.8, -2.0, 0.25)
