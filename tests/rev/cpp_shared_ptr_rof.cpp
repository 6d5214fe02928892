// Reverse over forward of an energy over std::shared_ptr objects: the
// forward derivative updates the reference counts of the primal block
// and of its shadow block (atomicrmw add), and reverse mode keeps both
// updates without an adjoint (rev/aug.c integer_update), whatever type
// analysis makes of the shadow block's bytes.  The Hessian along a
// direction against central finite differences of the analytic gradient.
// At -O0 the reverse of the forward derivative still stops at a memcpy in
// std::_Construct whose bytes type analysis cannot classify (the forward
// derivative has no caller of the program's to say what they are).
#include <cmath>
#include <memory>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"

template <typename Return, typename... T> Return __enzyme_autodiff(void *, T...);
template <typename Return, typename... T> Return __enzyme_fwddiff(void *, T...);

namespace {

constexpr int kDim = 5;

struct Spring {
  double k, rest;
  double energy(double a, double b) const {
    double s = b - a - rest;
    return 0.5 * k * s * s * s * s;
  }
};

static double springs(double *x, int n) {
  auto shared = std::make_shared<Spring>(Spring{x[0], 0.3});
  std::vector<std::shared_ptr<Spring>> chain;
  for (int i = 1; i + 1 < n; i++)
    chain.push_back(shared);
  double e = 0;
  for (int i = 1; i + 1 < n; i++) {
    std::shared_ptr<Spring> s = chain[i - 1];
    e += s->energy(x[i], x[i + 1]);
  }
  return e;
}

static double along(double *x, const double *v, int n) {
  return __enzyme_fwddiff<double>((void *)springs, enzyme_dup, x, v,
                                  enzyme_const, n);
}

// e = sum_{i=1}^{n-2} x0/2 s_i^4, s_i = x[i+1] - x[i] - 0.3
static void springs_gradient(const long double *x, long double *g) {
  for (int i = 0; i < kDim; i++)
    g[i] = 0;
  for (int i = 1; i + 1 < kDim; i++) {
    long double s = x[i + 1] - x[i] - 0.3L;
    g[0] += 0.5L * s * s * s * s;
    g[i + 1] += 2 * x[0] * s * s * s, g[i] -= 2 * x[0] * s * s * s;
  }
}

static const double dir[kDim] = {0.5, -1.0, 0.25, 2.0, 1.0};
static long double directional_gradient(const long double *p) {
  long double g[kDim], s = 0;
  springs_gradient(p, g);
  for (int i = 0; i < kDim; i++)
    s += dir[i] * g[i];
  return s;
}

} // namespace

int main() {
  double x[kDim] = {1.5, 0.2, 0.9, -0.4, 1.3}, hx[kDim];
  long double p[kDim], got[kDim];
  for (int i = 0; i < kDim; i++)
    p[i] = x[i];
  rc_seed(hx, kDim);
  __enzyme_autodiff<void>((void *)along, enzyme_dup, x, hx, enzyme_const, dir,
                          enzyme_const, kDim);
  for (int i = 0; i < kDim; i++)
    got[i] = hx[i] - rc_seed_value(i);
  rc_check("shared_ptr reverse over forward", directional_gradient, p, got,
           kDim);
  return rc_result();
}
