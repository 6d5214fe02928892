/* fabs, negation and copysign written on a float's bits (a union, memcpy to
 * an integer, masks with the sign bit), as C code does: the masks are the
 * float operations they stand for, with their derivatives.  Also a mask on
 * genuine integer data in the same function, which stays an integer. */
#include <stdint.h>
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

float __enzyme_fwddiff_f(void *, float, float) asm("__enzyme_fwddiff");

#define SIGN64 (1ULL << 63)

static double abs_union(double x) {
  union { double d; uint64_t u; } v = {x};
  v.u &= ~SIGN64;
  return v.d;
}
static double neg_bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  u ^= SIGN64;
  memcpy(&x, &u, sizeof u);
  return x;
}
static double minus_abs_bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  u |= SIGN64;
  memcpy(&x, &u, sizeof u);
  return x;
}
static double copysign_bits(double mag, double sgn) {
  uint64_t m, s;
  memcpy(&m, &mag, 8);
  memcpy(&s, &sgn, 8);
  m = (m & ~SIGN64) | (s & SIGN64);
  memcpy(&mag, &m, 8);
  return mag;
}
static float absf_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  u &= 0x7fffffffu;
  memcpy(&x, &u, 4);
  return x;
}

double f_abs(double x) { return abs_union(x) * sin(x); }
double f_neg(double x) { return neg_bits(x * x) * 3.0; }

/* Julia's flipsign(x, y): x with its sign flipped where y is negative */
static double flipsign_bits(double x, double y) {
  uint64_t u, v;
  memcpy(&u, &x, 8);
  memcpy(&v, &y, 8);
  u ^= v & SIGN64;
  memcpy(&x, &u, 8);
  return x;
}
double f_flip(double x) { return flipsign_bits(x * x, x - 1.0) + x; }
double f_minus_abs(double x) { return minus_abs_bits(x) * x; }
double f_copysign(double x) { return copysign_bits(x * x, -2.0) + copysign_bits(3.0, x) * x; }
float f_absf(float x) { return absf_bits(x) * x; }

static float copysignf_bits(float mag, float sgn) {
  uint32_t m, s;
  memcpy(&m, &mag, 4);
  memcpy(&s, &sgn, 4);
  m = (m & 0x7fffffffu) | (s & 0x80000000u);
  memcpy(&mag, &m, 4);
  return mag;
}
/* out_i = copysign(a_i^2, s_i), signs from an enzyme_const array: clang
 * loads them as integers and stores the result as one (vectorized at -O2) */
#define NS 13
void signed_squares(float *out, const float *a, const float *sgn) {
  for (int i = 0; i < NS; i++)
    out[i] = copysignf_bits(a[i] * a[i], sgn[i]);
}

/* An integer hash masked with the same constant: integer data, whose mask
 * must not turn it into a float. */
double f_hashed(double x) {
  uint64_t h = (uint64_t)(x * 1000.0) * 0x9e3779b97f4a7c15ULL;
  h &= ~SIGN64;
  return x * x + (double)(h % 7);
}

int main(void) {
  const double xs[] = {0.7, -1.3};
  for (int i = 0; i < 2; i++) {
    long double x = xs[i], s = x < 0 ? -1 : 1;
    check_tangent("|x| sin x", __enzyme_fwddiff((void *)f_abs, xs[i], 1.0),
                  s * sinl(x) + fabsl(x) * cosl(x));
    check_tangent("-(x^2) 3", __enzyme_fwddiff((void *)f_neg, xs[i], 1.0),
                  -6 * x);
    check_tangent("-|x| x", __enzyme_fwddiff((void *)f_minus_abs, xs[i], 1.0),
                  -2 * fabsl(x));
    check_tangent("copysign", __enzyme_fwddiff((void *)f_copysign, xs[i], 1.0),
                  -2 * x + 3 * s);
    check_tangent("flipsign", __enzyme_fwddiff((void *)f_flip, xs[i], 1.0),
                  (x - 1 < 0 ? -2 * x : 2 * x) + 1);
    check_tangent_float("|x| x float",
                        __enzyme_fwddiff_f((void *)f_absf, (float)xs[i], 1.0f),
                        2 * fabsl((float)xs[i]));
    check_tangent("integer mask", __enzyme_fwddiff((void *)f_hashed, xs[i], 1.0),
                  2 * x);
  }
  float out[NS], dout[NS], a[NS], da[NS], sg[NS];
  for (int i = 0; i < NS; i++) {
    a[i] = 0.2f + 0.1f * i;
    da[i] = 1.0f - 0.05f * i;
    sg[i] = (i % 3) ? -1.5f : 2.0f;
  }
  __enzyme_fwddiff((void *)signed_squares, enzyme_dup, out, dout, enzyme_dup, a,
                   da, enzyme_const, sg);
  for (int i = 0; i < NS; i++)
    check_tangent_float("copysign from memory", dout[i],
                        (sg[i] < 0 ? -2.0L : 2.0L) * a[i] * da[i]);
  return tc_finish("sign_bits");
}
