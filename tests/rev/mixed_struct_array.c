#include <string.h>
#include "rev_check.h"
/* An array of structs mixing a double, an int, a float and a pointer into
 * active memory, copied with a length known only at run time: the copy's
 * layout repeats every element (24 bytes), walked once per element. */
struct item {
  double v;
  int k;
  float w;
  const double *ref;
};

static double mixed_struct_array(double *x, int n) {
  struct item a[4], b[4];
  int m = n - 2; /* 4 elements, at run time */
  for (int i = 0; i < m; i++) {
    a[i].v = x[i] * x[i + 1];
    a[i].k = i + 1;
    a[i].w = (float)x[(i + 2) % n];
    a[i].ref = &x[(i + 3) % n];
  }
  memcpy(b, a, (size_t)m * sizeof *a);
  double s = 0;
  for (int i = 0; i < m; i++) {
    s += b[i].v * b[i].k + b[i].w * *b[i].ref;
    a[i].v = 0; /* the source changes after the copy: b keeps its values */
  }
  x[0] = b[m - 1].v * b[0].w;
  return s + a[1].v;
}

RC_ARRAY_RUN(run_array, mixed_struct_array, 6)

int main(void) {
  double x0[6] = {0.5, -1.25, 1.5, 0.75, 2.0, -0.3}, x[6], dx[6];
  long double p[6], got[6];
  for (int i = 0; i < 6; i++)
    x[i] = x0[i], p[i] = x0[i];
  rc_seed(dx, 6);
  __enzyme_autodiff((void *)mixed_struct_array, enzyme_dup, x, dx,
                    enzyme_const, 6);
  for (int i = 0; i < 6; i++)
    got[i] = dx[i];
  rc_check_tol("mixed_struct_array", run_array, p, got, 6, 1e-4L, 1e-4L);
  return rc_result();
}
