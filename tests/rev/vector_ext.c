#include "rev_check.h"
typedef double v2 __attribute__((vector_size(16)));
static double vector_ext(double *x, int n) {
  (void)n;
  v2 a = {x[0], x[1]}, b = {x[2], x[3]};
  v2 c = a * b + a / (b + 2.0) - a * a;
  v2 d = __builtin_shufflevector(c, a, 1, 2);
  return c[0] * c[1] + d[0] - d[1] * 3.0;
}
RC_ARRAY_TEST(vector_ext, 4, 0.5, 1.0, -0.5, 1.5)
