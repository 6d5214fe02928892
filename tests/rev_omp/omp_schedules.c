/* The schedules' other entry points in one region: a chunked static loop
 * over a long (__kmpc_for_static_init_8), schedule(runtime) over an
 * unsigned long (__kmpc_dispatch_init_8u; OMP_SCHEDULE=dynamic,2 in the
 * test) and a dynamic `nowait` loop over an unsigned
 * (__kmpc_dispatch_init_4u), each reading what the one before wrote. */
#include <math.h>
#include "rev_check.h"
static double omp_schedules(double *x, int n) {
  double y[64];
#pragma omp parallel
  {
#pragma omp for schedule(static, 2)
    for (long i = 1; i < n; i++)
      y[i] = sin(x[i]) * x[0];
#pragma omp for schedule(runtime)
    for (unsigned long i = 1; i < (unsigned long)n; i++)
      x[i] = y[i] * y[n - i] + x[i];
#pragma omp for schedule(dynamic, 3) nowait
    for (unsigned i = 1; i < (unsigned)n; i++)
      y[i] = x[i] * x[i];
  }
  double s = 0;
  for (int i = 1; i < n; i++)
    s += y[i];
  return s * x[0];
}
RC_ARRAY_TEST(omp_schedules, 13, 0.4, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3, 1.1,
              -0.6, 0.45, 1.2, -1.3, 0.8)
