/* A helper returns a struct of two fresh malloc'd buffers by value ({ptr,
 * ptr} in registers, insertvalue at -O1 and up; a struct copied through
 * memory at -O0), and the caller writes active values through both: the
 * returned aggregate demands both allocations' shadows (a pointer inside
 * a struct carries one: analysis/activity.c), in both modes.  Refused
 * before as a store through a pointer with no shadow.  Checked against
 * the analytic derivative. */
#include <stdlib.h>

#include "both_modes.h"

struct buffers {
  double *a, *b;
};

__attribute__((noinline)) static struct buffers make(int n) {
  struct buffers t = {malloc(n * sizeof(double)), malloc(n * sizeof(double))};
  return t;
}

__attribute__((noinline)) static double f(double x) {
  struct buffers t = make(4);
  t.a[0] = x * x;
  t.b[0] = sin(x);
  t.a[1] = t.a[0] * t.b[0];
  double r = t.a[1] + t.a[0];
  free(t.a);
  free(t.b);
  return r;
}

int main(void) {
  static const double xs[3] = {0.7, -1.3, 2.1};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    long double want = 2 * x * sinl(x) + (long double)x * x * cosl(x) + 2 * x;
    rc_expect("reverse", __enzyme_autodiff((void *)f, x), want, 1e-12L);
    rc_expect("forward", __enzyme_fwddiff((void *)f, x, 1.0), want, 1e-12L);
  }
  return rc_result();
}
