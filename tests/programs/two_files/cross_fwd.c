/* Forward mode across translation units: obj calls into cross_lib.c, a
 * module of its own compiled with debug info.  The tangents, through the
 * other file's code, against the analytic derivative, itself checked
 * against a finite difference. */
#include "../enzyme.h"
#include "../tangent_check.h"
#include "cross_lib.h"

static double obj(double x) { return cross_sq(x) + x; }

/* x[i] = base[i] + t dir[i] */
static double energy_of(double t) {
  static const double base[CROSS_N] = {0.3, -0.7, 1.1, 0.4};
  static const double dir[CROSS_N] = {1.0, 0.5, -0.25, 2.0};
  double x[CROSS_N], y[CROSS_N];
  for (int i = 0; i < CROSS_N; i++)
    x[i] = base[i] + t * dir[i];
  cross_scale(y, x, CROSS_N, 1.5);
  return cross_energy(y, CROSS_N);
}

static double energy_along(double t, void *ctx) {
  (void)ctx;
  return energy_of(t);
}

/* d/dt of energy_of at t = 0, analytically: y = 1.5 w x, e = sum_i
 * (w_i sin y_i + exp(y_i / 2)) y_{i+1} */
static long double energy_tangent(void) {
  static const long double base[CROSS_N] = {0.3L, -0.7L, 1.1L, 0.4L};
  static const long double dir[CROSS_N] = {1.0L, 0.5L, -0.25L, 2.0L};
  long double y[CROSS_N], dy[CROSS_N], de = 0;
  for (int i = 0; i < CROSS_N; i++) {
    y[i] = 1.5L * cross_weights[i] * base[i];
    dy[i] = 1.5L * cross_weights[i] * dir[i];
  }
  for (int i = 0; i < CROSS_N; i++) {
    int j = (i + 1) % CROSS_N;
    long double b = cross_weights[i] * sinl(y[i]) + expl(0.5L * y[i]);
    long double db =
        (cross_weights[i] * cosl(y[i]) + 0.5L * expl(0.5L * y[i])) * dy[i];
    de += db * y[j] + b * dy[j];
  }
  return de;
}

int main(void) {
  /* the reproducer: d/dx (x^2 + x) at 3 */
  check_tangent("obj", __enzyme_fwddiff((void *)obj, 3.0, 1.0), 7.0L);
  long double want = energy_tangent();
  check_reference("energy", want, fd_derivative(energy_along, NULL));
  check_tangent("energy", __enzyme_fwddiff((void *)energy_of, 0.0, 1.0),
                want);
  return tc_finish("cross_fwd");
}
