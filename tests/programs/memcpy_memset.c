/* memcpy, memmove and memset of active doubles inside the differentiated
 * code: tangents must follow the copies, and memset must zero them. */
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

double shuffle_sum(const double *x, int n) {
  double buf[16];
  memset(buf, 0, sizeof buf);
  memcpy(buf + 2, x, sizeof(double) * n);     /* buf[2..n+1] = x */
  memmove(buf + 3, buf + 2, sizeof(double) * n); /* overlapping shift */
  memset(buf + 3, 0, sizeof(double));         /* kills x[0]'s copy */
  double s = 0.0;
  for (int i = 0; i < 16; i++)
    s += (i + 1) * buf[i] * buf[i];
  return s;
}

#define N 5
static const double x0[N] = {1.0, 2.0, -0.5, 0.25, 3.0};
static const double dir[N] = {0.3, -1.0, 2.0, 1.0, 0.5};

static double along(double t, void *ctx) {
  (void)ctx;
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i] + t * dir[i];
  return shuffle_sum(x, N);
}

int main(void) {
  double x[N], dx[N];
  memcpy(x, x0, sizeof x);
  memcpy(dx, dir, sizeof dx);
  /* After the moves: buf[2] = x0, buf[3] = 0, buf[4+j] = x[j+1]. */
  long double want = 2.0L * 3 * x0[0] * dir[0];
  for (int j = 1; j < N; j++)
    want += 2.0L * (4 + j) * x0[j] * dir[j];
  check_reference("analytic", want, fd_derivative(along, NULL));
  check_tangent("directional", __enzyme_fwddiff((void *)shuffle_sum, enzyme_dup,
                                                x, dx, enzyme_const, N),
                want);
  return tc_finish("memcpy_memset");
}
