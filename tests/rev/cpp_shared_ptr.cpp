// std::shared_ptr of active objects in both modes: make_shared puts the
// object and its reference counts in one block, which then has a shadow;
// copying and releasing the pointer updates the counts with atomicrmw add
// (libstdc++'s _M_add_ref_copy and _M_release).  An integer update by an
// inactive value has no adjoint (Enzyme's constant instruction): the
// primal's is kept and the shadow's counts follow it (rev/aug.c), where
// reverse mode refused it.
#include <cmath>
#include <memory>
#include <vector>
#include "both_modes.h"

namespace {
struct Spring {
  double k, rest;
  double energy(double a, double b) const {
    double s = std::fabs(b - a) - rest;
    return 0.5 * k * s * s;
  }
};
} // namespace

static double springs(double *x, int n) {
  auto shared = std::make_shared<Spring>(Spring{x[0], 0.3});
  std::vector<std::shared_ptr<Spring>> chain;
  for (int i = 1; i + 1 < n; i++)
    chain.push_back(i % 2 ? shared : std::make_shared<Spring>(Spring{x[i], 0.2}));
  double e = 0;
  for (int i = 1; i + 1 < n; i++) {
    std::shared_ptr<Spring> s = chain[i - 1]; // a copy: one more reference
    e += s->energy(x[i], x[i + 1]) * (1 + 0.1 * s.use_count());
  }
  return e;
}

static const double x0[6] = {1.5, 0.2, 0.9, -0.4, 1.3, 0.1};
static const double dir[6] = {0.5, 1.0, -0.5, 0.25, 2.0, -1.0};
BM_ARRAY_BOTH(springs, 6, x0, dir)

int main() {
  both_springs();
  return rc_result();
}
