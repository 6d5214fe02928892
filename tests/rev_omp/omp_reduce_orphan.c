/* Reductions away from the fork: an orphaned `omp for reduction(+:s)` in
 * a function the region calls (over a file-scope s, shared by the team,
 * reset and read in `omp single`), and an array-section reduction
 * `reduction(+:h[:3])`, whose combination is a loop over the section. */
#include <math.h>
#include "rev_check.h"
static double s;
static void partial(double *x, int n, double *out) {
#pragma omp single
  s = 0;
#pragma omp for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += sin(x[i]) * x[i];
#pragma omp single
  *out = s;
}
static double omp_reduce_orphan(double *x, int n) {
  double out = 0, h[3] = {0, 0, 0};
#pragma omp parallel
  partial(x, n, &out);
#pragma omp parallel for reduction(+ : h[:3])
  for (int i = 0; i < n; i++)
    h[i % 3] += x[i] * x[i] * out;
  return h[0] * h[1] + h[2];
}
RC_ARRAY_TEST(omp_reduce_orphan, 11, 0.4, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3,
              1.1, -0.6, 0.45, 1.2)
