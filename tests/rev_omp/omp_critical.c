/* Thread-local sums over a `#pragma omp for` added into a shared scalar
 * and a shared array element inside `#pragma omp critical`: the reverse
 * holds the same lock, so the threads read and reset the shared adjoints
 * one at a time. */
#include <math.h>
#include "rev_check.h"
static double omp_critical(double *x, int n) {
  double total = 0;
#pragma omp parallel
  {
    double s = 0, q = 0;
#pragma omp for
    for (int i = 1; i < n; i++) {
      s += x[i] * x[i];
      q += sin(x[i]) * x[0];
    }
#pragma omp critical
    {
      total += sin(s) + s;
      x[0] += q * q;
    }
  }
  return total * x[0];
}
RC_ARRAY_TEST(omp_critical, 11, 0.4, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3, 1.1,
              -0.6, 0.45, 1.2)
