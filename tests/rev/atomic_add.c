/* atomicrmw fadd/fsub on active memory: the accumulator's adjoint flows to
 * every added value, the old value an atomic returns has an adjoint of
 * its own, and an atomic update in place of a duplicated buffer. */
#include "rev_check.h"
static double atomic_add(double *x, int n) {
  double acc = 0;
  for (int i = 0; i < n - 1; i++)
    __atomic_fetch_add(&acc, x[i] * x[i], __ATOMIC_RELAXED);
  double old = __atomic_fetch_sub(&acc, x[0] * 0.5, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&x[n - 1], x[0] * x[1], __ATOMIC_RELAXED);
  return acc * 2 + old * x[1] + x[n - 1] * x[2];
}
RC_ARRAY_TEST(atomic_add, 5, 0.5, -1.0, 1.5, 0.75, 2.0)
