/* A global pointer initialized to another global's address: storing an
 * active value through it makes the pointer global active, and its shadow
 * must point to the target's shadow, never to the target itself (the
 * tangent would overwrite the primal).  Also through a callee, a pointer
 * chain (pp -> p -> g), and a second-order request over it. */
#include "enzyme.h"
#include "tangent_check.h"

double g, h;
double *p = &g;
double **pp = &p;
double scale;

double store_through(double x) { /* x^2 */
  *p = x;
  return *p * x;
}

__attribute__((noinline)) double read_both(void) { return *p * scale; }
double store_then_call(double x) { /* x^2 */
  *p = x;
  scale = x;
  return read_both();
}

double through_chain(double x) { /* x^3 */
  **pp = x * x;
  return g * x;
}

__attribute__((noinline)) double d_store_then_call(double x) {
  return __enzyme_fwddiff((void *)store_then_call, x, 1.0);
}

int main(void) {
  const double x = 3.0;
  check_tangent("store through a global pointer",
                __enzyme_fwddiff((void *)store_through, x, 1.0), 2 * x);
  check_primal_out("g", g, x);
  check_tangent("callee reads through the pointer",
                __enzyme_fwddiff((void *)store_then_call, x, 1.0), 2 * x);
  check_tangent("pointer to pointer to global",
                __enzyme_fwddiff((void *)through_chain, x, 1.0), 3 * x * x);
  check_primal_out("g after chain", g, x * x);
  check_tangent("second order through the pointer",
                __enzyme_fwddiff((void *)d_store_then_call, x, 1.0), 2.0L);
  return tc_finish("global_pointer_to_global");
}
