/* A product reduction: under libomp's atomic method clang combines it
 * with a compare-and-swap loop, which has no reverse; refused naming the
 * reduction and its line. */
#include "rev_check.h"
static double err_omp_reduce_mul(double *x, int n) {
  double p = 1;
#pragma omp parallel for reduction(* : p)
  for (int i = 0; i < n; i++)
    p *= 1 + 0.1 * x[i];
  return p;
}
RC_ARRAY_TEST(err_omp_reduce_mul, 5, 0.4, -1.0, 1.5, 0.75, 2.0)
