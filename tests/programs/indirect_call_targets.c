/* An indirect call dispatches on every function of its type whose address
 * is taken.  One of them cannot be differentiated (it sorts with qsort, a
 * libc call with no rule) but is never the target in a derivative: the
 * derivative through the others works, and only a call through it would
 * trap. */
#include <stdlib.h>

#include "enzyme.h"
#include "tangent_check.h"

typedef double (*real_fn)(double);

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
double median3(double x) {
  double v[3] = {x, 2 * x, 1.0};
  qsort(v, 3, sizeof *v, by_value);
  return v[1];
}
double cube(double x) { return x * x * x; }
double expo(double x) { return exp(x); }

double plus_x(real_fn g, double x) { return g(x) + x; }

real_fn volatile table[3] = {cube, median3, expo};

int main(void) {
  check_primal("median3 runs", table[1](0.3), 0.6);
  for (int k = 0; k < 3; k += 2) {
    double x = 0.5 + 0.25 * k;
    long double want = k == 0 ? 3.0L * x * x + 1 : expl(x) + 1;
    check_tangent("through the table",
                  __enzyme_fwddiff((void *)plus_x, enzyme_const, table[k], x,
                                   1.0),
                  want);
  }
  return tc_finish("indirect_call_targets");
}
