/*
 * The judge of the CUDA test programs: each program requests derivatives
 * with Enzyme's C interface, compares every tangent with its analytic
 * value, and returns the number of mismatches from main (0: all held).
 * The Check harness (test_cuda.c) runs the program in a session bound to
 * the simulator and checks the simulator's counters around it.
 */
#ifndef TANJIT_TESTS_CUDA_CHECK_H
#define TANJIT_TESTS_CUDA_CHECK_H

#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

static int cc_checks, cc_failures;

/* Tangents here are sums of a few products of small numbers: anything
 * beyond round-off is a wrong derivative. */
static __attribute__((unused)) void expect(const char *what, int i,
                                           double got, double want) {
  cc_checks++;
  if (fabs(got - want) > 1e-12 * fmax(1.0, fabs(want))) {
    cc_failures++;
    printf("MISMATCH %s[%d]: %.17g, expected %.17g\n", what, i, got, want);
  }
}

static __attribute__((unused)) int finish(const char *name) {
  printf("%s: %d checks, %d failures\n", name, cc_checks, cc_failures);
  return cc_failures != 0; /* a raw count wraps to 0 at 256 */
}

#ifdef CUDA_VERSION /* <cuda.h>, included first: the driver API */
#include "../common/cuda_driver_context.h"
#endif

#endif
