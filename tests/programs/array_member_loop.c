/* A struct with an int next to a double array member, the array indexed in
 * a loop while the int is counted: the variable index repeats within the
 * member, not over the whole struct (whose int would then share a slot
 * with the doubles and read as a float/integer conflict).  clang 19 writes
 * the loop as an array GEP, clang 20+ at -O1 as a double GEP from &x. */
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

int main(void) {
  sample s = {0, {0.5, -1.0, 2.0}}, ds = {0, {1, 1, 1}};
  check_tangent("array member", __enzyme_fwddiff((void *)energy, enzyme_dup,
                                                 &s, &ds),
                2 * (0.5 * 1 + -1.0 * 2 + 2.0 * 3));
  check_int("counted", s.count, 3);

  return tc_finish("array_member_loop");
}
