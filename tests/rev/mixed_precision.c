#include <math.h>
#include "rev_check.h"
/* float and long double inside a double computation */
static double mixed_precision(double *x, int n) {
  (void)n;
  float a = (float)x[0] * 2.0f;
  long double b = (long double)x[1] * x[1];
  return (double)(a * a) + (double)(b * 3.0L) + x[2] * (double)sqrtf(a * a + 1.0f);
}
static long double run(const long double *p);
int main(void) {
  double x[3] = {0.5, -1, 1.5}, dx[3];
  long double p[3] = {0.5, -1, 1.5}, got[3];
  rc_seed(dx, 3);
  __enzyme_autodiff((void *)mixed_precision, x, dx, 3);
  for (int i = 0; i < 3; i++)
    got[i] = dx[i];
  rc_checkf("mixed_precision", run, p, got, 3);
  return rc_result();
}
RC_ARRAY_RUN(run_mp, mixed_precision, 3)
static long double run(const long double *p) { return run_mp(p); }
