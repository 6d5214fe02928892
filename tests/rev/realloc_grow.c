/* realloc: a buffer grown one element at a time from NULL (Enzyme's
 * forrealloc shape), then by a large step (glibc moves a block grown this
 * much), then shrunk: what was written before each move keeps its
 * adjoint, and the kept bytes after the shrink too. */
#include <stdlib.h>
#include "rev_check.h"
static double realloc_grow(double *x, int n) {
  double *t = NULL;
  for (int i = 0; i < n; i++) {
    t = realloc(t, (size_t)(i + 1) * sizeof *t);
    t[i] = x[i] * x[(i + 1) % n];
  }
  t = realloc(t, 100000 * sizeof *t);
  for (int i = 0; i < n; i++)
    t[n + i] = t[i] * t[i];
  t = realloc(t, (size_t)(2 * n) * sizeof *t);
  double s = 0;
  for (int i = 0; i < 2 * n; i++)
    s += sin(t[i]) * (i + 1);
  free(t);
  return s;
}
RC_ARRAY_TEST(realloc_grow, 5, 0.5, -1.0, 1.5, 0.75, 2.0)
