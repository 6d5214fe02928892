#include <string.h>
#include "rev_check.h"
static double memcpy_float(double *x, int n) {
  double t[8];
  memcpy(t, x, n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = t[i] * t[i];
  memmove(t + 1, t, (n - 1) * sizeof *t);
  memcpy(x, t, n * sizeof *t);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * (i + 1);
  return s;
}
RC_ARRAY_TEST(memcpy_float, 5, 0.5, -1.0, 1.5, 0.75, 2.0)
