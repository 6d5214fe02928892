#include "rev_check.h"
/* a chain of callees, each called more than once */
__attribute__((noinline)) static double l3(double a, double *p) { return a * *p + *p; }
__attribute__((noinline)) static double l2(double a, double *p) { return l3(a, p) * l3(a * a, p + 1); }
__attribute__((noinline)) static double l1(double *p) { return l2(p[0], p + 1) + l2(p[1], p); }
static double deep_calls(double *x, int n) {
  (void)n;
  double s = l1(x) + l1(x + 1);
  x[0] = s * x[2];
  return s;
}
RC_ARRAY_TEST(deep_calls, 4, 0.5, 1.0, -0.5, 1.5)
