/* Results through output parameters: a void function writes two doubles
 * through a pointer; the tangents arrive in the shadow of that pointer. */
#include "enzyme.h"
#include "tangent_check.h"

void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

void polar_to_cartesian(double r, double theta, double *out) {
  out[0] = r * cos(theta);
  out[1] = r * sin(theta);
}

int main(void) {
  const double r = 2.5, theta = 0.7, dr = 0.3, dtheta = -1.2;
  double out[2] = {0, 0}, dout[2] = {123.0, 456.0};
  __enzyme_fwddiff_void((void *)polar_to_cartesian, r, dr, theta, dtheta,
                        enzyme_dup, out, dout);
  check_primal_out("x", out[0], r * cosl(theta));
  check_primal_out("y", out[1], r * sinl(theta));
  check_tangent("dx", dout[0], dr * cosl(theta) - r * sinl(theta) * dtheta);
  check_tangent("dy", dout[1], dr * sinl(theta) + r * cosl(theta) * dtheta);
  /* The discarded-double idiom for a void function works the same way. */
  double out2[2], dout2[2];
  __enzyme_fwddiff((void *)polar_to_cartesian, r, 1.0, theta, 0.0, enzyme_dup,
                   out2, dout2);
  check_tangent("dx/dr", dout2[0], cosl(theta));
  check_tangent("dy/dr", dout2[1], sinl(theta));
  return tc_finish("out_param");
}
