/* One classical Runge-Kutta step of a damped pendulum, with the state in an
 * array and the right-hand side a separate (non-inlined at -O0) function
 * writing through a pointer: tangent of the new state w.r.t. the old state
 * and the step size. */
#include "enzyme.h"
#include "tangent_check.h"

void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

static void pendulum(const double *s, double *ds) {
  ds[0] = s[1];
  ds[1] = -sin(s[0]) - 0.1 * s[1];
}

void rk4(double *s, double h) {
  double k1[2], k2[2], k3[2], k4[2], t[2];
  pendulum(s, k1);
  for (int i = 0; i < 2; i++) t[i] = s[i] + 0.5 * h * k1[i];
  pendulum(t, k2);
  for (int i = 0; i < 2; i++) t[i] = s[i] + 0.5 * h * k2[i];
  pendulum(t, k3);
  for (int i = 0; i < 2; i++) t[i] = s[i] + h * k3[i];
  pendulum(t, k4);
  for (int i = 0; i < 2; i++)
    s[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

static const double s0[2] = {1.2, -0.4}, dir_s[2] = {0.5, 1.0};
static const double h0 = 0.1, dir_h = 0.2;
static int component;

static double along(double t, void *ctx) {
  (void)ctx;
  double s[2] = {s0[0] + t * dir_s[0], s0[1] + t * dir_s[1]};
  rk4(s, h0 + t * dir_h);
  return s[component];
}

int main(void) {
  double s[2] = {s0[0], s0[1]}, ds[2] = {dir_s[0], dir_s[1]};
  __enzyme_fwddiff_void((void *)rk4, enzyme_dup, s, ds, h0, dir_h);
  for (component = 0; component < 2; component++)
    check_tangent_fd("d state", ds[component], fd_derivative(along, NULL));
  /* Many steps in a row, each differentiated: tangents propagate. */
  double s2[2] = {s0[0], s0[1]}, ds2[2] = {1.0, 0.0};
  for (int k = 0; k < 50; k++)
    __enzyme_fwddiff_void((void *)rk4, enzyme_dup, s2, ds2, enzyme_const, h0);
  double r[2] = {s0[0], s0[1]};
  double rp[2] = {s0[0] + 1e-6, s0[1]}, rm[2] = {s0[0] - 1e-6, s0[1]};
  for (int k = 0; k < 50; k++) {
    rk4(r, h0);
    rk4(rp, h0);
    rk4(rm, h0);
  }
  check_primal_out("trajectory", s2[0], r[0]);
  tc_tangent("flow sensitivity", ds2[0],
             ((long double)rp[0] - rm[0]) / 2e-6L, 1e-6L, 1e-8L);
  return tc_finish("rk4_step");
}
