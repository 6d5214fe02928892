/* A named critical section with a hint (__kmpc_critical_with_hint; 2 is
 * omp_sync_hint_contended): thread-local sums added into a shared scalar
 * under it, the reverse reading the scalar's adjoint under the same
 * lock. */
#include <math.h>
#include "rev_check.h"
static double omp_critical_hint(double *x, int n) {
  double total = 0;
#pragma omp parallel
  {
    double s = 0;
#pragma omp for
    for (int i = 1; i < n; i++)
      s += cos(x[i]) * x[i] * x[0];
#pragma omp critical(sums) hint(2)
    total += s * s;
  }
  return total;
}
RC_ARRAY_TEST(omp_critical_hint, 10, 0.4, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3,
              1.1, -0.6, 0.45)
