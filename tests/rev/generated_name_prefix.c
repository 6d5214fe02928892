#include "rev_check.h"
/* A program's own function whose name begins as tanjit's derivatives'
 * names do ("diffe", "augmented_"): it is the program's code all the same.
 * copy_rec's copy of a struct (one llvm.memcpy at -O0, where clang writes
 * no TBAA) touches no member: what its bytes are (a double, an int, a
 * pointer into active memory) is known only in its callers, here
 * difference_of_squares, which type analysis once took for a derivative by
 * its name and left out, refusing the copy. */
struct rec {
  double v;
  int k;
  const double *p;
};

__attribute__((noinline)) static void copy_rec(struct rec *d,
                                               const struct rec *s) {
  *d = *s;
}

static double difference_of_squares(double *x, int n) {
  struct rec a = {x[0] * x[0] - x[1] * x[1], n, &x[2]};
  struct rec b;
  copy_rec(&b, &a);
  return b.v * *b.p + b.k * x[1];
}

RC_ARRAY_TEST(difference_of_squares, 3, 1.5, -0.75, 2.0)
