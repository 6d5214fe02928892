/* A dot product with `reduction(+:s)` on a combined parallel loop
 * (__kmpc_reduce_nowait): each thread's private sum is added into s under
 * the reduction's lock, and the reverse hands s's adjoint to every
 * thread's copy under the same lock.  Two reductions in one clause. */
#include <math.h>
#include "rev_check.h"
static double omp_reduce_dot(double *x, int n) {
  double s = 0, q = 0;
  int h = n / 2;
#pragma omp parallel for reduction(+ : s, q)
  for (int i = 0; i < h; i++) {
    s += x[i] * x[h + i];
    q += sin(x[i]) * x[0];
  }
  return s * s + q;
}
RC_ARRAY_TEST(omp_reduce_dot, 18, 0.4, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3, 1.1,
              -0.6, 0.45, 1.2, -1.3, 0.8, 0.2, -0.9, 0.65, -0.35, 1.05)
