/* Reverse over reverse with the inner gradient taken in a loop of the
 * outer function and inside a callee of it: one inner tape header per
 * site, pushed and popped once per iteration, its shadow reused. */
#include <math.h>
#include "rev_check.h"

static double f(double x, double y) { return sin(x) * x * y + y * y * x; }

/* d f / d x at (x, y), a callee of the outer function */
__attribute__((noinline)) static double fx(double x, double y) {
  return __enzyme_autodiff((void *)f, x, enzyme_const, y);
}

/* sum_i i * f_x(i x, y) + f_x(x, y)^2 */
static double g(double x, double y, int n) {
  double s = 0;
  for (int i = 1; i <= n; i++)
    s += i * fx(i * x, y);
  double d = fx(x, y);
  return s + d * d;
}

static long double fx_exact(long double x, long double y) {
  return (cosl(x) * x + sinl(x)) * y + y * y;
}
static long double g_exact(long double x, long double y, int n) {
  long double s = 0;
  for (int i = 1; i <= n; i++)
    s += i * fx_exact(i * x, y);
  long double d = fx_exact(x, y);
  return s + d * d;
}
static long double y_now;
static long double run(const long double *p) { return g_exact(p[0], y_now, 4); }

int main(void) {
  static const double pts[2][2] = {{0.8, 1.5}, {-1.1, 0.3}};
  for (int k = 0; k < 2; k++) {
    double x = pts[k][0], y = pts[k][1];
    long double p[1] = {x}, got[1];
    y_now = y;
    double dx = __enzyme_autodiff((void *)g, x, enzyme_const, y, enzyme_const, 4);
    got[0] = dx;
    rc_check("gradient through inner gradients", run, p, got, 1);
    rc_expect("primal", g(x, y, 4), g_exact(x, y, 4), 1e-12L);
  }
  return rc_result();
}
