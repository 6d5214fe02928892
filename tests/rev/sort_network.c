#include "rev_check.h"
static void cswap(double *a, double *b) {
  if (*a > *b) {
    double t = *a;
    *a = *b;
    *b = t;
  }
}
/* sorts in place, then weights by rank */
static double sort_network(double *x, int n) {
  (void)n;
  cswap(&x[0], &x[1]); cswap(&x[2], &x[3]);
  cswap(&x[0], &x[2]); cswap(&x[1], &x[3]);
  cswap(&x[1], &x[2]);
  return x[0] + 2 * x[1] * x[1] + 3 * x[2] + 4 * x[3] * x[0];
}
RC_ARRAY_TEST(sort_network, 4, 0.9, -0.3, 2.1, 0.4)
