/* f2c's static locals (cminpack's ssqfcn.c): a mutable static of this
 * file, written with active values by code another file differentiates. */
#include <math.h>
void residuals(int m, const double *x, double *fvec) {
  static double tmp1;
  for (int i = 0; i < m; ++i) {
    tmp1 = exp(-x[0] * i);
    fvec[i] = x[1] * tmp1;
  }
}
