/* C99 complex arithmetic and <complex.h> functions in reverse: products
 * and quotients (__muldc3/__divdc3 at -O0, their slow path above), cexp,
 * csqrt, clog, cpow, csin, cabs, carg, creal/cimag. */
#include <complex.h>
#include "rev_check.h"
static double complex_fns(double *x, int n) {
  (void)n;
  double complex z = x[0] + x[1] * I, w = x[2] + x[3] * I;
  double complex p = z * w;
  double complex q = z / w;
  double complex e = cexp(z * 0.5);
  double complex r = csqrt(w) + clog(z) + cpow(z, w * 0.25) + csin(w * 0.3);
  return cabs(p) + creal(q) * cimag(q) + carg(e + r) + cabs(r) + creal(e);
}
RC_ARRAY_TEST(complex_fns, 4, 0.5, -1.0, 1.5, 0.75)
