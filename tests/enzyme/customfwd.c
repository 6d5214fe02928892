/*
 * Enzyme ForwardMode/customfwd.c: a derivative registered in IR through
 * __enzyme_register_derivative_<name> replaces the engine's own; the rule is
 * deliberately wrong (always 100) so its use is visible, and it must run
 * exactly once.
 */
#include "enzyme_compat.h"

static void square_(const double *src, double *dest) { *dest = *src * *src; }

int derivative = 0;
void derivative_square_(const double *src, const double *d_src,
                        const double *dest, double *d_dest) {
  (void)src, (void)d_src, (void)dest;
  derivative++;
  *d_dest = 100;
}

void *__enzyme_register_derivative_square[] = {
    (void *)square_,
    (void *)derivative_square_,
};

double square(double x) {
  double y;
  square_(&x, &y);
  return y;
}

double dsquare(double x) {
  return __enzyme_fwddiff((void *)square, x, 1.0);
}

int main(void) {
  double res = dsquare(3.0);
  APPROX_EQ(res, 100.0, 1e-10);
  APPROX_EQ(derivative, 1.0, 1e-10);
  return enzyme_compat_result();
}
