/* A void call with no arguments to a function that squares a global the
 * caller made active: the call carries the derivative through the global. */
#include "enzyme.h"
#include "tangent_check.h"
double G;
__attribute__((noinline)) void bump(void) { G = G * G; }
double f(double x) { G = x; bump(); return G; }
static double along(double t, void *ctx) { return f(*(double *)ctx + t); }
int main(void) {
  double x = 1.5;
  check_reference("d(x^2)", 2 * x, fd_derivative(along, &x));
  check_tangent("d(x^2) through a void call", __enzyme_fwddiff((void *)f, x, 1.0), 2 * x);
  return tc_finish("global_void_callee");
}
