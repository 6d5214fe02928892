/*
 * The preamble the reverse-mode CUDA programs share (tests/rev_cuda): a
 * current context through the driver API, the inputs copied into the
 * primal buffer and the finite differences' point with the shadows seeded,
 * the simulator's counters around the gradient (no device allocation left
 * behind, no CUDA call failed), and for the programs whose active input is
 * one array, run() and the whole checked gradient (RCS_ARRAY_RUN,
 * rcs_check_gradient).
 */
#ifndef TANJIT_TESTS_REV_CUDA_SETUP_H
#define TANJIT_TESTS_REV_CUDA_SETUP_H

#include <cudasim.h>

#include "rev_cuda_check.h"

/* x and p from x0, dx seeded (seed_value). */
static RCC_UNUSED void rcs_inputs(const double *x0, double *x, long double *p,
                                  double *dx, int n) {
  for (int i = 0; i < n; i++)
    x[i] = x0[i], p[i] = x0[i];
  seed(dx, n);
}

/* After the gradient: the device allocations it made freed, no CUDA call
 * failed. */
static RCC_UNUSED void rcs_expect_clean(const struct cudasim_counters *before,
                                        const struct cudasim_counters *after) {
  rcc_expect_equal("live device allocations", before->live_allocations,
                   after->live_allocations);
  rcc_expect_equal("failed CUDA calls", before->errors, after->errors);
}

/* run(p) of a program whose active input is one array x of N doubles:
 * x from p, CALL (an expression of x: the function called on it), plus
 * <seed, x after the call> (x's seeds are the adjoints of its final
 * values). */
#define RCS_ARRAY_RUN(runname, N, CALL)                                      \
  static long double runname(const long double *p) {                        \
    double x[N];                                                             \
    for (int i = 0; i < N; i++)                                              \
      x[i] = (double)p[i];                                                   \
    long double r = CALL;                                                    \
    for (int i = 0; i < N; i++)                                              \
      r += seed_value(i) * (long double)x[i];                                \
    return r;                                                                \
  }

/* A program's gradient request on x, its shadow dx. */
typedef void (*rcs_request)(double *x, double *dx);

/* One gradient at x0 (n values, n <= RCC_MAX), checked: request runs on x
 * = x0 with dx seeded (rcs_inputs), between two reads of the simulator's
 * counters, kept in *before and *after where not NULL; then every entry
 * of dx against the finite differences of run (mismatches named `name`),
 * and no device allocation left behind, no CUDA call failed. */
static RCC_UNUSED void rcs_check_gradient(const char *name, rcc_fun run,
                                          const double *x0, int n,
                                          rcs_request request,
                                          struct cudasim_counters *before,
                                          struct cudasim_counters *after) {
  double x[RCC_MAX], dx[RCC_MAX];
  long double p[RCC_MAX];
  rcs_inputs(x0, x, p, dx, n);
  struct cudasim_counters b, a;
  cudasim_get_counters(&b);
  request(x, dx);
  cudasim_get_counters(&a);
  rcc_check(name, run, p, dx, n);
  rcs_expect_clean(&b, &a);
  if (before)
    *before = b;
  if (after)
    *after = a;
}

#ifdef CUDA_VERSION /* <cuda.h>: the driver API */
#include "../common/cuda_driver_context.h"
#endif

#endif
