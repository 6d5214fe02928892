#include "rev_check.h"
/* x[0] the variable, x[1..n-1] the coefficients */
static double poly_horner(double *x, int n) {
  double r = 0;
  for (int i = n - 1; i >= 1; i--)
    r = r * x[0] + x[i];
  return r;
}
RC_ARRAY_TEST(poly_horner, 6, 0.7, 1.0, -2.0, 3.0, 0.5, -1.5)
