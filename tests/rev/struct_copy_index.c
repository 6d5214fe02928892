#include "rev_check.h"
/* A struct of double arrays, copied by value and read at variable
 * indices: at -O0 clang copies it with one llvm.memcpy and indexes the
 * member arrays in loops, so the copy's bytes are known to be doubles
 * only through those indexed reads. */
struct state {
  double pos[3];
  double weight[2];
};

static double energy_of(const struct state *s) {
  double e = 0;
  for (int i = 0; i < 3; i++)
    e += s->pos[(i + 1) % 3] * s->pos[i] * s->weight[i % 2];
  return e;
}

static double struct_copy_index(double *x, int n) {
  struct state s;
  for (int i = 0; i < 3; i++)
    s.pos[i] = x[i];
  s.weight[0] = x[3];
  s.weight[1] = x[n - 1];
  struct state t = s; /* a copy by value */
  double e = 0;
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < 3; i++)
      t.pos[i] = t.pos[i] * t.weight[k] + sin(t.pos[(i + 2) % 3]);
    struct state u = t;
    e += energy_of(&u);
  }
  return e;
}
RC_ARRAY_TEST(struct_copy_index, 5, 0.7, -0.4, 1.1, 0.9, 0.3)
