#include "rev_check.h"
/* recursion over the array: r(i) = x[i] * r(i+1) + sin-free polynomial */
static double rec(double *x, int i, int n) {
  if (i == n)
    return 1.0;
  return x[i] * rec(x, i + 1, n) + x[i] * x[i];
}
static double recursion_direct(double *x, int n) { return rec(x, 0, n); }
RC_ARRAY_TEST(recursion_direct, 5, 0.5, -1.0, 1.5, 0.75, -0.25)
