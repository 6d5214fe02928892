/*
 * The judge of the reverse-mode CUDA programs (tests/rev_cuda): each
 * gradient entry against a central finite difference.
 *
 * A program writes `run(p)`: the scalar whose gradient reverse mode gives,
 * as a function of the active inputs flattened into p.  Shadows start
 * nonzero (seed_value), and reverse mode adds J^T (1 for the result, the
 * seeds for the buffers' final values) into them, so run(p) is the loss
 * plus <seed, the buffers after the call>, and each entry of the gradient
 * must equal d run / d p_i.  The primal itself runs through the simulator
 * (or a GPU): the finite differences see the same device code.
 *
 * Five-point stencil, h = 1e-3 (1 + |p_i|), in long double.  main returns
 * rcc_result(): 0 only when every entry matched and the gradient freed
 * every device allocation it made (rcc_live_device_allocations).
 */
#ifndef TANJIT_TESTS_REV_CUDA_CHECK_H
#define TANJIT_TESTS_REV_CUDA_CHECK_H

#include <math.h>
#include <stdio.h>

#define RCC_UNUSED __attribute__((unused))
#define RCC_MAX 64

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

static int rcc_checks, rcc_failures;

static RCC_UNUSED double seed_value(int i) { return 0.5 - 0.125 * (i % 5); }

static RCC_UNUSED void seed(double *d, int n) {
  for (int i = 0; i < n; i++)
    d[i] = seed_value(i);
}

typedef long double (*rcc_fun)(const long double *p);

static RCC_UNUSED long double rcc_fd(rcc_fun run, const long double *p0, int n,
                                     int i) {
  long double p[RCC_MAX];
  for (int k = 0; k < n && k < RCC_MAX; k++)
    p[k] = p0[k];
  long double h = 1e-3L * (1 + fabsl(p0[i]));
  static const int steps[4] = {-2, -1, 1, 2};
  long double f[4];
  for (int s = 0; s < 4; s++) {
    p[i] = p0[i] + steps[s] * h;
    f[s] = run(p);
  }
  return (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h);
}

static RCC_UNUSED void rcc_check(const char *name, rcc_fun run,
                                 const long double *p0, const double *got,
                                 int n) {
  for (int i = 0; i < n; i++) {
    long double want = rcc_fd(run, p0, n, i);
    rcc_checks++;
    if (!isnan(got[i]) && fabsl(got[i] - want) <= 1e-8L + 1e-6L * fabsl(want))
      continue;
    rcc_failures++;
    printf("MISMATCH %s: gradient entry %d: got %.17g, finite difference "
           "%.17Lg\n",
           name, i, got[i], want);
  }
}

/* A gradient that leaves device allocations behind (shadows never freed)
 * fails too. */
static RCC_UNUSED void rcc_expect_equal(const char *what,
                                        unsigned long long before,
                                        unsigned long long after) {
  rcc_checks++;
  if (before == after)
    return;
  rcc_failures++;
  printf("MISMATCH %s: %llu before the gradient, %llu after\n", what, before,
         after);
}

static RCC_UNUSED int rcc_result(const char *name) {
  printf("%s: %d checks, %d failures\n", name, rcc_checks, rcc_failures);
  return rcc_failures != 0 || rcc_checks == 0;
}

#endif
