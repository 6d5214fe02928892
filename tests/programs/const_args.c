/* enzyme_const on a double scalar and on a pointer: those arguments get no
 * tangent, even when the callee reads them in active arithmetic. */
#include "enzyme.h"
#include "tangent_check.h"

double scaled_dot(const double *w, const double *x, double scale, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += w[i] * x[i];
  return scale * s;
}

#define N 4
int main(void) {
  double w[N] = {1.0, -2.0, 0.5, 3.0}, x[N] = {0.25, 1.0, -4.0, 2.0};
  double dw[N] = {1.0, 1.0, 1.0, 1.0}, dx[N] = {0.5, 0.0, 2.0, -1.0};
  const double scale = 1.5;
  long double wx = 0, wdx = 0, dwx = 0;
  for (int i = 0; i < N; i++) {
    wx += (long double)w[i] * x[i];
    wdx += (long double)w[i] * dx[i];
    dwx += (long double)dw[i] * x[i];
  }
  /* Weights constant: only x moves. */
  check_tangent("w const",
                __enzyme_fwddiff((void *)scaled_dot, enzyme_const, w,
                                 enzyme_dup, x, dx, enzyme_const, scale,
                                 enzyme_const, N),
                scale * wdx);
  /* x constant: only w moves. */
  check_tangent("x const",
                __enzyme_fwddiff((void *)scaled_dot, enzyme_dup, w, dw,
                                 enzyme_const, x, enzyme_const, scale,
                                 enzyme_const, N),
                scale * dwx);
  /* Only the scale moves (a duplicated scalar, tangent 2). */
  check_tangent("scale only",
                __enzyme_fwddiff((void *)scaled_dot, enzyme_const, w,
                                 enzyme_const, x, scale, 2.0, enzyme_const, N),
                2.0L * wx);
  /* Everything constant: the derivative is exactly zero. */
  check_tangent("all const",
                __enzyme_fwddiff((void *)scaled_dot, enzyme_const, w,
                                 enzyme_const, x, enzyme_const, scale,
                                 enzyme_const, N),
                0.0L);
  return tc_finish("const_args");
}
