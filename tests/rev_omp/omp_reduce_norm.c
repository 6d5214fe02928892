/* A norm and a normalized sum inside one parallel region: a blocking
 * `omp for reduction(+:s)` (__kmpc_reduce, __kmpc_end_reduce: a barrier
 * after it, so every thread then reads the whole s), and a second loop
 * `nowait` with its own reduction (__kmpc_reduce_nowait) that reads the
 * shared s in every iteration. */
#include <math.h>
#include "rev_check.h"
static double omp_reduce_norm(double *x, int n) {
  double s = 0, t = 0;
#pragma omp parallel
  {
#pragma omp for reduction(+ : s)
    for (int i = 0; i < n; i++)
      s += x[i] * x[i];
#pragma omp for nowait reduction(+ : t)
    for (int i = 0; i < n; i++)
      t += x[i] * cos(x[i]) / sqrt(s);
  }
  return sqrt(s) + t * t;
}
RC_ARRAY_TEST(omp_reduce_norm, 13, 0.4, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3, 1.1,
              -0.6, 0.45, 1.2, -1.3, 0.8)
