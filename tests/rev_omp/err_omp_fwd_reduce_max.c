/* Forward mode over a max reduction: under libomp's atomic method clang
 * combines it with a compare-and-swap loop; refused naming the reduction
 * and its line. */
#define RC_OWN_PROTOTYPE
#include <math.h>
#include "rev_check.h"
double __enzyme_fwddiff(void *, ...);
static double err_omp_fwd_reduce_max(double *x, int n) {
  double m = -1e300;
#pragma omp parallel for reduction(max : m)
  for (int i = 0; i < n; i++)
    m = fmax(m, x[i] * x[i]);
  return m;
}
int main(void) {
  double x[4] = {0.4, -1.0, 1.5, 0.75}, dx[4] = {1, 1, 1, 1};
  double d = __enzyme_fwddiff((void *)err_omp_fwd_reduce_max, enzyme_dup, x,
                              dx, enzyme_const, 4);
  return d != 3.0;
}
