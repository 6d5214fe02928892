#define _DEFAULT_SOURCE /* j0, jn, y0 ... are X/Open, not ISO C */
/* Bessel functions in reverse mode: the rows of rules/math.c (J0' = -J1,
 * J1' = (J0 - J2)/2, Jn' = (J(n-1) - J(n+1))/2, Y alike) as adjoints
 * (the float spellings: tests/programs/math_bessel.c) */
#include <math.h>
#include "rev_check.h"
static double libm_bessel(double *x, int n) {
  (void)n;
  return j0(x[0]) * j1(x[1]) + jn(3, x[2]) + y0(x[3]) - 0.5 * y1(x[0]) +
         yn(2, x[1] + x[3]);
}
RC_ARRAY_TEST(libm_bessel, 4, 0.9, 2.3, 4.1, 1.3)
