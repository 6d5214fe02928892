/* lgamma and tgamma differentiate through digamma: checked against values
 * of psi known to 20 digits, to double precision (not to finite-difference
 * tolerance, which would hide a truncated series). */
#include <math.h>

#include "enzyme.h"
#include "tangent_check.h"

double lg(double x) { return lgamma(x); }
double tg(double x) { return tgamma(x); }

int main(void) {
  /* psi(1) = -gamma, psi(1/2) = -gamma - 2 ln 2, psi(2.5), psi(7), psi(0.1) */
  const long double euler = 0.57721566490153286061L;
  const struct { double x; long double psi; } cases[] = {
      {1.0, -euler},
      {0.5, -euler - 2 * 0.69314718055994530942L},
      {2.5, 0.70315664064524318723L},
      {7.0, 1.87278433509846713939L}, /* H_6 - gamma */
      {0.1, -10.423754940411076795L},
  };
  for (int i = 0; i < 5; i++) {
    double x = cases[i].x;
    check_tangent("d lgamma = psi", __enzyme_fwddiff((void *)lg, x, 1.0), cases[i].psi);
    check_tangent("d tgamma = tgamma psi", __enzyme_fwddiff((void *)tg, x, 1.0),
                  (long double)tgamma(x) * cases[i].psi);
  }
  return tc_finish("math_digamma");
}
