/*
 * Enzyme ForwardMode/activity.c (its CHECK-CORRECT run): noinline helpers
 * inside the differentiated function are active; d/dx sin(x) cos(x) =
 * cos^2 x - sin^2 x.  Enzyme's runs that force mysin/mycos inactive through
 * --enzyme-load-inactive-file are a command-line option of Enzyme's pass and
 * are not ported.
 */
#include "enzyme_compat.h"

__attribute__((noinline)) double mysin(double x) { return sin(x); };
__attribute__((noinline)) double mycos(double x) { return cos(x); };

double f(double x) {
  return mysin(x) * mycos(x);
}

int main(void) {
  double xs[] = {0.0, 0.5, 1.0, 2.0, 3.0};
  /* The values Enzyme's FileCheck lines pin (printed with %f). */
  double pinned[] = {1.000000, 0.540302, -0.416147, -0.653644, 0.960170};

  for (int i = 0; i < 5; i++) {
    double d_ret = __enzyme_fwddiff((void *)f, xs[i], 1.0);
    double expected = cos(xs[i]) * cos(xs[i]) - sin(xs[i]) * sin(xs[i]);
    APPROX_EQ(d_ret, expected, 1e-12);
    APPROX_EQ(d_ret, pinned[i], 5e-7);
  }
  return enzyme_compat_result();
}
