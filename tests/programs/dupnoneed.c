/* enzyme_dupnoneed: the caller wants the tangents of an output buffer but
 * not its primal values, so only the shadow is checked; the input is an
 * ordinary enzyme_dup. */
#include "enzyme.h"
#include "tangent_check.h"

void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

void normalize(const double *x, double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  double inv = 1.0 / sqrt(s);
  for (int i = 0; i < n; i++)
    y[i] = x[i] * inv;
}

#define N 3
int main(void) {
  double x[N] = {3.0, -4.0, 12.0}, dx[N] = {1.0, 2.0, -0.5};
  double y[N] = {0}, dy[N] = {0};
  __enzyme_fwddiff_void((void *)normalize, enzyme_dup, x, dx, enzyme_dupnoneed,
                        y, dy, enzyme_const, N);
  /* d(x/|x|) = dx/|x| - x (x.dx)/|x|^3 */
  long double r = 13.0L, xdx = 0;
  for (int i = 0; i < N; i++)
    xdx += (long double)x[i] * dx[i];
  for (int i = 0; i < N; i++)
    check_tangent("dy", dy[i], dx[i] / r - x[i] * xdx / (r * r * r));
  return tc_finish("dupnoneed");
}
