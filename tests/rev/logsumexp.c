#include <math.h>
#include "rev_check.h"
static double logsumexp(double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++)
    if (x[i] > m)
      m = x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += exp(x[i] - m);
  return m + log(s);
}
RC_ARRAY_TEST(logsumexp, 5, 0.5, 2.0, -1.0, 1.5, 0.25)
