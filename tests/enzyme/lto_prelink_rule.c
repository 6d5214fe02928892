/*
 * Enzyme ForwardMode/lto_prelink_rule.c: two translation units, each with
 * its own private copy of a custom derivative for `square_` (registered
 * through __enzyme_register_derivative_square) and a request, linked into
 * one module as Enzyme's post-link LTO run sees them.  Each request must
 * use its rule: the rule is deliberately wrong (a tangent of 100) so that it
 * can be told apart from a derivative of the body.  Built from this file
 * twice, without and with -DSECOND (dsquare_a / dsquare_b), and linked by
 * llvm-link; main lives in the first.
 */
#include "enzyme_compat.h"

static void square_(const double *src, double *dest) { *dest = *src * *src; }

static void dsquare_(const double *src, const double *d_src,
                     const double *dest, double *d_dest) {
  /* intentionally incorrect, to tell the rule apart from the derivative */
  *d_dest = 100;
}

void *__enzyme_register_derivative_square[] = {
    (void *)square_,
    (void *)dsquare_,
};

static double square(double x) {
  double y;
  square_(&x, &y);
  return y;
}

#ifdef SECOND
double dsquare_b(double x) { return __enzyme_fwddiff((void *)square, x, 1.0); }
#else
double dsquare_a(double x) { return __enzyme_fwddiff((void *)square, x, 1.0); }
double dsquare_b(double x);

int main(void) {
  APPROX_EQ(dsquare_a(3.0), 100.0, 0.0);
  APPROX_EQ(dsquare_b(3.0), 100.0, 0.0);
  return enzyme_compat_result();
}
#endif
