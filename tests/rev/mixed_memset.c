#include <string.h>
#include "rev_check.h"
/* memset over structs mixing doubles, a float, an int and a pointer, with
 * a length known at run time (two of them): the float members' adjoints
 * die there (their seeds too), the other members' shadows are set as the
 * primal bytes are. */
struct acc {
  double sum;
  float scale;
  int count;
  double *out;
  double extra[2];
};

__attribute__((noinline)) static double total(const struct acc *a) {
  return a->sum * a->scale + a->extra[0] * a->extra[1] + *a->out * a->count;
}

static double mixed_memset(double *x, int n) {
  struct acc a[2];
  for (int i = 0; i < 2; i++) {
    a[i].sum = x[i] * x[i + 1];
    a[i].scale = (float)x[i + 2];
    a[i].count = n + i;
    a[i].out = &x[3 + i];
    a[i].extra[0] = x[4 - i] * x[0];
    a[i].extra[1] = x[1 + i];
  }
  double before = total(&a[0]) + total(&a[1]) * x[2];
  memset(a, 0, (size_t)(n - 3) * sizeof *a);
  a[0].sum += x[2] * before;
  a[1].extra[1] += x[0] * a[1].sum;
  a[1].out = &x[4];
  *a[1].out = a[0].sum * a[1].extra[1] + a[0].extra[0];
  return a[0].sum * before + a[1].sum;
}

RC_ARRAY_RUN(run_memset, mixed_memset, 5)

int main(void) {
  double x0[5] = {0.5, -1.25, 1.5, 0.75, 2.0}, x[5], dx[5];
  long double p[5], got[5];
  for (int i = 0; i < 5; i++)
    x[i] = x0[i], p[i] = x0[i];
  rc_seed(dx, 5);
  __enzyme_autodiff((void *)mixed_memset, enzyme_dup, x, dx, enzyme_const, 5);
  for (int i = 0; i < 5; i++)
    got[i] = dx[i];
  rc_check_tol("mixed_memset", run_memset, p, got, 5, 1e-4L, 1e-4L);
  return rc_result();
}
