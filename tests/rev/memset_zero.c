#include <string.h>
#include "rev_check.h"
static double memset_zero(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  memset(x + 1, 0, 2 * sizeof *x); /* the seeds there die */
  for (int i = 0; i < n; i++)
    x[i] += s * 0.5;
  return s;
}
RC_ARRAY_TEST(memset_zero, 5, 0.5, -1.0, 1.5, 0.75, 2.0)
