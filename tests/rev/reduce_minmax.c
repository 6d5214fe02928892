/* Vector reductions (llvm.vector.reduce.fmax/fmin from clang's
 * __builtin_reduce_max/min) and fmax/fmin, with their ties: a reduction
 * gives the adjoint to the first lane equal to the result (the lane whose
 * tangent forward mode takes); fmax(x, y) and fmin(x, y) decide by x < y,
 * Enzyme's rule for llvm.maxnum/minnum, so a tie goes to x for fmax and
 * to y for fmin. */
#include "rev_check.h"
typedef double v4 __attribute__((ext_vector_type(4)));
static double reduce_minmax(double *x, int n) {
  (void)n;
  v4 a = {x[0], x[1], x[2], x[3]};
  v4 b = a * a + a;
  return __builtin_reduce_max(b) * 2 + __builtin_reduce_min(a * 3.0) +
         fmax(x[0], x[1]) * x[2] + fmin(x[2], x[3]);
}
static double ties(double *x) {
  v4 a = {x[0], x[1], x[2], x[3]};
  return __builtin_reduce_max(a) + 2 * fmax(x[1], x[2]) +
         4 * fmin(x[3], x[3] * 1.0) + 8 * fmin(x[0], x[3]);
}
RC_ARRAY_RUN(run_minmax, reduce_minmax, 4)
int main(void) {
  double x0[4] = {0.5, -1.25, 1.5, 0.75}, x[4], dx[4];
  long double p[4], got[4];
  for (int i = 0; i < 4; i++)
    x[i] = x0[i], p[i] = x0[i];
  rc_seed(dx, 4);
  __enzyme_autodiff((void *)reduce_minmax, enzyme_dup, x, dx, enzyme_const, 4);
  for (int i = 0; i < 4; i++)
    got[i] = dx[i];
  rc_check("reduce_minmax", run_minmax, p, got, 4);
  /* ties: x1 = x2 = 1.5 is the maximum of the lanes (lane 1 first) and
   * the tie of fmax (argument 0, x1, chosen); x3 ties with itself, and
   * with x0 in fmin (argument 1, x3, chosen) */
  double t[4] = {0.5, 1.5, 1.5, 0.5}, dt[4] = {0, 0, 0, 0};
  __enzyme_autodiff((void *)ties, enzyme_dup, t, dt);
  rc_expect("tie lane 0", dt[0], 0, 0);
  rc_expect("tie lane 1", dt[1], 1 + 2, 0);
  rc_expect("tie lane 2", dt[2], 0, 0);
  rc_expect("tie lane 3", dt[3], 4 + 8, 0);
  return rc_result();
}
