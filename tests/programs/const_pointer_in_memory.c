/* An enzyme_const pointer stored into memory that has a shadow, next to a
 * duplicated one (a Julia tuple or closure mixing Const and Duplicated
 * arrays, a C table of pointers): the shadow slot holds the constant
 * pointer itself, so a pointer loaded back may be its own shadow.  Reads
 * through it must give a zero tangent, and writes must leave the constant
 * data with the primal's value, never a tangent. */
#include "enzyme.h"
#include "tangent_check.h"

__attribute__((noinline)) void keep(void **slots, double *x, double *c) {
  slots[0] = x;
  slots[1] = c;
}
__attribute__((noinline)) double product(void *const *slots) {
  const double *x = slots[0], *c = slots[1];
  return *c * *x;
}
__attribute__((noinline)) void square_into_c(void *const *slots) {
  double *x = slots[0], *c = slots[1];
  *c = *x * *x;
}

double scaled(double *x, double *c) {
  void *slots[2];
  keep(slots, x, c);
  return product(slots);
}

double squared_into_const(double *x, double *c) {
  void *slots[2];
  keep(slots, x, c);
  square_into_c(slots);
  return *x * 3.0;
}

int main(void) {
  double x = 1.5, dx = 1.0, c = 2.0;
  check_tangent("c x, c const",
                __enzyme_fwddiff((void *)scaled, enzyme_dup, &x, &dx,
                                 enzyme_const, &c),
                2.0);
  check_primal("c untouched", c, 2.0);
  double c2 = 7.0;
  check_tangent("3x with c = x^2 written through the table",
                __enzyme_fwddiff((void *)squared_into_const, enzyme_dup, &x,
                                 &dx, enzyme_const, &c2),
                3.0);
  check_primal_out("c holds the primal x^2, not a tangent", c2, 2.25);
  check_primal("dx untouched", dx, 1.0);
  return tc_finish("const_pointer_in_memory");
}
