#include <math.h>
#include "rev_check.h"
/* a 2-3-1 network: W1 (3x2) b1 (3) W2 (3) b2, on two samples, squared loss */
static double mlp_loss(double *w, int n) {
  (void)n;
  static const double xs[2][2] = {{0.5, -1.0}, {1.5, 0.25}};
  static const double ys[2] = {0.3, -0.2};
  double loss = 0;
  for (int s = 0; s < 2; s++) {
    double out = w[12];
    for (int h = 0; h < 3; h++) {
      double a = w[6 + h];
      for (int i = 0; i < 2; i++)
        a += w[2 * h + i] * xs[s][i];
      out += w[9 + h] * tanh(a);
    }
    loss += (out - ys[s]) * (out - ys[s]);
  }
  return loss;
}
RC_ARRAY_TEST(mlp_loss, 13, 0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.01, -0.02, 0.03,
              0.7, -0.8, 0.9, 0.05)
