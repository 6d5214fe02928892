/* Calls through function pointers inside the differentiated code: a table
 * of smooth functions indexed at run time (an indirect call whose target is
 * known only when it runs), and a callback passed as an argument. */
#include "enzyme.h"
#include "tangent_check.h"

static double square(double x) { return x * x; }
static double wave(double x) { return sin(3.0 * x); }
static double bump(double x) { return exp(-x * x); }

typedef double (*unary)(double);
static unary const table[3] = {square, wave, bump};

double apply_table(double x, int which) { return table[which](x) + x; }

double apply_twice(unary f, double x) { return f(f(x)); }

static int which;
static double along_table(double t, void *ctx) {
  return apply_table(*(double *)ctx + t, which);
}
static double along_twice(double t, void *ctx) {
  return apply_twice(wave, *(double *)ctx + t);
}

int main(void) {
  const double x = 0.45;
  long double lx = x;
  long double want[3] = {2 * lx + 1, 3 * cosl(3 * lx) + 1,
                         -2 * lx * expl(-lx * lx) + 1};
  for (int k = 0; k < 3; k++) {
    which = k;
    check_reference("table analytic", want[k],
                    fd_derivative(along_table, (void *)&x));
    check_tangent("table", __enzyme_fwddiff((void *)apply_table, x, 1.0,
                                            enzyme_const, k),
                  want[k]);
  }
  /* (f o f)'(x) = f'(f(x)) f'(x); the callback is a constant argument. */
  long double w = sinl(3 * lx);
  check_reference("callback analytic", 3 * cosl(3 * w) * 3 * cosl(3 * lx),
                  fd_derivative(along_twice, (void *)&x));
  check_tangent("callback", __enzyme_fwddiff((void *)apply_twice, enzyme_const,
                                             wave, x, 1.0),
                3 * cosl(3 * w) * 3 * cosl(3 * lx));
  return tc_finish("function_pointer");
}
