#include "rev_check.h"
__attribute__((noinline)) static void fill(double *t, const double *x, int n) {
  for (int i = 0; i < n; i++)
    t[i] = x[i] * (i + 1) + (i ? t[i - 1] : 0.0);
}
static double stack_array(double *x, int n) {
  double t[6];
  fill(t, x, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[i];
  return s;
}
RC_ARRAY_TEST(stack_array, 6, 0.5, -1.0, 1.5, 0.75, 2.0, 0.1)
