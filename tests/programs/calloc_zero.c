/* calloc'd scratch starts at zero; entries never written must have zero
 * tangent too (the shadow must be zeroed, not left uninitialised). */
#include <stdlib.h>

#include "enzyme.h"
#include "tangent_check.h"

double sparse_fill(double x, int n) {
  double *v = calloc(n, sizeof(double));
  for (int i = 0; i < n; i += 3)
    v[i] = x * x * (i + 1);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += v[i] + 1.0;
  free(v);
  return s;
}

int main(void) {
  const double x = 1.3;
  /* Large enough that calloc gets fresh, possibly recycled, memory. */
  const int n = 4000;
  long double want = 0;
  for (int i = 0; i < n; i += 3)
    want += 2.0L * x * (i + 1);
  /* Dirty the heap first so an uninitialised shadow would likely be
   * garbage. */
  for (int k = 0; k < 4; k++) {
    double *junk = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
      junk[i] = 1e30;
    free(junk);
    check_tangent("d/dx", __enzyme_fwddiff((void *)sparse_fill, x, 1.0,
                                           enzyme_const, n),
                  want);
  }
  check_primal("primal", sparse_fill(x, 6), 6 + x * x * (1 + 4));
  return tc_finish("calloc_zero");
}
