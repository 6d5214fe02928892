/* A copy whose destination is chosen at run time: a fresh buffer, or a
 * buffer the caller passed as enzyme_const.  The constant buffer's shadow is
 * the buffer itself (an inactive pointer stored into a shadowed slot), so
 * the copy's tangent work must not land in it: the user's data stays
 * intact.  (Its tangent is lost, as under Enzyme's runtime activity: active
 * data written into memory declared constant.) */
#include <stdlib.h>
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

double f(const double *x, double *cbuf, int use_own, long n) {
  size_t bytes = n * sizeof(double);
  double **slot = malloc(sizeof *slot);
  double *own = 0;
  if (use_own) {
    own = malloc(bytes);
    *slot = own;
  } else {
    *slot = cbuf;
  }
  memcpy(*slot, x, bytes);
  double *y = malloc(bytes);
  memcpy(y, *slot, bytes);
  free(own);
  free(slot);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += (i + 1) * y[i] * y[i];
  free(y);
  return s;
}

#define N 3
int main(void) {
  double x[N] = {1.5, -2.0, 0.25}, d[N], cbuf[N] = {0};
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      d[i] = i == j;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, d, enzyme_const, cbuf,
                                enzyme_const, 1, enzyme_const, (long)N);
    check_tangent("own buffer", t, 2.0L * (j + 1) * x[j]);
    __enzyme_fwddiff((void *)f, enzyme_dup, x, d, enzyme_const, cbuf,
                     enzyme_const, 0, enzyme_const, (long)N);
    for (int i = 0; i < N; i++)
      check_primal("constant buffer keeps the primal", cbuf[i], x[i]);
  }
  return tc_finish("copy_into_const_buffer");
}
