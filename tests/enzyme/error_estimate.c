/*
 * __enzyme_error_estimate (Enzyme's ForwardError mode): each shadow bounds
 * its value's rounding error, err(r) = max(ulp(r), sum_k |df/dx_k err(x_k)
 * x_k / r|).  Checked against that recurrence written out in C: an input
 * error through exp (df/dx = exp x: the bound is |err x|), a running sum
 * of an array whose elements carry errors, read through pointers in a loop
 * (loads, a PHI), and a quotient of a product.
 */
#include <math.h>
#include <string.h>

#define ENZYME_COMPAT_OWN_PROTOTYPE
#include "enzyme_compat.h"

extern double __enzyme_error_estimate(void *, ...);

static double ulp(double r) {
  unsigned long long bits;
  memcpy(&bits, &r, sizeof bits);
  bits ^= 1;
  double neighbour;
  memcpy(&neighbour, &bits, sizeof neighbour);
  return fabs(r - neighbour);
}

static double bound(double r, double sum) { return fmax(ulp(r), sum); }

double grow(double x) { return exp(x); }

__attribute__((noinline)) double total(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

double ratio(double x, double y) { return x * y / (x + y); }

int main(void) {
  /* exp: |exp(x) * e * x / exp(x)| = |e x| */
  double x = 3.0, e = 1e-10;
  APPROX_EQ(__enzyme_error_estimate((void *)grow, x, e), e * x, 1e-22);
  /* no input error: one ulp of the result */
  APPROX_EQ(__enzyme_error_estimate((void *)grow, x, 0.0), ulp(exp(x)), 1e-30);

  double a[4] = {1.5, -0.25, 1e3, 2.0}, ea[4] = {1e-12, 0, 3e-9, 1e-15};
  double s = 0, es = 0;
  for (int i = 0; i < 4; i++) {
    double r = s + a[i];
    es = bound(r, fabs(es * s / r) + fabs(ea[i] * a[i] / r));
    s = r;
  }
  double sum_err = __enzyme_error_estimate((void *)total, a, ea, 4);
  APPROX_EQ(sum_err, es, 1e-20);

  double y = 0.75, ex = 2e-14, ey = 5e-13;
  double p = x * y, q = x + y, r = p / q;
  double ep = bound(p, fabs(y * ex * x / p) + fabs(x * ey * y / p));
  double eq = bound(q, fabs(ex * x / q) + fabs(ey * y / q));
  double er = bound(r, fabs((1 / q) * ep * p / r) + fabs((r / q) * eq * q / r));
  APPROX_EQ(__enzyme_error_estimate((void *)ratio, x, ex, y, ey), er, 1e-24);
  return enzyme_compat_result();
}
