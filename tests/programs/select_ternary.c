/* Ternaries and branch-free selects on active values (clang emits `select`
 * at -O2, branches and phis at -O0): the tangent follows the chosen value. */
#include "enzyme.h"
#include "tangent_check.h"

double huber(double x, double delta) {
  double a = x < 0 ? -x : x;
  return a <= delta ? 0.5 * x * x : delta * (a - 0.5 * delta);
}

double clamp_blend(double x, double lo, double hi) {
  double c = x < lo ? lo : (x > hi ? hi : x);
  return c * x;
}

int main(void) {
  const double delta = 1.0;
  check_tangent("huber quadratic", __enzyme_fwddiff((void *)huber, 0.4, 1.0,
                                                    enzyme_const, delta),
                0.4L);
  check_tangent("huber linear +", __enzyme_fwddiff((void *)huber, 2.5, 1.0,
                                                   enzyme_const, delta),
                1.0L);
  check_tangent("huber linear -", __enzyme_fwddiff((void *)huber, -3.0, 1.0,
                                                   enzyme_const, delta),
                -1.0L);
  /* d(delta): the linear arm depends on it, a - delta. */
  check_tangent("huber d/ddelta",
                __enzyme_fwddiff((void *)huber, enzyme_const, 2.5, delta, 1.0),
                2.5L - 1.0L);
  /* Inside the clamp c = x: d(x^2) = 2x; below it c = lo: d = lo + x dlo. */
  check_tangent("clamp inside", __enzyme_fwddiff((void *)clamp_blend, 0.5, 1.0,
                                                 -1.0, 0.0, 1.0, 0.0),
                1.0L);
  check_tangent("clamp low", __enzyme_fwddiff((void *)clamp_blend, -2.0, 1.0,
                                              -1.0, 3.0, 1.0, 0.0),
                -1.0L + -2.0L * 3.0L);
  check_tangent("clamp high", __enzyme_fwddiff((void *)clamp_blend, 4.0, 0.5,
                                               -1.0, 0.0, 1.0, 2.0),
                0.5L * 1.0L + 4.0L * 2.0L);
  return tc_finish("select_ternary");
}
