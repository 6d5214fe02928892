#include "rev_check.h"
/* Structs copied by assignment in functions that never touch their
 * members: at O0TBAA (clang -O1 without LLVM's passes) each copy is an
 * llvm.memcpy whose only type information is its !tbaa.struct. */
typedef struct state {
  double pos, vel, mass;
} state;
typedef struct span {
  double *data;
  long n;
} span;
__attribute__((noinline)) static void assign(state *d, const state *s) { *d = *s; }
__attribute__((noinline)) static void assign_span(span *d, const span *s) { *d = *s; }
__attribute__((noinline)) static double energy(const span *s) {
  double e = 0;
  for (long i = 0; i + 2 < s->n + 1; i += 3)
    e += 0.5 * s->data[i + 2] * s->data[i + 1] * s->data[i + 1] + s->data[i] * s->data[i];
  return e;
}
static double struct_copy_tbaa(double *x, int n) {
  state a = {x[0], x[1], x[2]}, b;
  assign(&b, &a);
  b.vel *= x[3];
  state c;
  assign(&c, &b);
  double buf[3] = {c.pos, c.vel, c.mass};
  span s = {buf, 3}, t;
  assign_span(&t, &s);
  (void)n;
  return energy(&t) * c.mass;
}
RC_ARRAY_TEST(struct_copy_tbaa, 4, 0.5, -1.0, 0.7, 1.3)
