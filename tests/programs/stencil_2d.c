/* A 2-D five-point stencil (one explicit heat step) on a grid passed as a
 * flat array, with a nonlinear source term: nested loops with 2-D index
 * arithmetic, reading neighbours through the shadow. */
#include "enzyme.h"
#include "tangent_check.h"

void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

#define W 6
#define H 5
void heat_step(const double *u, double *out, double k) {
  for (int j = 0; j < H; j++)
    for (int i = 0; i < W; i++) {
      int c = j * W + i;
      if (i == 0 || j == 0 || i == W - 1 || j == H - 1) {
        out[c] = u[c];
        continue;
      }
      double lap = u[c - 1] + u[c + 1] + u[c - W] + u[c + W] - 4 * u[c];
      out[c] = u[c] + k * lap + 0.01 * u[c] * u[c] * u[c];
    }
}

static double u0[W * H], du0[W * H];
static int cell;

static double along(double t, void *ctx) {
  (void)ctx;
  double u[W * H], o[W * H];
  for (int i = 0; i < W * H; i++)
    u[i] = u0[i] + t * du0[i];
  heat_step(u, o, 0.2);
  return o[cell];
}

int main(void) {
  double u[W * H], du[W * H], o[W * H], dout[W * H];
  for (int i = 0; i < W * H; i++) {
    u0[i] = u[i] = sin(0.7 * i) + 0.1 * i;
    du0[i] = du[i] = cos(1.3 * i);
  }
  __enzyme_fwddiff_void((void *)heat_step, enzyme_dup, u, du, enzyme_dup, o,
                        dout, enzyme_const, 0.2);
  for (cell = 0; cell < W * H; cell++)
    check_tangent_fd("dout", dout[cell], fd_derivative(along, NULL));
  return tc_finish("stencil_2d");
}
