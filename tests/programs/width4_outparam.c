/* Vector forward mode, width 4: a void kernel with an input array and an
 * output array, both enzyme_dup with four shadows each, so one call gives
 * the full 4x4 Jacobian of a small map. */
#include "enzyme.h"
#include "tangent_check.h"

void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

void rotate_and_bend(const double *x, double *y) {
  y[0] = cos(x[3]) * x[0] - sin(x[3]) * x[1];
  y[1] = sin(x[3]) * x[0] + cos(x[3]) * x[1];
  y[2] = x[2] * x[2] + x[0] * x[1];
  y[3] = exp(0.1 * x[2]) * x[3];
}

static const double x0[4] = {0.5, -1.25, 2.0, 0.3};

static int lane, row;
static double along(double t, void *ctx) {
  (void)ctx;
  double x[4], y[4];
  for (int i = 0; i < 4; i++)
    x[i] = x0[i] + (i == lane ? t : 0.0);
  rotate_and_bend(x, y);
  return y[row];
}

int main(void) {
  double x[4], y[4];
  double e[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
  double dy[4][4];
  for (int i = 0; i < 4; i++)
    x[i] = x0[i];
  __enzyme_fwddiff_void((void *)rotate_and_bend, enzyme_width, 4, enzyme_dup, x,
                        e[0], e[1], e[2], e[3], enzyme_dup, y, dy[0], dy[1],
                        dy[2], dy[3]);
  for (lane = 0; lane < 4; lane++)
    for (row = 0; row < 4; row++)
      check_tangent_fd("jacobian entry", dy[lane][row],
                       fd_derivative(along, NULL));
  check_primal_out("y[2]", y[2], 4.0L + 0.5L * -1.25L);
  return tc_finish("width4_outparam");
}
