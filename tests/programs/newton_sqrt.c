/* Newton's iteration for sqrt(a) with a data-dependent stopping test: the
 * derivative is taken through the iterations (converged: 1/(2 sqrt a)). */
#include "enzyme.h"
#include "tangent_check.h"

double newton_sqrt(double a) {
  double x = a > 1 ? a : 1.0;
  for (int i = 0; i < 100; i++) {
    double next = 0.5 * (x + a / x);
    if (fabs(next - x) < 1e-15 * next) {
      x = next;
      break;
    }
    x = next;
  }
  return x;
}

int main(void) {
  const double as[] = {0.01, 2.0, 1e4};
  for (int i = 0; i < 3; i++) {
    /* Newton's tangent converges to the true derivative as fast as x does. */
    tc_tangent("d sqrt", __enzyme_fwddiff((void *)newton_sqrt, as[i], 1.0),
               0.5L / sqrtl(as[i]), 1e-9L, 1e-12L);
    check_primal("sqrt", newton_sqrt(as[i]), sqrtl(as[i]));
  }
  return tc_finish("newton_sqrt");
}
