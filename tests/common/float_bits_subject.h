/*
 * The subject of the float-bits tests, forward (tests/programs/
 * float_bits_move.c) and reverse (tests/rev/float_bits.c): floats carried
 * as their bits through integers by data movement only, so each integer
 * must carry the tangent (forward) or adjoint (reverse) of the float it
 * holds, as in Enzyme.  One copy, so both modes are judged on the same
 * program.
 */
#ifndef TANJIT_TESTS_FLOAT_BITS_SUBJECT_H
#define TANJIT_TESTS_FLOAT_BITS_SUBJECT_H

#include <stdint.h>
#include <string.h>

#define SIGN64 (1ULL << 63)

static inline __attribute__((always_inline)) uint64_t bits_of(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}
static inline __attribute__((always_inline)) double double_of(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

typedef union {
  double d;
  uint64_t u;
} bits64;

/* A one-double struct: clang -O1 copies it as an i64 and initializes it
 * with the bits of 1.0 as an integer constant (whose derivative is 0). */
typedef struct {
  double v[1];
} cell;
__attribute__((noinline)) static void scale(cell *to, const cell *from,
                                            double by) {
  to->v[0] = from->v[0] * by;
}

static double float_bits(double *x, int n) {
  uint64_t held[8];
  for (int i = 0; i < n; i++)
    held[i] = bits_of(x[i] * x[i]);
  double s = 0;
  for (int i = 0; i < n; i++) {
    uint64_t u = held[i];
    uint64_t v = i % 2 ? u : bits_of(x[i] * 3.0);
    bits64 b;
    b.u = v;
    s += b.d * (i + 1);
  }
  uint64_t words[8];
  memcpy(words, x, (size_t)n * sizeof *x);
  double y[8];
  for (int i = 0; i < n; i++) {
    uint64_t w = words[n - 1 - i];
    memcpy(&y[i], &w, sizeof w);
  }
  for (int i = 0; i + 1 < n; i++)
    s += y[i] * y[i + 1];
  /* fabs, -x, copysign(|x1|, x2) through the sign bit */
  s += double_of(bits_of(x[0]) & ~SIGN64) * x[1];
  s += double_of(bits_of(x[2] * x[3]) ^ SIGN64);
  s += double_of((bits_of(x[1]) & ~SIGN64) | (bits_of(x[4]) & SIGN64)) * x[3];
  /* written back into x as bits: x[0] = x[0] * x[4] */
  cell c = {{1.0}}, d;
  for (int i = 0; i < n; i++) {
    d = c;
    scale(&c, &d, x[i]);
  }
  s += c.v[0];
  uint64_t back = bits_of(x[0] * x[4]);
  memcpy(&x[0], &back, sizeof back);
  return s;
}

#endif
