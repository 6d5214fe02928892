/* Copies written by hand, byte by byte (unsigned char may alias anything)
 * or in 32-bit words: at -O2 and above clang vectorizes them and keeps a
 * scalar remainder loop of i8 or i32 loads and stores.  Those narrow
 * integers are a float's bytes here, and their shadow must move with them,
 * as memcpy's would; sizes 1..17 reach every remainder. */
#include <stddef.h>
#include <stdint.h>

#include "enzyme.h"
#include "tangent_check.h"

typedef uint32_t __attribute__((may_alias)) word;

__attribute__((noinline)) void copy_bytes(void *dst, const void *src,
                                          size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (size_t i = 0; i < n; i++)
    d[i] = s[i];
}

__attribute__((noinline)) void copy_words(void *dst, const void *src,
                                          size_t n) {
  word *d = dst;
  const word *s = src;
  for (size_t i = 0; i < n; i++)
    d[i] = s[i];
}

/* sum_i (i+1) y_i^2 with y a byte copy of the first n of x */
double weighted_after_bytes(const double *x, int n) {
  double y[17];
  copy_bytes(y, x, (size_t)n * sizeof *x);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * y[i] * y[i];
  return s;
}

/* the same for floats moved as 32-bit words */
double weighted_after_words(const float *x, int n) {
  float y[17];
  copy_words(y, x, (size_t)n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * (double)y[i] * y[i];
  return s;
}

/* a record serialized into a char buffer and read back */
struct record {
  int id;
  double value;
  float weight;
};
double through_buffer(const struct record *r) {
  unsigned char buf[sizeof *r];
  struct record back;
  copy_bytes(buf, r, sizeof buf);
  copy_bytes(&back, buf, sizeof back);
  return back.id * back.value * back.weight;
}

int main(void) {
  double x[17], dx[17];
  float xf[17], dxf[17];
  for (int i = 0; i < 17; i++) {
    x[i] = 0.3 + 0.1 * i;
    dx[i] = 1.0 - 0.05 * i;
    xf[i] = 0.25f + 0.125f * i;
    dxf[i] = 0.5f - 0.0625f * i;
  }
  for (int n = 1; n <= 17; n++) {
    long double want = 0, wantf = 0;
    for (int i = 0; i < n; i++) {
      want += 2.0L * (i + 1) * x[i] * dx[i];
      wantf += 2.0L * (i + 1) * xf[i] * dxf[i];
    }
    check_tangent("bytes", __enzyme_fwddiff((void *)weighted_after_bytes,
                                            enzyme_dup, x, dx, enzyme_const, n),
                  want);
    check_tangent("words", __enzyme_fwddiff((void *)weighted_after_words,
                                            enzyme_dup, xf, dxf, enzyme_const, n),
                  wantf);
  }
  struct record r = {3, 1.5, 0.25f}, dr = {0, 2.0, -1.0f};
  check_tangent("record through a char buffer",
                __enzyme_fwddiff((void *)through_buffer, enzyme_dup, &r, &dr),
                3 * (2.0L * 0.25L + 1.5L * -1.0L));
  return tc_finish("byte_copy_loops");
}
