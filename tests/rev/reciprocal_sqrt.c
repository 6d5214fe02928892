/* k / sqrt(x), whose reverse folds the quotient's and the sqrt's
 * partials into one (rev/adjoint.c, fold_reciprocal_sqrt), for k = 1,
 * -1 and 2.5, a softened r2 (never zero) and a plain sum, beside a sqrt
 * used twice (not folded), in double and float. */
#include <math.h>

#include "rev_check.h"
static double reciprocal_sqrt(double *x, int n) {
  double e = 0;
  for (int i = 0; i + 1 < n; i++) {
    double d = x[i + 1] - x[i];
    double r2 = d * d + 0.01;
    e -= 1.0 / sqrt(r2);
    e += -1.0 / sqrt(x[i] * x[i] + x[i + 1] * x[i + 1]);
    e += 2.5 / sqrt(r2 + x[i] * x[i]);
    double s = sqrt(r2 * 2.0);
    e += x[i] / s + s;
  }
  return e;
}
RC_ARRAY_TEST(reciprocal_sqrt, 5, 0.5, -1.25, 2.0, 0.75, -0.25)
