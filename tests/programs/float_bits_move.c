/* Floats carried as their bits through integers, by data movement only (a
 * memcpy to uint64_t, a union, an integer array holding the bits, a
 * choice between two floats' bits, a memcpy between a double array and a
 * uint64_t one, sign-bit masks), and one written back into x as bits: the
 * integers carry the float's tangent.  Forward counterpart of
 * tests/rev/float_bits.c. */
#include <stdint.h>
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

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

double float_bits(double *x, int n) {
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
  s += double_of(bits_of(x[0]) & ~SIGN64) * x[1];
  s += double_of(bits_of(x[2] * x[3]) ^ SIGN64);
  s += double_of((bits_of(x[1]) & ~SIGN64) | (bits_of(x[4]) & SIGN64)) * x[3];
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

#define N 5
static const double x0[N] = {0.5, -1.25, 1.5, 0.75, -2.0};
static const double dir[N] = {1.0, -0.5, 0.25, 2.0, 0.75};

static double along(double t, void *ctx) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i] + t * dir[i];
  double r = float_bits(x, N);
  return ctx ? x[0] : r;
}

int main(void) {
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i], dx[i] = dir[i];
  double t = __enzyme_fwddiff((void *)float_bits, enzyme_dup, x, dx,
                              enzyme_const, N);
  check_tangent_fd("result", t, fd_derivative(along, NULL));
  check_tangent_fd("x[0] written as bits", dx[0], fd_derivative(along, x));
  return tc_finish("float_bits_move");
}
