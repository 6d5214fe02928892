#include <math.h>
#include "rev_check.h"
/* three bodies in the plane: potential energy plus a step's kinetic term */
static double nbody(double *x, int n) {
  (void)n;
  double e = 0;
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++) {
      double dx = x[2 * i] - x[2 * j], dy = x[2 * i + 1] - x[2 * j + 1];
      e -= 1.0 / sqrt(dx * dx + dy * dy + 0.01);
    }
  return e;
}
RC_ARRAY_TEST(nbody, 6, 0, 0, 1.0, 0.2, -0.3, 0.9)
