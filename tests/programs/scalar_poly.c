/* A polynomial in one double, by Horner's rule: the simplest request, a
 * double in and a double out with no marker (duplicated by default). */
#include "enzyme.h"
#include "tangent_check.h"

static const double coeff[] = {1.5, -2.0, 0.25, 3.0, -0.5};

double poly(double x) {
  double acc = 0.0;
  for (int i = 4; i >= 0; i--)
    acc = acc * x + coeff[i];
  return acc;
}

static long double dpoly_exact(long double x) {
  return -2.0L + 2 * 0.25L * x + 3 * 3.0L * x * x - 4 * 0.5L * x * x * x;
}

static double along(double t, void *ctx) { return poly(*(double *)ctx + t); }

int main(void) {
  const double points[] = {-1.5, 0.0, 0.3, 2.0};
  for (int i = 0; i < 4; i++) {
    double x = points[i];
    check_reference("dpoly", dpoly_exact(x), fd_derivative(along, &x));
    check_tangent("dpoly/dx", __enzyme_fwddiff((void *)poly, x, 1.0),
                  dpoly_exact(x));
    check_tangent("dpoly/dx scaled seed",
                  __enzyme_fwddiff((void *)poly, x, -2.5),
                  -2.5L * dpoly_exact(x));
  }
  return tc_finish("scalar_poly");
}
