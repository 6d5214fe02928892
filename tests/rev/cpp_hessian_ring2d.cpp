// Forward over reverse in C++ at every level, -O0 included: a ring of 2-D
// springs whose points are built by value ({double, double} returned)
// from q at a run-time index, (i + 1) % n.  At -O0 the reverse code keeps
// the loop's index in a counted loop's slot filled from the tape
// (rev/loops.c), and the forward derivative of that code reads the tape
// record by its own type (ad_is_tape_access): the tape's buffer, which
// holds the doubles, pointers and indices of every record, is no evidence
// that the index is a float.  Every Hessian column against central finite
// differences of the analytic gradient, from nonzero tangent seeds.
#include <cmath>
#include <cstring>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"

template <typename Return, typename... T> Return __enzyme_autodiff(void *, T...);
template <typename Return, typename... T> Return __enzyme_fwddiff(void *, T...);

namespace {

constexpr int kPoints = 3;
constexpr int kDim = 2 * kPoints;
constexpr double kRest = 0.8;

template <typename T> struct Point {
  T x, y;
  Point operator-(const Point &o) const { return {x - o.x, y - o.y}; }
  T norm() const { return std::sqrt(x * x + y * y); }
};

template <typename T> static Point<T> point(const T *q, int i) {
  return {q[2 * i], q[2 * i + 1]};
}

template <typename T> static T ring(const T *q, int n) {
  T e = 0;
  for (int i = 0; i < n; i++) {
    T s = (point(q, (i + 1) % n) - point(q, i)).norm() - kRest;
    e += s * s;
  }
  return e;
}

template <typename T> static void grad(const T *q, T *dq, int n) {
  __enzyme_autodiff<void>((void *)ring<T>, enzyme_dup, q, dq, enzyme_const, n);
}

// the gradient's buffer is not needed (enzyme_dupnoneed), its tangent is H v
template <typename T>
static void hess_column(const T *q, const T *v, T *dq, T *hv, int n) {
  __enzyme_fwddiff<void>((void *)grad<T>, enzyme_dup, q, v, enzyme_dupnoneed,
                         dq, hv, enzyme_const, n);
}

static void ring_gradient(const long double *q, long double *g) {
  for (int i = 0; i < kDim; i++)
    g[i] = 0;
  for (int a = 0; a < kPoints; a++) {
    int b = (a + 1) % kPoints;
    long double dx = q[2 * b] - q[2 * a], dy = q[2 * b + 1] - q[2 * a + 1];
    long double r = std::sqrt(dx * dx + dy * dy), c = 2 * (r - kRest) / r;
    g[2 * b] += c * dx, g[2 * b + 1] += c * dy;
    g[2 * a] -= c * dx, g[2 * a + 1] -= c * dy;
  }
}

// the finite differences' scalar: v . grad(p), whose gradient is H v
static double current_v[kDim];
static long double directional_gradient(const long double *p) {
  long double g[kDim], s = 0;
  ring_gradient(p, g);
  for (int i = 0; i < kDim; i++)
    s += current_v[i] * g[i];
  return s;
}

} // namespace

int main() {
  const double q0[kDim] = {0.1, 0.5, -0.3, 0.9, 1.2, -0.4};
  long double p[kDim], got[kDim];
  for (int i = 0; i < kDim; i++)
    p[i] = q0[i];
  for (int k = 0; k < kDim; k++) {
    double q[kDim], dq[kDim], hv[kDim];
    std::memset(current_v, 0, sizeof current_v);
    current_v[k] = 1;
    std::memcpy(q, q0, sizeof q);
    rc_seed(dq, kDim);
    rc_seed(hv, kDim);
    hess_column<double>(q, current_v, dq, hv, kPoints);
    for (int i = 0; i < kDim; i++)
      got[i] = hv[i] - rc_seed_value(i);
    rc_check("ring2d forward over reverse", directional_gradient, p, got, kDim);
  }
  return rc_result();
}
