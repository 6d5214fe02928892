/* Softmax cross-entropy as classifiers write it: the max subtracted first
 * (a comparison on active values), an integer label, L2 on the logits. */
#include "both_modes.h"
static double xent(double *z, int n) {
  const int label = 2;
  double m = z[0];
  for (int i = 1; i < n; i++)
    if (z[i] > m) m = z[i];
  double s = 0;
  for (int i = 0; i < n; i++) s += exp(z[i] - m);
  double loss = -(z[label] - m - log(s));
  double reg = 0;
  for (int i = 0; i < n; i++) reg += z[i] * z[i];
  return loss + 1e-2 * reg;
}
static const double z0[5] = {0.3, -1.2, 0.8, 2.1, -0.4};
static const double dir[5] = {1.0, 0.5, -0.25, 0.75, -1.5};
BM_ARRAY_BOTH(xent, 5, z0, dir)
int main(void) {
  both_xent();
  return rc_result();
}
