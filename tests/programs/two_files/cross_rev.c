/* Reverse mode across translation units: the gradient of a function that
 * calls into cross_lib.c, a module of its own compiled with debug info,
 * every entry against the analytic gradient, itself checked against a
 * central finite difference. */
#include "../enzyme.h"
#include "../tangent_check.h"
#include "cross_lib.h"

double __enzyme_autodiff(void *, ...);

static double obj(double x) { return cross_sq(x) + x; }

static double loss(double *x, int n) {
  double y[CROSS_N];
  cross_scale(y, x, n, 1.5);
  return cross_energy(y, n) + cross_sq(x[0]);
}

static const double point[CROSS_N] = {0.3, -0.7, 1.1, 0.4};

/* loss with x = point + t e_k */
static double loss_along(double t, void *ctx) {
  int k = *(const int *)ctx;
  double x[CROSS_N];
  for (int i = 0; i < CROSS_N; i++)
    x[i] = point[i] + (i == k ? t : 0);
  return loss(x, CROSS_N);
}

/* d loss / d x_k, analytically: y = 1.5 w x, loss = sum_i (w_i sin y_i +
 * exp(y_i / 2)) y_{i+1} + x_0^2 */
static long double gradient(int k) {
  long double y[CROSS_N];
  for (int i = 0; i < CROSS_N; i++)
    y[i] = 1.5L * cross_weights[i] * point[i];
  int prev = (k + CROSS_N - 1) % CROSS_N;
  long double db = cross_weights[k] * cosl(y[k]) + 0.5L * expl(0.5L * y[k]);
  long double b_prev =
      cross_weights[prev] * sinl(y[prev]) + expl(0.5L * y[prev]);
  long double g =
      (db * y[(k + 1) % CROSS_N] + b_prev) * 1.5L * cross_weights[k];
  return k == 0 ? g + 2 * point[0] : g;
}

int main(void) {
  /* the reproducer: d/dx (x^2 + x) at 3 */
  check_tangent("obj", __enzyme_autodiff((void *)obj, 3.0), 7.0L);
  double x[CROSS_N], dx[CROSS_N] = {0};
  for (int i = 0; i < CROSS_N; i++)
    x[i] = point[i];
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, CROSS_N);
  for (int k = 0; k < CROSS_N; k++) {
    char what[32];
    snprintf(what, sizeof what, "loss d/dx%d", k);
    long double want = gradient(k);
    check_reference(what, want, fd_derivative(loss_along, &k));
    check_tangent(what, dx[k], want);
  }
  return tc_finish("cross_rev");
}
