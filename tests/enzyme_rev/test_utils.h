/*
 * Stands in for Enzyme's test/Integration/test_utils.h in the ported
 * ReverseMode tests (tests/enzyme_rev): the activity markers, and checks
 * that print the mismatch and end the program with status 1 (a NaN on
 * either side is a mismatch too), so `tanjit run` reports the failure.
 */
#ifndef TANJIT_TESTS_ENZYME_REV_UTILS_H
#define TANJIT_TESTS_ENZYME_REV_UTILS_H

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <assert.h>

#ifdef __cplusplus
extern "C"
#else
extern
#endif
int enzyme_allocated, enzyme_const, enzyme_dup, enzyme_dupnoneed, enzyme_out,
    enzyme_tape;

/* Braces, not do/while: Enzyme's files call these with and without a
 * semicolon after them (ForwardMode/rosenbrock.cpp). */
#define APPROX_EQ(LHS, RHS, THRES)                                           \
  {                                                                          \
    double tanjit_l = (double)(LHS), tanjit_r = (double)(RHS);               \
    if (!(__builtin_fabs(tanjit_l - tanjit_r) <= (THRES))) {                 \
      fprintf(stderr, "%s:%d: %s = %.17g, %s = %.17g, tolerance %g\n",       \
              __FILE__, __LINE__, #LHS, tanjit_l, #RHS, tanjit_r,            \
              (double)(THRES));                                              \
      exit(1);                                                               \
    }                                                                        \
  }

#define TEST_EQ(LHS, RHS)                                                    \
  {                                                                          \
    if ((LHS) != (RHS)) {                                                    \
      fprintf(stderr, "%s:%d: %s != %s\n", __FILE__, __LINE__, #LHS, #RHS);  \
      exit(1);                                                               \
    }                                                                        \
  }

#endif
