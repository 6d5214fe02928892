/* fdim(x, y) = x - y above y, else +0, and logb (piecewise constant). */
#include <math.h>
#include "enzyme.h"
#include "tangent_check.h"
double f(double x, double y) { return fdim(x * x, y) + logb(x); }
int main(void) {
  check_tangent("fdim above", __enzyme_fwddiff((void *)f, 3.0, 1.0, 2.0, 0.5), 6.0L - 0.5L);
  check_tangent("fdim below", __enzyme_fwddiff((void *)f, 1.0, 1.0, 2.0, 0.5), 0.0L);
  return tc_finish("math_fdim_logb");
}
