/* Small structs passed and returned by value (the C ABI splits them into
 * two doubles in registers): a complex-number product and magnitude built
 * from struct helpers. */
#include "enzyme.h"
#include "tangent_check.h"

typedef struct {
  double re, im;
} cplx;

__attribute__((noinline)) static cplx cmul(cplx a, cplx b) {
  cplx r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  return r;
}

double power_magnitude(double re, double im, int n) {
  cplx z = {re, im}, p = {1.0, 0.0};
  for (int i = 0; i < n; i++)
    p = cmul(p, z);
  return p.re * p.re + p.im * p.im; /* |z|^(2n) */
}

int main(void) {
  const double re = 0.6, im = -0.9;
  const int n = 3;
  long double r2 = (long double)re * re + (long double)im * im;
  /* d (r2^n) = n r2^(n-1) 2 re dre */
  check_tangent("d/dre", __enzyme_fwddiff((void *)power_magnitude, re, 1.0, im,
                                          0.0, enzyme_const, n),
                n * powl(r2, n - 1) * 2 * re);
  check_tangent("d/dim", __enzyme_fwddiff((void *)power_magnitude, re, 0.0, im,
                                          1.0, enzyme_const, n),
                n * powl(r2, n - 1) * 2 * im);
  check_primal("primal", power_magnitude(re, im, n), powl(r2, n));
  return tc_finish("struct_by_value");
}
