/* Second order where the function holding the inner request is reached from
 * the outer request's function through a function pointer: the inner
 * request must be rewritten first, as for a direct call, or the outer
 * derivative meets a raw __enzyme_fwddiff call. */
#include "enzyme.h"
#include "tangent_check.h"

double f(double x) { return sin(x) * x * x; }
double df(double x) { return __enzyme_fwddiff((void *)f, x, 1.0); }

typedef double (*real_fn)(double);
double twice_through(real_fn g, double x) { return 2.0 * g(x); }

/* A table of pointers, chosen at run time. */
static real_fn const table[2] = {f, df};
double pick(int k, double x) { return table[k](x); }

int main(void) {
  const double xs[] = {0.9, -1.3};
  for (int i = 0; i < 2; i++) {
    long double x = xs[i];
    long double d1 = cosl(x) * x * x + 2 * x * sinl(x);
    long double d2 = -sinl(x) * x * x + 4 * x * cosl(x) + 2 * sinl(x);
    check_tangent("d/dx 2 f'(x) via pointer",
                  __enzyme_fwddiff((void *)twice_through, enzyme_const,
                                   (real_fn)df, xs[i], 1.0),
                  2 * d2);
    check_tangent("d/dx table[1] = f''",
                  __enzyme_fwddiff((void *)pick, enzyme_const, 1, xs[i], 1.0),
                  d2);
    check_tangent("d/dx table[0] = f'",
                  __enzyme_fwddiff((void *)pick, enzyme_const, 0, xs[i], 1.0),
                  d1);
  }
  return tc_finish("nested_through_pointer");
}
