// Hessians in C++ the way Enzyme's Sparse programs write them: templated
// energies, grad_f a __enzyme_autodiff<void> of f, and __enzyme_fwddiff<void>
// of grad_f (forward over reverse) giving one Hessian column per unit
// direction, the gradient's buffer passed enzyme_dupnoneed (only its
// tangent is read).  The energies: a 3-D ring of springs through a small
// class with member functions, and a chain whose per-spring lengths go
// through new[] scratch buffers (the reverse code's heap
// memory and tape, differentiated forward).  Columns are checked against
// central finite differences of the analytic gradient (long double), from
// nonzero tangent seeds; reverse over forward as well (std::vector's
// growth: cpp_hessian_vector.cpp).
#include <cmath>
#include <cstring>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"

template <typename Return, typename... T> Return __enzyme_autodiff(void *, T...);
template <typename Return, typename... T> Return __enzyme_fwddiff(void *, T...);

namespace {

constexpr int kPoints = 4;
constexpr int kDim = 3 * kPoints;
constexpr double kRest = 0.8;

template <typename T> struct Point3 {
  T x, y, z;
  Point3 operator-(const Point3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
  T norm() const { return std::sqrt(x * x + y * y + z * z); }
};

template <typename T> static Point3<T> point(const T *q, int i) {
  return {q[3 * i], q[3 * i + 1], q[3 * i + 2]};
}

// springs i -> i+1 (mod N) and one diagonal 0 -> 2
template <typename T> static T ring3(const T *q, int n) {
  int np = n / 3;
  T e = 0;
  for (int i = 0; i < np; i++) {
    T s = (point(q, (i + 1) % np) - point(q, i)).norm() - kRest;
    e += s * s;
  }
  T d = (point(q, 2) - point(q, 0)).norm() - 2 * kRest;
  return e + 0.5 * d * d;
}

// a chain: spring lengths, then squared strains summed, through new[]
// buffers
template <typename T> static T chain(const T *q, int n) {
  int springs = n / 3 - 1;
  T *lengths = new T[springs];
  for (int i = 0; i < springs; i++)
    lengths[i] = (point(q, i + 1) - point(q, i)).norm();
  T *strain = new T[springs];
  for (int i = 0; i < springs; i++)
    strain[i] = (lengths[i] - kRest) / kRest;
  T e = 0;
  for (int i = 0; i < springs; i++)
    e += strain[i] * strain[i] * (1 + 0.1 * strain[i]);
  delete[] strain;
  delete[] lengths;
  return e;
}

template <typename T> static void grad_ring3(const T *q, T *dq, int n) {
  __enzyme_autodiff<void>((void *)ring3<T>, enzyme_dup, q, dq, enzyme_const, n);
}
template <typename T> static void grad_chain(const T *q, T *dq, int n) {
  __enzyme_autodiff<void>((void *)chain<T>, enzyme_dup, q, dq, enzyme_const, n);
}

// forward over reverse: the gradient's buffer not needed, its tangent is H v
template <typename T>
static void hess_column_ring3(const T *q, const T *v, T *dq, T *hv, int n) {
  __enzyme_fwddiff<void>((void *)grad_ring3<T>, enzyme_dup, q, v,
                         enzyme_dupnoneed, dq, hv, enzyme_const, n);
}
template <typename T>
static void hess_column_chain(const T *q, const T *v, T *dq, T *hv, int n) {
  __enzyme_fwddiff<void>((void *)grad_chain<T>, enzyme_dup, q, v,
                         enzyme_dupnoneed, dq, hv, enzyme_const, n);
}

// reverse over forward
template <typename T> static T dir_chain(const T *q, const T *v, int n) {
  return __enzyme_fwddiff<T>((void *)chain<T>, enzyme_dup, q, v, enzyme_const, n);
}
template <typename T>
static void rof_chain(const T *q, T *hq, const T *v, int n) {
  __enzyme_autodiff<void>((void *)dir_chain<T>, enzyme_dup, q, hq,
                          enzyme_const, v, enzyme_const, n);
}

// analytic gradients in long double
static void add_spring(const long double *q, int a, int b, long double rest,
                       long double weight, long double *g) {
  long double d[3], r2 = 0;
  for (int k = 0; k < 3; k++)
    d[k] = q[3 * b + k] - q[3 * a + k], r2 += d[k] * d[k];
  long double r = std::sqrt(r2), c = 2 * weight * (r - rest) / r;
  for (int k = 0; k < 3; k++)
    g[3 * b + k] += c * d[k], g[3 * a + k] -= c * d[k];
}
static void ring3_gradient(const long double *q, long double *g) {
  for (int i = 0; i < kDim; i++)
    g[i] = 0;
  for (int i = 0; i < kPoints; i++)
    add_spring(q, i, (i + 1) % kPoints, kRest, 1, g);
  add_spring(q, 0, 2, 2 * kRest, 0.5L, g);
}
static void chain_gradient(const long double *q, long double *g) {
  for (int i = 0; i < kDim; i++)
    g[i] = 0;
  for (int i = 0; i + 1 < kPoints; i++) {
    long double d[3], r2 = 0;
    for (int k = 0; k < 3; k++)
      d[k] = q[3 * (i + 1) + k] - q[3 * i + k], r2 += d[k] * d[k];
    long double r = std::sqrt(r2), s = (r - kRest) / kRest;
    long double de_ds = 2 * s + 0.3L * s * s;
    for (int k = 0; k < 3; k++) {
      long double c = de_ds / kRest * d[k] / r;
      g[3 * (i + 1) + k] += c, g[3 * i + k] -= c;
    }
  }
}

// the finite differences' scalar: v . grad(p), whose gradient is H v
static void (*current_gradient)(const long double *, long double *);
static double current_v[kDim];
static long double directional_gradient(const long double *p) {
  long double g[kDim], s = 0;
  current_gradient(p, g);
  for (int i = 0; i < kDim; i++)
    s += current_v[i] * g[i];
  return s;
}

using column_fn = void (*)(const double *, const double *, double *, double *,
                           int);

static void check_columns(const char *name, column_fn column,
                          void (*gradient)(const long double *, long double *),
                          const double *q0) {
  long double p[kDim], got[kDim];
  for (int i = 0; i < kDim; i++)
    p[i] = q0[i];
  current_gradient = gradient;
  for (int k = 0; k < kDim; k++) {
    double q[kDim], dq[kDim], hv[kDim];
    std::memset(current_v, 0, sizeof current_v);
    current_v[k] = 1;
    std::memcpy(q, q0, sizeof q);
    rc_seed(dq, kDim);
    rc_seed(hv, kDim);
    column(q, current_v, dq, hv, kDim);
    for (int i = 0; i < kDim; i++)
      got[i] = hv[i] - rc_seed_value(i);
    rc_check(name, directional_gradient, p, got, kDim);
  }
}

} // namespace

int main() {
  double q0[kDim];
  for (int i = 0; i < kPoints; i++) {
    double t = 6.283185307179586 * i / kPoints;
    q0[3 * i] = 0.7 * std::cos(t) + 0.02 * i;
    q0[3 * i + 1] = 0.6 * std::sin(t);
    q0[3 * i + 2] = 0.15 * i - 0.05 * i * i;
  }
  check_columns("ring3 forward over reverse", hess_column_ring3<double>,
                ring3_gradient, q0);
  check_columns("chain forward over reverse", hess_column_chain<double>,
                chain_gradient, q0);

  long double p[kDim], got[kDim];
  for (int i = 0; i < kDim; i++)
    p[i] = q0[i];
  current_gradient = chain_gradient;
  for (int i = 0; i < kDim; i++)
    current_v[i] = 0.3 + 0.2 * (i % 5) - 0.05 * i;
  double q[kDim], hq[kDim];
  std::memcpy(q, q0, sizeof q);
  rc_seed(hq, kDim);
  rof_chain<double>(q, hq, current_v, kDim);
  for (int i = 0; i < kDim; i++)
    got[i] = hq[i] - rc_seed_value(i);
  rc_check("chain reverse over forward", directional_gradient, p, got, kDim);
  return rc_result();
}
