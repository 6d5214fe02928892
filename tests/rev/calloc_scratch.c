#include <stdlib.h>
#include "rev_check.h"
static double calloc_scratch(double *x, int n) {
  double *acc = calloc(3, sizeof *acc);
  for (int i = 0; i < n; i++)
    acc[i % 3] += x[i] * x[i] * (i + 1);
  double r = acc[0] * acc[1] + acc[2];
  free(acc);
  return r;
}
RC_ARRAY_TEST(calloc_scratch, 7, 0.5, -1.0, 1.5, 0.75, 2.0, -0.5, 0.1)
