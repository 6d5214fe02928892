/*
 * Enzyme ForwardMode/div_range.c: the tangent of x / y must not square y,
 * which overflows for |y| > ~1e154 (underflows below ~1e-154) and, under
 * nested forward mode, squares again at each level.
 */
#include "enzyme_compat.h"

double f(double x, double y) { return x / y; }

double dfdx(double x, double y) {
  return __enzyme_fwddiff((void *)f, x, 1.0, y, 0.0);
}

double dfdy(double x, double y) {
  return __enzyme_fwddiff((void *)f, x, 0.0, y, 1.0);
}

/* 2 x / y^3 */
double d2fdy2(double x, double y) {
  return __enzyme_fwddiff((void *)dfdy, x, 0.0, y, 1.0);
}

/* -1 / y^2 */
double d2fdxdy(double x, double y) {
  return __enzyme_fwddiff((void *)dfdx, x, 0.0, y, 1.0);
}

int main(void) {
  double y = 1e160;
  APPROX_EQ(dfdx(2.0, y) * y, 1.0, 1e-12);
  APPROX_EQ(dfdy(y, y) * y, -1.0, 1e-12);

  y = 1e-160;
  APPROX_EQ(dfdx(2.0, y) * y, 1.0, 1e-12);

  y = 1e80;
  APPROX_EQ(d2fdy2(1.0, y) * (y * y) * y, 2.0, 1e-12);
  APPROX_EQ(d2fdxdy(1.0, y) * y * y, -1.0, 1e-12);
  return enzyme_compat_result();
}
