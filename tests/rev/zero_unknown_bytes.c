#include <string.h>

#include "rev_check.h"
// A zero memset of memory whose bytes type analysis cannot classify: one
// helper, never inlined, clears a buffer of doubles and a struct holding
// a pointer, so the context-insensitive analysis merges the two (a double
// and a pointer at byte 0: a conflict).  Zero is every kind's shadow, so
// reverse mode zeroes the bytes in both passes: the doubles' adjoints stop
// at the memset (the cleared values reach nothing) and the pointer's
// shadow is set to null as the pointer is, before the node is reused.
struct node {
  double *target;
  double w;
};

__attribute__((noinline)) static void clear(void *p, unsigned long n) {
  memset(p, 0, n);
}

static double zero_unknown_bytes(double *x, int n) {
  double acc[3];
  struct node nd;
  acc[0] = x[0] * x[1];
  acc[1] = x[1] * x[2];
  acc[2] = x[0] * x[0];
  double s = acc[0] + 2 * acc[1] + acc[2];
  nd.target = &acc[1];
  nd.w = x[2];
  s += *nd.target * nd.w;
  clear(acc, sizeof acc);   // their adjoints must not reach x
  clear(&nd, sizeof nd);
  acc[0] += x[2] * 3;
  acc[2] += x[0];
  nd.target = &acc[2];
  nd.w += x[1];
  s += *nd.target * nd.w + acc[0] * acc[1];
  return s * (n - 2);
}

RC_ARRAY_TEST(zero_unknown_bytes, 3, 0.7, -1.3, 0.4)
