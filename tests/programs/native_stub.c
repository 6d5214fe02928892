/*
 * Stands in for the engine when a program is compiled natively for the
 * self-test (see tangent_check.h): the markers get definitions and every
 * derivative request returns NaN without touching its shadows.  Tangent
 * checks are skipped in that build, so only primal values and the analytic
 * references are judged.
 */
#include <math.h>

int enzyme_dup, enzyme_const, enzyme_dupnoneed, enzyme_width,
    enzyme_primal_return;

double __enzyme_fwddiff(void *fn, ...) {
  (void)fn;
  return NAN;
}
