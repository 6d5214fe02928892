/* Rules at the call's own precision: the constants of a rule (ln 2, ln 10,
 * 2/sqrt(pi)) are read in the type's precision, so long double tangents are
 * exact to long double's epsilon, not double's; and llvm.powi's tangent at
 * x = 0, n = 0 is 0, not 0 * 0^-1 = NaN. */
#include "enzyme.h"
#include "tangent_check.h"

long double __enzyme_fwddiff_l(void *, long double, long double)
    asm("__enzyme_fwddiff");

long double f_log2l(long double x) { return log2l(x); }
long double f_exp2l(long double x) { return exp2l(x); }
long double f_log10l(long double x) { return log10l(x); }
long double f_erfl(long double x) { return erfl(x); }
double f_powi0(double x) { return __builtin_powi(x, 0); }
double f_powi3(double x) { return __builtin_powi(x, 3); }

/* relative to long double's epsilon (1.1e-19), not double's */
static void check_ld(const char *what, long double got, long double want) {
  tc_tangent(what, got, want, 1e-18L, 0);
}

int main(void) {
  const long double x = 1.3L;
  const long double ln2 = 0.693147180559945309417232121458176568L;
  const long double ln10 = 2.30258509299404568401799145468436421L;
  const long double two_over_sqrt_pi = 1.12837916709551257389615890312154517L;
  check_ld("log2l", __enzyme_fwddiff_l((void *)f_log2l, x, 1.0L), 1 / (x * ln2));
  check_ld("exp2l", __enzyme_fwddiff_l((void *)f_exp2l, x, 1.0L),
           exp2l(x) * ln2);
  check_ld("log10l", __enzyme_fwddiff_l((void *)f_log10l, x, 1.0L),
           1 / (x * ln10));
  check_ld("erfl", __enzyme_fwddiff_l((void *)f_erfl, x, 1.0L),
           two_over_sqrt_pi * expl(-x * x));
  check_tangent("powi(x, 0) at 0", __enzyme_fwddiff((void *)f_powi0, 0.0, 1.0),
                0.0);
  check_tangent("powi(x, 0) at 2", __enzyme_fwddiff((void *)f_powi0, 2.0, 1.0),
                0.0);
  check_tangent("powi(x, 3) at 0", __enzyme_fwddiff((void *)f_powi3, 0.0, 1.0),
                0.0);
  check_tangent("powi(x, 3) at -2",
                __enzyme_fwddiff((void *)f_powi3, -2.0, 1.0), 12.0);
  return tc_finish("math_precision");
}
