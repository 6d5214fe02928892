/* A switch on an integer selecting the formula: each arm has its own
 * derivative, the default arm included. */
#include "enzyme.h"
#include "tangent_check.h"

double activation(double x, int kind) {
  double y;
  switch (kind) {
  case 0:
    y = tanh(x);
    break;
  case 1:
    y = x / (1.0 + exp(-x));
    break;
  case 2:
    y = log1p(exp(x));
    break;
  case 7:
    y = x * x * x;
    break;
  default:
    y = 2.0 * x;
  }
  return y;
}

int main(void) {
  const double x = 0.6;
  long double lx = x, s = 1 / (1 + expl(-lx));
  const int kinds[] = {0, 1, 2, 7, 3, -1};
  const long double want[] = {1 / (coshl(lx) * coshl(lx)), s + lx * s * (1 - s),
                              s, 3 * lx * lx, 2, 2};
  for (int i = 0; i < 6; i++)
    check_tangent("arm", __enzyme_fwddiff((void *)activation, x, 1.0,
                                          enzyme_const, kinds[i]),
                  want[i]);
  return tc_finish("switch_case");
}
