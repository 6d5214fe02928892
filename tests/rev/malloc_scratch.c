#include <stdlib.h>
#include "rev_check.h"
static double malloc_scratch(double *x, int n) {
  double *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[(i + 1) % n];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[(i + 2) % n];
  free(t);
  return s;
}
RC_ARRAY_TEST(malloc_scratch, 5, 0.5, -1.0, 1.5, 0.75, 2.0)
