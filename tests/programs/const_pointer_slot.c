/* A constant pointer (enzyme_const) kept in a stack slot at -O0 and passed,
 * next to an active one, to a helper: its shadow must not become the
 * pointer itself (the engine promotes slots before differentiating). */
#include "enzyme.h"
#include "tangent_check.h"
__attribute__((noinline)) double dot(const double *x, const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}
double f(const double *xs, const double *cs, int n) { return dot(xs, cs, n); }
int main(void) {
  double x[3] = {0.5, -1.25, 2.0}, c[3] = {3.0, 0.5, -1.0}, dx[3] = {1, 0.5, -2};
  check_tangent("f", __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, c, enzyme_const, 3), 3 + 0.25 + 2);
  return tc_finish("const_pointer_slot");
}
