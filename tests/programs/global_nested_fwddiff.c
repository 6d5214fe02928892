/* Higher order through an active global: the first-order derivative of f
 * stores tangents into g's shadow global, and the second-order request
 * differentiates that code, so the shadow global (made by the transform
 * itself, not in the module as loaded) becomes active in turn; third order
 * does the same one level deeper.  Discovery must find those made globals
 * too, or the final transform meets them as new. */
#include "enzyme.h"
#include "tangent_check.h"

double g;

__attribute__((noinline)) static double f(double x) { /* x^3 */
  g = x * x;
  return g * x;
}
__attribute__((noinline)) static double df(double x) {
  return __enzyme_fwddiff((void *)f, x, 1.0);
}
__attribute__((noinline)) static double ddf(double x) {
  return __enzyme_fwddiff((void *)df, x, 1.0);
}

int main(void) {
  const double x = 1.5;
  long double lx = x;
  check_tangent("f'", df(x), 3 * lx * lx);
  check_primal_out("g after f'", g, lx * lx);
  check_tangent("f''", __enzyme_fwddiff((void *)df, x, 1.0), 6 * lx);
  check_tangent("f''' ", __enzyme_fwddiff((void *)ddf, x, 1.0), 6.0L);
  check_primal_out("g after f'''", g, lx * lx);
  return tc_finish("global_nested_fwddiff");
}
