// Forward over reverse of energies that build std::vectors: with
// push_back (its growth: _M_realloc_insert, new_allocator::allocate), and
// sized, then copied (a chain of springs' lengths and strains).  In
// the forward derivative of the augmented pass, allocate returns
// {primal, shadow} as one aggregate: the demand of a returned pointer goes
// through insertvalue (analysis/activity.c), so the primal buffer's
// operator new gets a tangent buffer of its own, with no help from the
// element count (an integer, inactive); before, the chain's Hessian was
// wrong at -O0 (the primal pointer stood in for the buffer's tangent).
// Every Hessian column against
// central finite differences of the analytic gradient, from nonzero
// tangent seeds, at -O0..-O3.
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"

template <typename Return, typename... T> Return __enzyme_autodiff(void *, T...);
template <typename Return, typename... T> Return __enzyme_fwddiff(void *, T...);

namespace {

constexpr int kDim = 5;

template <typename T> static T energy(const T *q, int n) {
  std::vector<T> d;
  for (int i = 0; i + 1 < n; i++)
    d.push_back(q[i + 1] - q[i]);
  T e = 0;
  for (const T &v : d)
    e += v * v * v * v + std::exp(0.3 * v);
  return e + std::inner_product(q, q + n, q, T(0));
}

// sum_i (sqrt(1 + d_i^2) - 1.2)^2, d_i = q[i+1] - q[i]
template <typename T> static T chain(const T *q, int n) {
  std::vector<T> len(n - 1);
  for (int i = 0; i + 1 < n; i++)
    len[i] = std::sqrt(1 + (q[i + 1] - q[i]) * (q[i + 1] - q[i]));
  std::vector<T> strain(len);
  T e = 0;
  for (auto &s : strain) {
    s = s - 1.2;
    e += s * s;
  }
  return e;
}

template <typename T> static void grad(const T *q, T *dq, int n) {
  __enzyme_autodiff<void>((void *)energy<T>, enzyme_dup, q, dq, enzyme_const,
                          n);
}
template <typename T> static void grad_chain(const T *q, T *dq, int n) {
  __enzyme_autodiff<void>((void *)chain<T>, enzyme_dup, q, dq, enzyme_const,
                          n);
}

template <typename T>
static void hess_column(const T *q, const T *v, T *dq, T *hv, int n) {
  __enzyme_fwddiff<void>((void *)grad<T>, enzyme_dup, q, v, enzyme_dup, dq, hv,
                         enzyme_const, n);
}
template <typename T>
static void hess_column_chain(const T *q, const T *v, T *dq, T *hv, int n) {
  __enzyme_fwddiff<void>((void *)grad_chain<T>, enzyme_dup, q, v,
                         enzyme_dupnoneed, dq, hv, enzyme_const, n);
}

// d/dq of sum_i (v^4 + exp(0.3 v)), v = q[i+1] - q[i], plus |q|^2
static void energy_gradient(const long double *q, long double *g) {
  for (int i = 0; i < kDim; i++)
    g[i] = 2 * q[i];
  for (int i = 0; i + 1 < kDim; i++) {
    long double v = q[i + 1] - q[i];
    long double c = 4 * v * v * v + 0.3L * std::exp(0.3L * v);
    g[i + 1] += c, g[i] -= c;
  }
}

static void chain_gradient(const long double *q, long double *g) {
  for (int i = 0; i < kDim; i++)
    g[i] = 0;
  for (int i = 0; i + 1 < kDim; i++) {
    long double d = q[i + 1] - q[i], r = std::sqrt(1 + d * d);
    long double c = 2 * (r - 1.2L) * d / r;
    g[i + 1] += c, g[i] -= c;
  }
}

static void (*current_gradient)(const long double *, long double *);
static double current_v[kDim];
static long double directional_gradient(const long double *p) {
  long double g[kDim], s = 0;
  current_gradient(p, g);
  for (int i = 0; i < kDim; i++)
    s += current_v[i] * g[i];
  return s;
}

} // namespace

using column_fn = void (*)(const double *, const double *, double *, double *,
                           int);

static void check_columns(const char *name, column_fn column,
                          void (*gradient)(const long double *, long double *)) {
  const double q0[kDim] = {0.1, 0.5, -0.3, 0.9, 0.2};
  long double p[kDim], got[kDim];
  for (int i = 0; i < kDim; i++)
    p[i] = q0[i];
  current_gradient = gradient;
  for (int k = 0; k < kDim; k++) {
    double q[kDim], dq[kDim], hv[kDim];
    std::memset(current_v, 0, sizeof current_v);
    current_v[k] = 1;
    std::memcpy(q, q0, sizeof q);
    std::memset(dq, 0, sizeof dq);
    rc_seed(hv, kDim);
    column(q, current_v, dq, hv, kDim);
    for (int i = 0; i < kDim; i++)
      got[i] = hv[i] - rc_seed_value(i);
    rc_check(name, directional_gradient, p, got, kDim);
  }
}

int main() {
  check_columns("push_back energy forward over reverse", hess_column<double>,
                energy_gradient);
  check_columns("copied chain forward over reverse", hess_column_chain<double>,
                chain_gradient);
  return rc_result();
}
