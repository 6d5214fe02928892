/* Error paths that end in a call that never returns, given the active
 * value: a domain check that reports x through errx (libc's, noreturn and
 * variadic, no body, no rule), and a bounds check that passes the active
 * array to it.  Nothing after such a call runs, so it needs no derivative
 * (the registry's noreturn family): both modes differentiate the function
 * (the paths are never taken here), where they refused the call. */
#include <err.h>

#include "both_modes.h"

typedef struct {
  double d[2];
} tangents2;
tangents2 fwddiff_w2(void *, ...) __asm__("__enzyme_fwddiff");

/* x log x + sqrt x, with Julia's kind of domain check first */
static double checked(double x) {
  if (x < 0)
    errx(1, "domain error: %g", x);
  return x * log(x) + sqrt(x);
}

/* a[i]^2 a[0], its index checked against n */
static double indexed(double *a, long i, long n) {
  if (i < 0 || i >= n)
    errx(1, "index %ld out of bounds of %p (%g)", i, (void *)a, a[0]);
  return a[i] * a[i] * a[0];
}

int main(void) {
  double x = 4.0;
  long double want = logl(4.0L) + 1 + 0.25L; /* d/dx: log x + 1 + 1/(2 sqrt x) */
  rc_expect("checked reverse", __enzyme_autodiff((void *)checked, x), want,
            1e-12L);
  rc_expect("checked forward", __enzyme_fwddiff((void *)checked, x, 1.0), want,
            1e-12L);
  tangents2 t = fwddiff_w2((void *)checked, enzyme_width, 2, x, 1.0, -2.0);
  rc_expect("checked forward lane 0", t.d[0], want, 1e-12L);
  rc_expect("checked forward lane 1", t.d[1], -2 * want, 1e-12L);

  double a[3] = {1.5, -0.5, 2.0}, da[3] = {0, 0, 0};
  /* d/da2 = 2 a2 a0 = 6, d/da0 = a2^2 = 4 */
  __enzyme_autodiff((void *)indexed, enzyme_dup, a, da, enzyme_const, 2L,
                    enzyme_const, 3L);
  rc_expect("indexed reverse da0", da[0], 4, 1e-12L);
  rc_expect("indexed reverse da1", da[1], 0, 1e-12L);
  rc_expect("indexed reverse da2", da[2], 6, 1e-12L);
  double e2[3] = {0, 0, 1};
  rc_expect("indexed forward",
            __enzyme_fwddiff((void *)indexed, enzyme_dup, a, e2, enzyme_const,
                             2L, enzyme_const, 3L),
            6, 1e-12L);
  return rc_result();
}
