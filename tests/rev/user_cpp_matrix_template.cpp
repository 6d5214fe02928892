// A class template Matrix<R, C> over std::array storage with operator*
// and transpose, a helper returning a std::vector<double> by value, and a
// 2-D C array argument (double (*)[3]); loss = |W^T W x - b|^2 + sum(h).
#include <array>
#include <cmath>
#include <vector>
#include "both_modes.h"
template <int R, int C> struct Matrix {
  std::array<double, R * C> a{};
  double &operator()(int i, int j) { return a[i * C + j]; }
  double operator()(int i, int j) const { return a[i * C + j]; }
  Matrix<C, R> transpose() const {
    Matrix<C, R> t;
    for (int i = 0; i < R; i++)
      for (int j = 0; j < C; j++) t(j, i) = (*this)(i, j);
    return t;
  }
  template <int K> Matrix<R, K> operator*(const Matrix<C, K> &o) const {
    Matrix<R, K> m;
    for (int i = 0; i < R; i++)
      for (int k = 0; k < K; k++) {
        double s = 0;
        for (int j = 0; j < C; j++) s += (*this)(i, j) * o(j, k);
        m(i, k) = s;
      }
    return m;
  }
};
static std::vector<double> softplus(const double *v, int n) {
  std::vector<double> out;
  out.reserve(n);
  for (int i = 0; i < n; i++) out.push_back(std::log1p(std::exp(v[i])));
  return out;
}
static double loss(double (*w)[3], double *x, int n) {
  (void)n;
  Matrix<2, 3> W;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) W(i, j) = w[i][j];
  Matrix<3, 1> X;
  for (int j = 0; j < 3; j++) X(j, 0) = x[j];
  Matrix<3, 1> y = (W.transpose() * W) * X;
  double r = 0;
  for (int j = 0; j < 3; j++) r += (y(j, 0) - 1.0) * (y(j, 0) - 1.0);
  for (double h : softplus(x, 3)) r += h;
  return r;
}
#define NP 9
static long double value(const long double *p) {
  double w[2][3], x[3];
  for (int i = 0; i < 6; i++) w[i / 3][i % 3] = (double)p[i];
  for (int i = 0; i < 3; i++) x[i] = (double)p[6 + i];
  return loss(w, x, 3);
}
static long double run(const long double *p) {
  long double r = value(p);
  for (int i = 0; i < NP; i++) r += rc_seed_value(i) * p[i];
  return r;
}
int main() {
  double w[2][3] = {{0.5, -0.3, 0.8}, {0.2, 0.9, -0.4}}, x[3] = {0.7, -0.2, 1.1};
  double dw[2][3], dx[3], tw[2][3], tx[3];
  long double p[NP], got[NP], grad[NP], v[NP];
  for (int i = 0; i < 6; i++) p[i] = w[i / 3][i % 3], dw[i / 3][i % 3] = rc_seed_value(i);
  for (int i = 0; i < 3; i++) p[6 + i] = x[i], dx[i] = rc_seed_value(6 + i);
  __enzyme_autodiff((void *)loss, enzyme_dup, w, dw, enzyme_dup, x, dx, enzyme_const, 3);
  for (int i = 0; i < 6; i++) got[i] = dw[i / 3][i % 3];
  for (int i = 0; i < 3; i++) got[6 + i] = dx[i];
  for (int i = 0; i < NP; i++) grad[i] = got[i] - rc_seed_value(i), v[i] = 0.2 * (i % 4) - 0.3;
  rc_check("matrix gradient", run, p, got, NP);
  for (int i = 0; i < 6; i++) tw[i / 3][i % 3] = (double)v[i];
  for (int i = 0; i < 3; i++) tx[i] = (double)v[6 + i];
  double t = __enzyme_fwddiff((void *)loss, enzyme_dup, w, tw, enzyme_dup, x, tx, enzyme_const, 3);
  bm_check_tangent("matrix forward", value, p, v, NP, t, grad);
  return rc_result();
}
