/* A parallel region whose threads accumulate, without a reduction clause,
 * into partial sums of their own (a thread-local `s` over the thread's
 * share of a `#pragma omp for`, stored at partial[thread]), summed after
 * the region; a second worksharing loop in the same region (after the
 * first's barrier) scales x in place. */
#include <math.h>
#include "rev_check.h"
extern int omp_get_thread_num(void);
enum { MAX_THREADS = 64 };
static double omp_accumulate(double *x, int n) {
  double partial[MAX_THREADS] = {0};
#pragma omp parallel
  {
    double s = 0;
#pragma omp for
    for (int i = 0; i < n; i++)
      s += x[i] * x[i] * (i + 1) + cos(x[i]);
    partial[omp_get_thread_num() % MAX_THREADS] += s;
#pragma omp for
    for (int i = 0; i < n; i++)
      x[i] = exp(0.5 * x[i]);
  }
  double r = 0;
  for (int t = 0; t < MAX_THREADS; t++)
    r += partial[t] * partial[t];
  return r;
}
RC_ARRAY_TEST(omp_accumulate, 13, 0.5, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3, 1.1,
              -0.6, 0.45, 1.2, -1.3, 0.8)
