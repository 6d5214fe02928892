// C++: a small matrix class over a two-dimensional member array, read and
// written through at(i, j) (both indices variable), returned by value from
// a product and assigned, as a power's trace computes it.
#include <cmath>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

template <int N> struct mat {
  double d[N][N];
  double &at(int i, int j) { return d[i][j]; }
  double at(int i, int j) const { return d[i][j]; }
};
template <int N> static mat<N> mul(const mat<N> &a, const mat<N> &b) {
  mat<N> r;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < N; k++)
        s += a.at(i, k) * b.at(k, j);
      r.at(i, j) = s;
    }
  return r;
}
static double trace_power(double *x, int n) {
  (void)n;
  mat<3> m;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      m.at(i, j) = x[3 * i + j];
  mat<3> p = m;
  for (int t = 0; t < 2; t++)
    p = mul(p, m);
  double s = 0;
  for (int i = 0; i < 3; i++)
    s += p.at(i, i) + std::sin(p.at(i, (i + 1) % 3));
  return s;
}
RC_ARRAY_TEST_AS("cpp_mat_class", RC_MARKED, trace_power, 9, 0.1, 0.2, 0.3,
                 0.4, 0.5, 0.6, 0.7, 0.8, 0.95)
