#include <math.h>
#include "rev_check.h"
/* x[i] = f(x[i]) in place: the reverse needs the values overwritten */
static double inplace_update(double *x, int n) {
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < n; i++)
      x[i] = sin(x[i]) * x[i] + 0.5 * x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}
RC_ARRAY_TEST(inplace_update, 4, 0.3, -0.2, 0.5, 0.1)
