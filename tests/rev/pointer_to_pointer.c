#include "rev_check.h"
/* rows reached through an array of pointers built inside */
static double pointer_to_pointer(double *x, int n) {
  double *rows[3];
  for (int i = 0; i < 3; i++)
    rows[i] = x + 2 * i;
  double **r = rows;
  double s = 0;
  for (int i = 0; i < 3; i++)
    s += r[i][0] * r[(i + 1) % 3][1];
  (void)n;
  return s;
}
RC_ARRAY_TEST(pointer_to_pointer, 6, 0.5, 1.0, -2.5, 1.0, 0.3, 0.7)
