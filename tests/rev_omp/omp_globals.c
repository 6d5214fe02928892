/* A parallel region that captures nothing and works on a mutable global
 * (active, since what is stored into it depends on x): its pair is built
 * for the globals it touches, as for any callee, not cloned as inactive
 * (which would leave g's adjoints where they are). */
#include <math.h>
#include "rev_check.h"
enum { N = 8 };
static double g[N];
static double omp_globals(double *x, int n) {
  for (int i = 0; i < n; i++)
    g[i] = x[i] * x[i];
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    g[i] = sin(g[i]);
  double r = 0;
  for (int i = 0; i < n; i++)
    r += g[i] * x[i];
  return r;
}
RC_ARRAY_TEST(omp_globals, N, 0.5, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3, 1.1)
