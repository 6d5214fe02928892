#include <math.h>
#include "rev_check.h"
/* Newton's iteration for the cube root of x[0]*x[1] until converged */
static double newton(double *x, int n) {
  (void)n;
  double a = x[0] * x[1], r = 1.0;
  int it = 0;
  while (fabs(r * r * r - a) > 1e-14 && it < 100) {
    r = r - (r * r * r - a) / (3 * r * r);
    it++;
  }
  return r;
}
RC_ARRAY_TEST(newton, 2, 1.7, 2.3)
