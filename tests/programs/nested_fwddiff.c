/* Second order: a function that itself requests a forward derivative,
 * differentiated again.  The inner request must be handled inside the
 * outer derivative (d/dx of f'(x) = f''(x)). */
#include "enzyme.h"
#include "tangent_check.h"

double f(double x) { return sin(x) * x * x; }

double df(double x) { return __enzyme_fwddiff((void *)f, x, 1.0); }

int main(void) {
  const double x = 0.9;
  long double lx = x;
  /* f' = cos x x^2 + 2x sin x; f'' = -sin x x^2 + 4x cos x + 2 sin x */
  check_tangent("f'", df(x), cosl(lx) * lx * lx + 2 * lx * sinl(lx));
  check_tangent("f''", __enzyme_fwddiff((void *)df, x, 1.0),
                -sinl(lx) * lx * lx + 4 * lx * cosl(lx) + 2 * sinl(lx));
  return tc_finish("nested_fwddiff");
}
