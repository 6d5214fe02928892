/*
 * Enzyme ForwardMode/lto_prelink.c: a request whose function is only
 * declared in its translation unit (`square` stands in for a callee whose
 * body is in another object file).  Built twice from this file:
 *
 *   - the caller alone (no -DDEFINITION): one module cannot resolve the
 *     callee; Enzyme says "failed to find fn to differentiate", tanjit must
 *     fail as clearly (meson checks the message);
 *   - the caller linked with the callee (-DDEFINITION) by llvm-link, as
 *     Enzyme's post-link LTO run sees them: the request is differentiated,
 *     d/dx x*x = 2x.
 */
#ifdef DEFINITION
double square(double x) { return x * x; }
#else
#include "enzyme_compat.h"

extern double square(double x);

double dsquare(double x) { return __enzyme_fwddiff((void *)square, x, 1.0); }

int main(void) {
  for (int i = -2; i <= 3; i++)
    APPROX_EQ(dsquare(1.5 * i), 3.0 * i, 1e-15);
  return enzyme_compat_result();
}
#endif
