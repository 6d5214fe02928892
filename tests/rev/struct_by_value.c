#include "rev_check.h"
typedef struct pair {
  double a, b;
} pair;
__attribute__((noinline)) static pair rotate(pair p, double t) {
  pair r = {p.a * t - p.b * (1 - t), p.a * (1 - t) + p.b * t};
  return r;
}
__attribute__((noinline)) static double norm2(pair p) { return p.a * p.a + p.b * p.b; }
static double struct_by_value(double *x, int n) {
  (void)n;
  pair p = {x[0], x[1]};
  p = rotate(p, x[2]);
  p = rotate(p, 0.3);
  return norm2(p) * x[2];
}
RC_ARRAY_TEST(struct_by_value, 3, 0.5, -1.0, 0.7)
