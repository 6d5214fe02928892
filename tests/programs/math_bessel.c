/* Bessel functions (j0, j1, jn, y0, y1, yn and their float spellings)
 * differentiate by the recurrences J0' = -J1, J1' = (J0 - J2)/2,
 * Jn' = (J(n-1) - J(n+1))/2 (Y the same): checked against central finite
 * differences of the functions themselves, and J1'(0) = 1/2 exactly,
 * where J0 - J1/x, the other textbook form, is 0/0. */
#define _DEFAULT_SOURCE /* j0, jn, y0 ... are X/Open, not ISO C */
#include <math.h>

#include "enzyme.h"
#include "tangent_check.h"

float __enzyme_fwddiff_f(void *, ...) __asm__("__enzyme_fwddiff");

double bj0(double x) { return j0(x); }
double bj1(double x) { return j1(x); }
double bjn(double x) { return jn(3, x); }
double bjneg(double x) { return jn(-2, x); }
double by0(double x) { return y0(x); }
double by1(double x) { return y1(x); }
double byn(double x) { return yn(2, x); }
double byn3(double x) { return yn(3, x); }
float bj0f(float x) { return j0f(x); }
float bynf(float x) { return ynf(3, x); }
typedef double (*fn)(double);

static long double central(fn f, double x) {
  double h = 1e-5;
  return ((long double)f(x + h) - f(x - h)) / (2 * h);
}

int main(void) {
  const double xs[] = {0.3, 1.7, 4.2, 9.5};
  for (int i = 0; i < 4; i++) {
    double x = xs[i];
    check_tangent_fd("d j0", __enzyme_fwddiff((void *)bj0, x, 1.0), central(bj0, x));
    check_tangent_fd("d j1", __enzyme_fwddiff((void *)bj1, x, 1.0), central(bj1, x));
    check_tangent_fd("d jn(3)", __enzyme_fwddiff((void *)bjn, x, 1.0), central(bjn, x));
    check_tangent_fd("d jn(-2)", __enzyme_fwddiff((void *)bjneg, x, 1.0), central(bjneg, x));
    check_tangent_fd("d y0", __enzyme_fwddiff((void *)by0, x, 1.0), central(by0, x));
    check_tangent_fd("d y1", __enzyme_fwddiff((void *)by1, x, 1.0), central(by1, x));
    check_tangent_fd("d yn(2)", __enzyme_fwddiff((void *)byn, x, 1.0), central(byn, x));
    /* float: against the double functions' differences at the same x */
    float xf = (float)x;
    check_tangent_float("d j0f", __enzyme_fwddiff_f((void *)bj0f, xf, 1.0f),
                        central(bj0, xf));
    check_tangent_float("d ynf(3)", __enzyme_fwddiff_f((void *)bynf, xf, 1.0f),
                        central(byn3, xf));
  }
  check_tangent("d j1 at 0", __enzyme_fwddiff((void *)bj1, 0.0, 1.0), 0.5L);
  return tc_finish("math_bessel");
}
