/* Reverse through callbacks from a constant table that holds libm
 * functions beside the program's own: a declared function whose address
 * is taken is a possible target when a rule covers it (its direct-call
 * wrapper is differentiated).  Before, a call through sin trapped. */
#include "rev_check.h"
typedef double (*fn)(double);
static double sq(double x) { return x * x; }
static const fn table[4] = {sin, sq, exp, tanh};
static double indirect_libm(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += table[i % 4](x[i]) * x[(i + 1) % n] + table[(i + 2) % 4](x[i] * 0.5);
  return s;
}
RC_ARRAY_TEST(indirect_libm, 6, 0.5, -1.0, 1.5, 0.75, 2.0, -0.3)
