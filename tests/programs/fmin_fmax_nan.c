/* C's fmax/fmin return the non-NaN argument (a missing value), so the
 * tangent is that argument's, whichever side the NaN is on. */
#include <math.h>

#include "enzyme.h"
#include "tangent_check.h"

double max_right_nan(double x, double y) { return fmax(2 * x, y); }
double min_right_nan(double x, double y) { return fmin(2 * x, y); }
double max_left_nan(double x, double y) { return fmax(y, 3 * x); }

int main(void) {
  const double nan = (double)NAN;
  check_tangent("fmax(2x, NaN)'", __enzyme_fwddiff((void *)max_right_nan, 0.5, 1.0, nan, 0.0), 2.0L);
  check_tangent("fmin(2x, NaN)'", __enzyme_fwddiff((void *)min_right_nan, 0.5, 1.0, nan, 0.0), 2.0L);
  check_tangent("fmax(2x, NaN)' with dy = 1",
                __enzyme_fwddiff((void *)max_right_nan, 0.5, 1.0, nan, 1.0), 2.0L);
  check_tangent("fmax(NaN, 3x)'", __enzyme_fwddiff((void *)max_left_nan, 0.5, 1.0, nan, 0.0), 3.0L);
  /* without NaN, the larger argument's tangent */
  check_tangent("fmax(2x, y)' at y > 2x",
                __enzyme_fwddiff((void *)max_right_nan, 0.5, 1.0, 4.0, 0.25), 0.25L);
  return tc_finish("fmin_fmax_nan");
}
