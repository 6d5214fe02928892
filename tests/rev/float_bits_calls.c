/* Integers computed from a double's bits in callees that are not inlined,
 * as cephes writes them (isnan.c's signbit and isfinite, called by pow;
 * frexp's exponent): a 0/1 the caller only branches on, one passed on by
 * another callee, an exponent used as ldexp's count.  They carry no
 * derivative, so the bit arithmetic computing them (an lshr of the bits
 * by 63 from -O1 on) is not refused.  A double's bits returned as an
 * integer and reinterpreted by the caller do carry one: the callee's
 * result keeps its adjoint (reverse) and tangent (forward). */
#include <stdint.h>
#include <string.h>

#include "both_modes.h"

__attribute__((noinline)) static int sign_of(double x) {
  union {
    double d;
    int i[2];
  } u;
  u.d = x;
  return u.i[1] < 0;
}

__attribute__((noinline)) static int is_finite_bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return ((u >> 52) & 0x7ff) != 0x7ff;
}

__attribute__((noinline)) static int is_negative(double x) {
  return sign_of(x) != 0;
}

__attribute__((noinline)) static int exponent_of(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return (int)((u >> 52) & 0x7ff) - 1023;
}

__attribute__((noinline)) static uint64_t bits_of(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static double signed_terms(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double y = x[i] * x[i];
    if (sign_of(x[i]))
      y = -y;
    if (is_negative(x[i] - 1.0))
      y += 3.0 * x[i];
    if (is_finite_bits(x[i]))
      y *= 1.5;
    uint64_t b = bits_of(x[i]);
    double back;
    memcpy(&back, &b, sizeof back);
    /* the mantissa of x in [1, 2), piecewise 2^-e x */
    s += y + 0.5 * back * back + ldexp(x[i], -exponent_of(x[i]));
  }
  return s;
}

static const double x0[5] = {-1.5, 0.75, 1.25, -0.3, 2.5};
static const double dir[5] = {0.5, -1.0, 0.25, 1.5, -0.75};
BM_ARRAY_BOTH(signed_terms, 5, x0, dir)

int main(void) {
  both_signed_terms();
  return rc_result();
}
