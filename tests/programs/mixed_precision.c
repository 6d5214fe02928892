/* Conversions between float and double inside the differentiated code
 * (fpext, fptrunc) and an integer converted to double (sitofp, inactive). */
#include "enzyme.h"
#include "tangent_check.h"

double mixed(double x, int k) {
  float xf = (float)x;              /* fptrunc: the tangent is truncated too */
  float y = xf * xf + 1.0f;
  double z = (double)y * (double)k; /* fpext, and an inactive sitofp factor */
  return z + x * 0.5;
}

int main(void) {
  const double x = 1.25; /* exact in float, so the float path loses nothing */
  check_tangent("d/dx", __enzyme_fwddiff((void *)mixed, x, 1.0, enzyme_const, 3),
                2 * 1.25L * 3 + 0.5L);
  check_primal("primal", mixed(x, 3), (1.25L * 1.25L + 1) * 3 + 0.625L);
  return tc_finish("mixed_precision");
}
