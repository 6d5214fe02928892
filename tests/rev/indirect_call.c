/* Calls through function pointers in reverse: a table of callbacks
 * indexed at run time, and an integrator taking its integrand as a
 * constant pointer argument (Enzyme's integrateconst shape). */
#include "rev_check.h"
typedef double (*fn)(double);
static double sq(double x) { return x * x; }
static double cube(double x) { return x * x * x; }
static double sinx(double x) { return sin(x) * x; }
static fn volatile table[3] = {sq, cube, sinx};
static double apply(fn f, double *x, int i) { return f(x[i]); }
static double integrate(fn f, double a, double b, int steps) {
  double h = (b - a) / steps, s = 0.5 * (f(a) + f(b));
  for (int i = 1; i < steps; i++)
    s += f(a + i * h);
  return s * h;
}
static double indirect_call(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += apply(table[i % 3], x, i) * x[(i + 1) % n];
  return s + integrate(table[2], x[0], x[1], 16);
}
RC_ARRAY_TEST(indirect_call, 5, 0.5, -1.0, 1.5, 0.75, 2.0)
