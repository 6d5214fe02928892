/* A worksharing loop (`#pragma omp parallel for`) updating x in place,
 * each thread its own iterations, every thread reading x[0]: x[0]'s
 * adjoint gathers every thread's contribution at once (atomic adds in the
 * region's reverse), and each element's from the thread that ran it. */
#include <math.h>
#include "rev_check.h"
static double omp_for_shared(double *x, int n) {
#pragma omp parallel for
  for (int i = 1; i < n; i++)
    x[i] = x[i] * x[i] * x[0] + sin(x[i] * x[0]);
  return x[0] * x[1] + x[n - 1];
}
RC_ARRAY_TEST(omp_for_shared, 17, 0.9, 0.5, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3,
              1.1, -0.6, 0.45, 1.2, -1.3, 0.8, 0.2, -0.9, 1.7)
