/* Vector forward mode, width 2, scalar arguments: each active scalar is
 * followed by two tangents and the result is a struct of two tangents
 * (returned in registers). */
#include "enzyme.h"
#include "tangent_check.h"

typedef struct {
  double d[2];
} tangents2;
tangents2 __enzyme_fwddiff_w2(void *, ...) asm("__enzyme_fwddiff");

double surface(double x, double y) { return x * y + sin(x) / (1.0 + y * y); }

int main(void) {
  const double x = 0.8, y = -1.4;
  long double lx = x, ly = y, q = 1 + ly * ly;
  long double dfdx = ly + cosl(lx) / q;
  long double dfdy = lx - sinl(lx) * 2 * ly / (q * q);
  /* Lane 0 seeds x, lane 1 seeds y: one call gives the gradient. */
  tangents2 g = __enzyme_fwddiff_w2((void *)surface, enzyme_width, 2, x, 1.0,
                                    0.0, y, 0.0, 1.0);
  check_tangent("lane 0 (d/dx)", g.d[0], dfdx);
  check_tangent("lane 1 (d/dy)", g.d[1], dfdy);
  /* Arbitrary directions per lane. */
  g = __enzyme_fwddiff_w2((void *)surface, enzyme_width, 2, x, 0.5, -2.0, y,
                          3.0, 0.25);
  check_tangent("lane 0 mixed", g.d[0], 0.5L * dfdx + 3.0L * dfdy);
  check_tangent("lane 1 mixed", g.d[1], -2.0L * dfdx + 0.25L * dfdy);
  return tc_finish("width2_return");
}
