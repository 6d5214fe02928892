/* Vector forward mode, width 4, scalar result: four tangents are 32 bytes,
 * so the C ABI returns them through a hidden sret pointer that the request
 * receives as its first argument. */
#include "enzyme.h"
#include "tangent_check.h"

typedef struct {
  double d[4];
} tangents4;
tangents4 __enzyme_fwddiff_w4(void *, ...) asm("__enzyme_fwddiff");

double cubic_form(double a, double b) { return a * a * b + b * b * b / 3.0; }

int main(void) {
  const double a = 1.5, b = -0.5;
  long double da = 2.0L * a * b, db = (long double)a * a + (long double)b * b;
  tangents4 t = __enzyme_fwddiff_w4((void *)cubic_form, enzyme_width, 4, a, 1.0,
                                    0.0, 1.0, 2.0, b, 0.0, 1.0, 1.0, -3.0);
  check_tangent("lane 0", t.d[0], da);
  check_tangent("lane 1", t.d[1], db);
  check_tangent("lane 2", t.d[2], da + db);
  check_tangent("lane 3", t.d[3], 2 * da - 3 * db);
  return tc_finish("width4_sret");
}
