/* A dense layer with tanh activation, y = tanh(W x + b), then a squared
 * loss: the tangent of the loss w.r.t. weights and inputs together. */
#include "enzyme.h"
#include "tangent_check.h"

#define IN 5
#define OUT 3
double layer_loss(const double *w, const double *b, const double *x,
                  const double *target) {
  double loss = 0.0;
  for (int o = 0; o < OUT; o++) {
    double z = b[o];
    for (int i = 0; i < IN; i++)
      z += w[o * IN + i] * x[i];
    double e = tanh(z) - target[o];
    loss += e * e;
  }
  return 0.5 * loss;
}

static double w0[OUT * IN], dw0[OUT * IN], b0[OUT], db0[OUT], x0[IN], dx0[IN];
static const double target[OUT] = {0.2, -0.5, 0.9};

static double along(double t, void *ctx) {
  (void)ctx;
  double w[OUT * IN], b[OUT], x[IN];
  for (int i = 0; i < OUT * IN; i++) w[i] = w0[i] + t * dw0[i];
  for (int i = 0; i < OUT; i++) b[i] = b0[i] + t * db0[i];
  for (int i = 0; i < IN; i++) x[i] = x0[i] + t * dx0[i];
  return layer_loss(w, b, x, target);
}

int main(void) {
  for (int i = 0; i < OUT * IN; i++) {
    w0[i] = 0.3 * sin(i + 1.0);
    dw0[i] = cos(2.0 * i);
  }
  for (int i = 0; i < OUT; i++) {
    b0[i] = 0.1 * i;
    db0[i] = 1.0 - i;
  }
  for (int i = 0; i < IN; i++) {
    x0[i] = 0.5 - 0.2 * i;
    dx0[i] = 0.25 * i;
  }
  double t = __enzyme_fwddiff((void *)layer_loss, enzyme_dup, w0, dw0,
                              enzyme_dup, b0, db0, enzyme_dup, x0, dx0,
                              enzyme_const, target);
  check_tangent_fd("dloss", t, fd_derivative(along, NULL));
  return tc_finish("mlp_layer");
}
