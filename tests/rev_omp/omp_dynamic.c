/* Uneven work over dynamic and guided schedules
 * (__kmpc_dispatch_init_4, __kmpc_dispatch_next_4): iteration i costs i
 * steps, so the chunks each thread takes differ from run to run; the
 * reverse of each thread replays its own chunks from its tape.  Every
 * iteration reads the shared x[0]. */
#include <math.h>
#include "rev_check.h"
static double omp_dynamic(double *x, int n) {
  double y[64];
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 1)
    for (int i = 1; i < n; i++) {
      double v = x[i];
      for (int k = 0; k < i; k++)
        v = sin(v) * x[0] + 0.5 * v;
      y[i] = v;
    }
#pragma omp for schedule(guided) nowait
    for (int i = 1; i < n; i++)
      x[i] = y[i] * y[n - i] + x[i];
  }
  return x[0] * x[n - 1];
}
RC_ARRAY_TEST(omp_dynamic, 17, 0.4, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3, 1.1,
              -0.6, 0.45, 1.2, -1.3, 0.8, 0.2, -0.9, 0.65, -0.35)
