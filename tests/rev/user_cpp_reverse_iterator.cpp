// Horner's rule over a std::vector's coefficients with a reverse
// iterator (rbegin/rend, an initializer list), std::reverse_iterator over
// a raw array, and std::accumulate over rbegin/rend, in both modes.  At
// -O0 reverse_iterator::operator* copies `current` into a local and
// returns the reference operator-- of that local gives back: the pointer
// it returns comes from memory reached through a call returning its
// argument (analysis/activity.c walk_returned_memory); read as the value
// of a stack address, the reference had no shadow and every coefficient's
// derivative was 0 (both modes).
#include <cmath>
#include <iterator>
#include <numeric>
#include <vector>
#include "both_modes.h"

static double horner(double *x, int n) {
  std::vector<double> c{x[0], x[1], 0.5, x[3]};
  double r = 0;
  for (auto it = c.rbegin(); it != c.rend(); ++it)
    r = r * x[2] + *it;
  std::reverse_iterator<const double *> last(x + n), first(x);
  double tail = 0;
  for (auto it = last; it != first; ++it)
    tail = 0.5 * tail + std::sin(*it);
  return r + tail + std::accumulate(c.rbegin(), c.rend(), 0.0) * x[4];
}

static const double x0[5] = {0.3, -0.7, 1.1, 0.4, 0.9};
static const double dir[5] = {1.0, -0.5, 0.25, 2.0, -1.0};
BM_ARRAY_BOTH(horner, 5, x0, dir)

int main() {
  both_horner();
  return rc_result();
}
