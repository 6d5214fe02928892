#include "rev_check.h"
static double odd_part(double *x, int i, int n);
static double even_part(double *x, int i, int n) {
  if (i >= n)
    return 0.0;
  return x[i] * x[i] + 0.5 * odd_part(x, i + 1, n);
}
static double odd_part(double *x, int i, int n) {
  if (i >= n)
    return 1.0;
  return x[i] * even_part(x, i + 1, n) - x[i];
}
static double recursion_mutual(double *x, int n) { return even_part(x, 0, n); }
RC_ARRAY_TEST(recursion_mutual, 6, 0.5, -1.0, 1.5, 0.75, -0.25, 2.0)
