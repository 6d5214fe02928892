/* Callbacks from a constant table that holds libm functions as well as the
 * program's own (the shape Enzyme's forward mode gets wrong): a declared
 * function whose address is taken is a possible target, differentiated by
 * its rule through a direct-call wrapper.  Before, a call through sin here
 * trapped. */
#include "enzyme.h"
#include "tangent_check.h"

typedef double (*real_fn)(double);

static double sq(double x) { return x * x; }
static const real_fn table[4] = {sin, sq, exp, tanh};

static double apply(const int *ops, int n, double x) {
  for (int i = 0; i < n; i++)
    x = table[ops[i]](x) + 0.1 * x;
  return x;
}

static long double apply_ld(const int *ops, int n, long double x) {
  for (int i = 0; i < n; i++) {
    long double y = ops[i] == 0   ? sinl(x)
                    : ops[i] == 1 ? x * x
                    : ops[i] == 2 ? expl(x)
                                  : tanhl(x);
    x = y + 0.1L * x;
  }
  return x;
}

int main(void) {
  static const int ops[5] = {0, 1, 2, 3, 0};
  double x = 0.7;
  long double h = 1e-7L;
  long double want = (apply_ld(ops, 5, x + h) - apply_ld(ops, 5, x - h)) / (2 * h);
  check_primal("apply runs", apply(ops, 5, x), (double)apply_ld(ops, 5, x));
  check_tangent("through sin, sq, exp and tanh",
                __enzyme_fwddiff((void *)apply, enzyme_const, ops,
                                 enzyme_const, 5, x, 1.0),
                want);
  return tc_finish("indirect_libm_targets");
}
