/* A histogram of doubles: every iteration adds a weight into one of four
 * shared bins with `#pragma omp atomic` (atomicrmw fadd), several threads
 * adding into one bin; the reverse reads a bin's adjoint into each
 * weight's.  The bins are x[0..3], the weights x[4..]. */
#include <math.h>
#include "rev_check.h"
enum { BINS = 4 };
static double omp_histogram(double *x, int n) {
#pragma omp parallel for
  for (int i = BINS; i < n; i++) {
    double w = sin(x[i]) * x[i];
#pragma omp atomic
    x[(i * 7) % BINS] += w * w;
  }
  return x[0] * x[1] + x[2] * x[3];
}
RC_ARRAY_TEST(omp_histogram, 19, 0.4, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3, 1.1,
              -0.6, 0.45, 1.2, -1.3, 0.8, 0.2, -0.9, 0.65, -0.35, 1.05, 0.55)
