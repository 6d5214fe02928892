/* posix_memalign and aligned_alloc scratch buffers: shadows as aligned as
 * the primal blocks (the vectorizer's aligned accesses touch both). */
#define _POSIX_C_SOURCE 200112L
#include <stdlib.h>
#include "rev_check.h"
static double aligned_scratch(double *x, int n) {
  double *a = NULL;
  if (posix_memalign((void **)&a, 64, (size_t)n * sizeof *a) != 0)
    return 0;
  double *b = aligned_alloc(32, 64 * sizeof *b);
  for (int i = 0; i < n; i++) {
    a[i] = x[i] * x[i];
    b[i] = a[i] + x[(i + 1) % n];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[(i + 2) % n];
  free(a);
  free(b);
  return s;
}
RC_ARRAY_TEST(aligned_scratch, 6, 0.5, -1.0, 1.5, 0.75, 2.0, -0.25)
