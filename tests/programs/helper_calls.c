/* Non-inlined internal helpers called with different activity patterns at
 * different sites (active/inactive first argument, pointer and scalar),
 * so the engine must generate more than one derivative per helper. */
#include "enzyme.h"
#include "tangent_check.h"

__attribute__((noinline)) static double mix(double a, double b) {
  return a * b + sin(a);
}

__attribute__((noinline)) static void accumulate(double *acc, double v) {
  *acc += v * v;
}

double compose(double x, double y) {
  double acc = 0.0;
  accumulate(&acc, mix(x, y));   /* both active */
  accumulate(&acc, mix(2.0, y)); /* first argument constant */
  accumulate(&acc, mix(x, 3.0)); /* second argument constant */
  accumulate(&acc, 1.5);         /* value inactive */
  return acc;
}

static double along(double t, void *ctx) {
  const double *p = ctx;
  return compose(p[0] + t * p[2], p[1] + t * p[3]);
}

int main(void) {
  double p[4] = {0.7, -1.1, 1.0, 0.5};
  long double fd = fd_derivative(along, p);
  long double x = p[0], y = p[1];
  long double m1 = x * y + sinl(x), m2 = 2 * y + sinl(2.0L),
              m3 = 3 * x + sinl(x);
  long double want = 2 * m1 * ((y + cosl(x)) * p[2] + x * p[3]) +
                     2 * m2 * (2 * p[3]) + 2 * m3 * ((3 + cosl(x)) * p[2]);
  check_reference("analytic", want, fd);
  check_tangent("directional",
                __enzyme_fwddiff((void *)compose, p[0], p[2], p[1], p[3]), want);
  return tc_finish("helper_calls");
}
