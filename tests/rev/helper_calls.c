#include <math.h>
#include "rev_check.h"
__attribute__((noinline)) static double sq(double a) { return a * a; }
__attribute__((noinline)) static double blend(double a, double b, double t) {
  return (1 - t) * a + t * sq(b);
}
__attribute__((noinline)) static void scale(double *p, double k) { *p *= k; }
static double helper_calls(double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++)
    s += blend(x[i], x[i + 1], 0.25) * sq(x[i]);
  scale(&x[0], s);
  return s + sq(s) * 0.01 + blend(s, x[1], x[2]);
}
RC_ARRAY_TEST(helper_calls, 4, 0.5, -1.0, 0.3, 0.7)
