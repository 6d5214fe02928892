#include <string.h>
#include "rev_check.h"
#include "split_abi.h"
/* The augmented forward pass and the reverse recompute the primal's values
 * bit for bit: they are compiled for the primal's target (its
 * "target-cpu" and "target-features").  Clang's default target (x86-64)
 * has no FMA, so x0 x1 - x2 (an llvm.fmuladd: C's default
 * -ffp-contract=on) is a product rounded to 1, then 1 - 1 = 0; compiled
 * for a host with FMA it would be the fused -2^-60, and the pair's
 * primal result and its adjoint of x3 would be off by 1 (the 2^60 scale
 * makes the last bits whole numbers).  Where the JIT's host has no FMA
 * either the two agree anyway (the test then cannot tell). */
augmented __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

enum { N = 4 };

/* 1 + 2^-30 and 1 - 2^-30: their product 1 - 2^-60 rounds to 1 */
static volatile double inputs[N] = {0x1.00000004p0, 0x1.fffffff8p-1, 1.0,
                                    1.0};

__attribute__((noinline)) static double f(const double *x, int n) {
  (void)n;
  return (x[0] * x[1] - x[2]) * x[3] * 0x1p60;
}

RC_ARRAY_RUN(run, f, N)

/* The smooth entries x0, x1, x2 against finite differences; x3's adjoint
 * is the primal's own (x0 x1 - x2) 2^60, which at x3 = 1 is f(x): the
 * reverse must use the value the primal computes, exactly (a finite
 * difference in long double would see the unrounded -1 instead). */
static void check(const char *name, const double *x, const double *dx) {
  long double p[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  for (int i = 0; i < N - 1; i++) {
    long double want = rc_fd(run, p, N, i);
    rc_checks++;
    if (fabsl(dx[i] - want) > 1e-6L * fabsl(want)) {
      rc_failures++;
      printf("MISMATCH %s: gradient entry %d: got %.17g, finite difference "
             "%.17Lg\n",
             name, i, dx[i], want);
    }
  }
  rc_expect(name, dx[3], rc_seed_value(3) + f(x, N), 0);
}

int main(void) {
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = inputs[i];
  double primal = f(x, N);

  rc_seed(dx, N);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  check("primal_environment (gradient)", x, dx);

  rc_seed(dx, N);
  augmented a = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx,
                                    enzyme_const, N);
  /* bit for bit: the pair's primal is the primal's */
  rc_checks++;
  if (memcmp(&a.primal, &primal, sizeof primal) != 0) {
    rc_failures++;
    printf("MISMATCH primal_environment: augmented pass returns %a, the "
           "primal %a\n",
           a.primal, primal);
  }
  __enzyme_reverse((void *)f, enzyme_dup, x, dx, enzyme_const, N, 1.0,
                   a.tape);
  check("primal_environment (split mode)", x, dx);
  return rc_result();
}
