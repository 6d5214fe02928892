#include "rev_check.h"
// A state initialized, and later reset, from a constant (clang -O0:
// `State s = {{1.0, 2.0}}` and `s = kStart` are llvm.memcpy calls from
// constant globals) whose memory the
// context-insensitive analysis merges with bytes read as single integers:
// one helper, never inlined, hashes the bytes of the state and of a
// character buffer (a double and a char at byte 0: a conflict).  The
// constant's initializer says its bytes are doubles; copied from memory
// without a shadow, float bytes get the destination's shadow zeroed,
// which is right whatever reads them (taken for integers, the reset would
// let the adjoints of the second run's state flow into the first's).
struct State {
  double v[2];
};

__attribute__((noinline)) static unsigned checksum(const void *p,
                                                   unsigned long n) {
  const unsigned char *b = static_cast<const unsigned char *>(p);
  unsigned h = 0;
  for (unsigned long i = 0; i < n; i++)
    h = h * 31u + b[i];
  return h;
}

__attribute__((noinline)) static void step(State &s, const double *x) {
  double a = s.v[0] * x[0] + s.v[1];
  s.v[1] = s.v[0] * x[1];
  s.v[0] = a;
}

static const State kStart = {{1.0, 2.0}};

static double cpp_const_init_copy(double *x, int n) {
  char tag[4] = {'s', 't', 'e', 'p'};
  State s = {{1.0, 2.0}};
  unsigned h = checksum(tag, sizeof tag) + checksum(&s, sizeof s);
  step(s, x);
  double r = s.v[0] * s.v[1];
  s = kStart; // the adjoints of s's doubles stop here
  for (int i = 0; i < n; i++)
    step(s, x);
  return r + s.v[0] * s.v[1] + (h % 2 == 7 ? x[2] : 0) + x[2] * s.v[0];
}

RC_ARRAY_TEST(cpp_const_init_copy, 3, 0.6, -0.8, 1.1)
