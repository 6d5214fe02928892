// Forward over reverse of an energy with calls through pointers: virtual
// energies of objects in a std::vector of std::unique_ptr, and a
// std::function.  The reverse code of an indirect call reports an
// unknown target before it traps (tanjit.runtime_report_target), and the
// forward derivative of that code keeps the report as primal work (an
// inactive call: registry/inactive.c), where it was refused as a call
// with no derivative.  Every Hessian column against central finite
// differences of the analytic gradient, from nonzero tangent seeds.
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"

template <typename Return, typename... T> Return __enzyme_autodiff(void *, T...);
template <typename Return, typename... T> Return __enzyme_fwddiff(void *, T...);

namespace {

constexpr int kDim = 4;

struct Term {
  virtual ~Term() {}
  virtual double energy(const double *q) const = 0;
};
struct Quartic : Term { // (q_a - q_b)^4
  int a, b;
  Quartic(int a, int b) : a(a), b(b) {}
  double energy(const double *q) const override {
    double d = q[a] - q[b];
    return d * d * d * d;
  }
};
struct Product : Term { // q_a q_b
  int a, b;
  Product(int a, int b) : a(a), b(b) {}
  double energy(const double *q) const override { return q[a] * q[b]; }
};

static double energy(const double *q, int n) {
  std::vector<std::unique_ptr<Term>> terms;
  for (int i = 0; i + 1 < n; i++) {
    if (i % 2)
      terms.push_back(std::make_unique<Product>(i, i + 1));
    else
      terms.push_back(std::make_unique<Quartic>(i, i + 1));
  }
  std::function<double(double)> soft = [](double t) { return std::exp(0.5 * t); };
  double e = 0;
  for (const auto &t : terms)
    e += t->energy(q);
  return e + soft(q[0] * q[n - 1]);
}

static void grad(const double *q, double *dq, int n) {
  __enzyme_autodiff<void>((void *)energy, enzyme_dup, q, dq, enzyme_const, n);
}

static void hess_column(const double *q, const double *v, double *dq,
                        double *hv, int n) {
  __enzyme_fwddiff<void>((void *)grad, enzyme_dup, q, v, enzyme_dupnoneed, dq,
                         hv, enzyme_const, n);
}

static void energy_gradient(const long double *q, long double *g) {
  for (int i = 0; i < kDim; i++)
    g[i] = 0;
  for (int i = 0; i + 1 < kDim; i++) {
    if (i % 2) {
      g[i] += q[i + 1], g[i + 1] += q[i];
    } else {
      long double d = q[i] - q[i + 1];
      g[i] += 4 * d * d * d, g[i + 1] -= 4 * d * d * d;
    }
  }
  long double s = 0.5L * std::exp(0.5L * q[0] * q[kDim - 1]);
  g[0] += s * q[kDim - 1], g[kDim - 1] += s * q[0];
}

static double current_v[kDim];
static long double directional_gradient(const long double *p) {
  long double g[kDim], s = 0;
  energy_gradient(p, g);
  for (int i = 0; i < kDim; i++)
    s += current_v[i] * g[i];
  return s;
}

} // namespace

int main() {
  const double q0[kDim] = {0.3, -0.7, 1.1, 0.4};
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
    hess_column(q, current_v, dq, hv, kDim);
    for (int i = 0; i < kDim; i++)
      got[i] = hv[i] - rc_seed_value(i);
    rc_check("virtual energy forward over reverse", directional_gradient, p,
             got, kDim);
  }
  return rc_result();
}
