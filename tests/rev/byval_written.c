#include "rev_check.h"
/* A struct of doubles, an int and a pointer into active memory passed by
 * value (byval: 48 bytes) to a callee that writes its own copy (the float
 * members updated in place, one of them in a loop) and writes the caller's
 * memory through the pointer member.  The callee's writes to its copy must
 * not reach the caller's struct (the second call sees the original), and
 * the adjoints of the copy's float members must flow back into the
 * caller's. */
struct state {
  double a, b;
  double *out;
  double w[2];
  int n;
};

__attribute__((noinline)) double advance(struct state s, double t) {
  s.a = s.a * t + s.b;
  s.w[0] *= s.a;
  for (int i = 0; i < s.n; i++) {
    s.out[i] += s.w[0] * s.b;
    s.b = sin(s.b) * s.a;
  }
  return s.a * s.w[1] + s.b;
}

/* void: the record of the copy's shadow is keyed by a call with no value */
__attribute__((noinline)) void scatter(struct state s, double t) {
  s.a *= t;
  s.w[1] = s.w[1] * s.a + s.b;
  s.out[0] += s.a * s.w[1];
  s.out[1] = s.out[1] * s.b;
}

static double byval_written(double *x, int n) {
  struct state s = {x[0], x[1], &x[4], {x[2], x[3]}, n - 4};
  double r = advance(s, x[0]);
  r += advance(s, x[1]) * s.a; /* s is unchanged by the first call */
  scatter(s, x[3]);
  s.w[1] = r;
  return r * s.w[0] + advance(s, 0.5);
}

RC_ARRAY_TEST(byval_written, 6, 0.75, -0.5, 1.25, 0.4, 0.3, -0.2)
