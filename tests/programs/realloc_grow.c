/* A buffer that grows with realloc while it is filled with active values:
 * the shadow buffer must grow alongside and keep the tangents written before
 * each move. */
#include <stdlib.h>

#include "enzyme.h"
#include "tangent_check.h"

double grow_and_sum(double x, int n) {
  int cap = 1;
  double *buf = malloc(sizeof(double) * cap);
  for (int i = 0; i < n; i++) {
    if (i == cap) {
      cap *= 2;
      buf = realloc(buf, sizeof(double) * cap);
    }
    buf[i] = sin(x * (i + 1));
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += buf[i] / (i + 1);
  free(buf);
  return s;
}

struct point { double x; int n; };
static double along(double t, void *ctx) {
  struct point *p = ctx;
  return grow_and_sum(p->x + t, p->n);
}

int main(void) {
  const double x = 0.37;
  const int counts[] = {1, 2, 9, 33};
  for (int c = 0; c < 4; c++) {
    int n = counts[c];
    long double want = 0;
    for (int i = 0; i < n; i++)
      want += cosl((long double)x * (i + 1));
    struct point p = {x, n};
    check_reference("analytic", want, fd_derivative(along, &p));
    check_tangent("d/dx", __enzyme_fwddiff((void *)grow_and_sum, x, 1.0,
                                           enzyme_const, n),
                  want);
  }
  return tc_finish("realloc_grow");
}
