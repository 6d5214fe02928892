/*
 * std::vector grown by push_back, then a second one filled by
 * std::transform with a lambda, inside the differentiated function.  At
 * -O2/-O3 the growth paths and the transform loop form a dense web of
 * pointer PHIs and loads; activity analysis must settle it as a fixed
 * point (it once recursed without end there).
 */
#include <algorithm>
#include <vector>

#include "enzyme_compat.h"

double vector_model(double x, int n) {
  std::vector<double> a;
  for (int i = 0; i < n; i++)
    a.push_back(x * (i + 1));
  std::vector<double> b(a.size());
  std::transform(a.begin(), a.end(), b.begin(),
                 [x](double v) { return v * v + x; });
  double s = 0.0;
  for (double v : b)
    s += v;
  return s;
}

int main() {
  for (int n = 1; n <= 20; n += 7) {
    double x = 0.5;
    /* s = sum_i (x (i+1))^2 + n x;  ds/dx = 2 x sum (i+1)^2 + n */
    double sq = 0.0;
    for (int i = 1; i <= n; i++)
      sq += (double)i * i;
    double d = __enzyme_fwddiff((void *)vector_model, enzyme_dup, x, 1.0,
                                enzyme_const, n);
    APPROX_EQ(d, 2.0 * x * sq + n, 1e-9 * (1 + sq));
  }
  return enzyme_compat_result();
}
