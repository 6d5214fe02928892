/* Explicit SIMD through clang's vector extensions: vector fmul/fadd,
 * element extraction and insertion, and a shuffle, on active lanes. */
#include "enzyme.h"
#include "tangent_check.h"

typedef double v4d __attribute__((vector_size(32)));

double simd_energy(const double *x) {
  v4d a = {x[0], x[1], x[2], x[3]};
  v4d b = __builtin_shufflevector(a, a, 3, 2, 1, 0);
  v4d c = a * b + a * a * 0.5;
  c[2] = c[2] * x[0];
  return c[0] + c[1] + c[2] + c[3];
}

static const double x0[4] = {1.5, -0.5, 2.0, 0.25};
static const double dir[4] = {1.0, 2.0, -1.0, 0.5};

static double along(double t, void *ctx) {
  (void)ctx;
  double x[4];
  for (int i = 0; i < 4; i++)
    x[i] = x0[i] + t * dir[i];
  return simd_energy(x);
}

int main(void) {
  double x[4], dx[4];
  for (int i = 0; i < 4; i++) {
    x[i] = x0[i];
    dx[i] = dir[i];
  }
  /* c_i = x_i x_{3-i} + x_i^2/2; c_2 is scaled by x_0 */
  long double want = 0;
  for (int i = 0; i < 4; i++) {
    long double ci = (long double)x[i] * x[3 - i] + 0.5L * x[i] * x[i];
    long double dci = dx[i] * x[3 - i] + x[i] * dx[3 - i] + x[i] * dx[i];
    want += i == 2 ? dci * x[0] + ci * dx[0] : dci;
  }
  check_reference("analytic", want, fd_derivative(along, NULL));
  check_tangent("directional",
                __enzyme_fwddiff((void *)simd_energy, enzyme_dup, x, dx), want);
  return tc_finish("vector_ext");
}
