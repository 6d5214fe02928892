/*
 * Enzyme ForwardMode/fabs_signed_zero.c, forward-mode checks: fabs'(-0.0) is
 * -1 (the zero's sign says which side it came from), so the second
 * derivative of fabs(-x*x) at 0 is 2.  The __enzyme_autodiff (reverse-mode)
 * checks of the original are not ported.
 */
#include "enzyme_compat.h"

double absf(double x) { return __builtin_fabs(x); }
double f(double x) { return __builtin_fabs(-x * x); }

double df(double x) { return __enzyme_fwddiff((void *)f, x, 1.0); }

int main(void) {
  TEST_EQ(__enzyme_fwddiff((void *)absf, 0.0, 1.0), 1.0);
  TEST_EQ(__enzyme_fwddiff((void *)absf, -0.0, 1.0), -1.0);
  TEST_EQ(__enzyme_fwddiff((void *)absf, 2.0, 1.0), 1.0);
  TEST_EQ(__enzyme_fwddiff((void *)absf, -2.0, 1.0), -1.0);

  APPROX_EQ(df(0.0), 0.0, 1e-10);

  APPROX_EQ(__enzyme_fwddiff((void *)df, 0.0, 1.0), 2.0, 1e-10);

  APPROX_EQ(__enzyme_fwddiff((void *)df, 1.5, 1.0), 2.0, 1e-10);
  APPROX_EQ(__enzyme_fwddiff((void *)df, -1.5, 1.0), 2.0, 1e-10);
  return enzyme_compat_result();
}
