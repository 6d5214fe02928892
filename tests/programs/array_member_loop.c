/* A struct with an int next to a double array member, the array indexed in
 * a loop while the int is counted: the variable index repeats within the
 * member, not over the whole struct (whose int would then share a slot
 * with the doubles and read as a float/integer conflict).  Also a ring
 * buffer of such records moved with memmove. */
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

typedef struct {
  int count;
  double x[3];
} sample;

double energy(sample *s) {
  double r = 0;
  for (int i = 0; i < 3; i++) {
    r += s->x[i] * s->x[i] * (i + 1);
    s->count++;
  }
  return r;
}

typedef struct {
  double hist[6];
  int len;
  sample last;
} ring;

double push_and_sum(ring *g, double v) {
  memmove(&g->hist[1], &g->hist[0], 5 * sizeof(double));
  g->hist[0] = v;
  g->len = g->len < 6 ? g->len + 1 : 6;
  double s = 0;
  for (int i = 0; i < g->len; i++)
    s += g->hist[i] * g->hist[i];
  return s + energy(&g->last);
}

int main(void) {
  sample s = {0, {0.5, -1.0, 2.0}}, ds = {0, {1, 1, 1}};
  check_tangent("array member", __enzyme_fwddiff((void *)energy, enzyme_dup,
                                                 &s, &ds),
                2 * (0.5 * 1 + -1.0 * 2 + 2.0 * 3));
  check_int("counted", s.count, 3);

  ring g = {{1, 2, 3, 4, 5, 6}, 3, {0, {1, 1, 1}}};
  ring dg = {{0.5, 0, 0, 0, 0, 0}, 0, {0, {0, 0, 0}}};
  /* hist becomes [v, 1, 2, ...], len 4: d/dv = 2v, d/dhist0 = 2*1*0.5 */
  double v = 1.5;
  check_tangent("ring buffer",
                __enzyme_fwddiff((void *)push_and_sum, enzyme_dup, &g, &dg, v,
                                 1.0),
                2 * v + 2 * 1.0 * 0.5);
  return tc_finish("array_member_loop");
}
