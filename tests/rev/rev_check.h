/*
 * The judge of the reverse-mode programs (tests/rev): every gradient entry
 * against a central finite difference taken in long double.
 *
 * Each program writes `run(p)`: the scalar the gradient is a gradient of,
 * as a function of every active input flattened into p.  Shadows start
 * nonzero (rc_seed), and reverse mode adds J^T (result seed, shadow seeds)
 * into them, so for a function that returns r(x) and leaves x_after(x)
 * in its buffers, the shadow after the request must equal
 *   d/dx [ r(x) + <seed, x_after(x)> ]
 * (a buffer only read has x_after = x: the seed is kept and the gradient
 * added; one overwritten in place has its seed consumed as the adjoint of
 * its final value, Enzyme's semantics).  run() computes exactly that, so
 * rc_check compares each entry of `got` with d run / d p_i.
 *
 * The stencil is five-point, [-f(2h) + 8 f(h) - 8 f(-h) + f(-2h)] / 12h,
 * h = 1e-3 (1 + |p_i|), differences in long double.  main returns
 * rc_result(): 0 only when every entry matched.
 */
#ifndef TANJIT_TESTS_REV_CHECK_H
#define TANJIT_TESTS_REV_CHECK_H

#include <math.h>
#include <stdio.h>

#define RC_UNUSED __attribute__((unused))

/* C names in C++ too (a program with its own prototype of
 * __enzyme_autodiff, another signature, defines RC_OWN_PROTOTYPE) */
#ifdef __cplusplus
extern "C" {
#endif
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
#ifndef RC_OWN_PROTOTYPE
double __enzyme_autodiff(void *, ...);
#endif
#ifdef __cplusplus
}
#endif

static int rc_checks, rc_failures;

/* The seed of shadow entry i (nonzero, distinct). */
static RC_UNUSED double rc_seed_value(int i) { return 0.25 + 0.125 * (i % 7); }

static RC_UNUSED void rc_seed(double *d, int n) {
  for (int i = 0; i < n; i++)
    d[i] = rc_seed_value(i);
}
static RC_UNUSED void rc_seedf(float *d, int n) {
  for (int i = 0; i < n; i++)
    d[i] = (float)rc_seed_value(i);
}
static RC_UNUSED void rc_seedl(long double *d, int n) {
  for (int i = 0; i < n; i++)
    d[i] = rc_seed_value(i);
}

typedef long double (*rc_fun)(const long double *p);

static RC_UNUSED long double rc_fd(rc_fun run, const long double *p0, int n,
                                   int i) {
  long double p[256];
  for (int k = 0; k < n && k < 256; k++)
    p[k] = p0[k];
  long double h = 1e-3L * (1 + fabsl(p0[i]));
  long double f[4];
  static const int steps[4] = {-2, -1, 1, 2};
  for (int s = 0; s < 4; s++) {
    p[i] = p0[i] + steps[s] * h;
    f[s] = run(p);
  }
  return (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h);
}

/* Compares got[i] with d run / d p_i for every i (tolerance rtol, atol). */
static RC_UNUSED void rc_check_tol(const char *name, rc_fun run,
                                   const long double *p0,
                                   const long double *got, int n,
                                   long double rtol, long double atol) {
  for (int i = 0; i < n; i++) {
    long double want = rc_fd(run, p0, n, i);
    rc_checks++;
    if (!isnan(got[i]) && fabsl(got[i] - want) <= atol + rtol * fabsl(want))
      continue;
    rc_failures++;
    printf("MISMATCH %s: gradient entry %d: got %.17Lg, finite difference "
           "%.17Lg\n",
           name, i, got[i], want);
  }
}

static RC_UNUSED void rc_check(const char *name, rc_fun run,
                               const long double *p0, const long double *got,
                               int n) {
  rc_check_tol(name, run, p0, got, n, 1e-6L, 1e-8L);
}

/* Float programs: float round-off, larger steps would not help. */
static RC_UNUSED void rc_checkf(const char *name, rc_fun run,
                                const long double *p0, const long double *got,
                                int n) {
  rc_check_tol(name, run, p0, got, n, 2e-3L, 2e-3L);
}

/* An exact expectation (a value Enzyme's own tests state). */
static RC_UNUSED void rc_expect(const char *name, long double got,
                                long double want, long double tol) {
  rc_checks++;
  if (!isnan(got) && fabsl(got - want) <= tol)
    return;
  rc_failures++;
  printf("MISMATCH %s: got %.17Lg, expected %.17Lg\n", name, got, want);
}

static RC_UNUSED int rc_result(void) {
  if (rc_failures)
    printf("%d of %d checks failed\n", rc_failures, rc_checks);
  return rc_failures != 0 || rc_checks == 0;
}

/* The common shape: double f(double *x, int n), x duplicated (shadow
 * seeded), n constant.  run() is f plus <seed, x after>. */
#define RC_ARRAY_RUN(runname, f, N)                                          \
  static long double runname(const long double *p) {                        \
    double x[N];                                                             \
    for (int i = 0; i < N; i++)                                              \
      x[i] = (double)p[i];                                                   \
    long double r = f(x, N);                                                 \
    for (int i = 0; i < N; i++)                                              \
      r += rc_seed_value(i) * (long double)x[i];                             \
    return r;                                                                \
  }

/* How the test's request names x's activity: with Enzyme's markers, or
 * unmarked (a pointer is duplicated and an integer constant by default). */
#define RC_MARKED(f, x, dx, n)                                               \
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n)
#define RC_UNMARKED(f, x, dx, n) __enzyme_autodiff((void *)f, x, dx, n)

/* The whole test of that shape: the request written as REQUEST says, x0
 * the point (N values), name the test's name in mismatch messages. */
#define RC_ARRAY_TEST_AS(name, REQUEST, f, N, ...)                           \
  RC_ARRAY_RUN(run_##f, f, N)                                                \
  int main(void) {                                                           \
    double x0[N] = {__VA_ARGS__}, x[N], dx[N];                               \
    long double p[N], got[N];                                                \
    for (int i = 0; i < N; i++)                                              \
      x[i] = x0[i], p[i] = x0[i];                                            \
    rc_seed(dx, N);                                                          \
    REQUEST(f, x, dx, N);                                                    \
    for (int i = 0; i < N; i++)                                              \
      got[i] = dx[i];                                                        \
    rc_check(name, run_##f, p, got, N);                                      \
    return rc_result();                                                      \
  }

#define RC_ARRAY_TEST(f, N, ...) RC_ARRAY_TEST_AS(#f, RC_MARKED, f, N, __VA_ARGS__)

#endif
