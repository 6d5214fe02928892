/*
 * Scaffolding shared by the Enzyme compatibility corpus (tests/enzyme).
 *
 * The programs here take the form of Enzyme's forward-mode integration
 * tests (enzyme/test/Integration/ForwardMode*; those run from a checkout,
 * see meson.build) with a harness of their own: instead of aborting on
 * the first mismatch, APPROX_EQ records it and the program's main returns
 * enzyme_compat_result(), nonzero when anything failed, so `tanjit run`
 * reports the failure through its exit status.
 *
 * A test that declares __enzyme_fwddiff with its own prototype (a typed
 * function pointer, a float or struct result) defines
 * ENZYME_COMPAT_OWN_PROTOTYPE before including this header, since C allows
 * only one declaration of a name per translation unit.
 */
#ifndef TANJIT_TESTS_ENZYME_COMPAT_H
#define TANJIT_TESTS_ENZYME_COMPAT_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Read only by the engine, which recognises loads of these globals in a
 * request's argument list; they need no definition at run time. */
extern int enzyme_dup, enzyme_const, enzyme_dupnoneed, enzyme_width;

#ifndef ENZYME_COMPAT_OWN_PROTOTYPE
double __enzyme_fwddiff(void *, ...);
#endif

static int enzyme_compat_failures;

static void enzyme_compat_report(const char *what, double got, double want,
                                 double tolerance, const char *file, int line)
{
  fprintf(stderr, "%s:%d: %s: got %.17g, expected %.17g (tolerance %g)\n",
          file, line, what, got, want, tolerance);
  enzyme_compat_failures++;
}

/* |LHS - RHS| <= THRES; a NaN on either side counts as a mismatch. */
#define APPROX_EQ(LHS, RHS, THRES)                                           \
  do {                                                                       \
    double enzyme_compat_l = (double)(LHS), enzyme_compat_r = (double)(RHS); \
    if (!(__builtin_fabs(enzyme_compat_l - enzyme_compat_r) <= (THRES)))     \
      enzyme_compat_report(#LHS " vs " #RHS, enzyme_compat_l,                \
                           enzyme_compat_r, (THRES), __FILE__, __LINE__);    \
  } while (0)

/* Exact equality, where the sign of a zero matters too. */
#define TEST_EQ(LHS, RHS)                                                    \
  do {                                                                       \
    double enzyme_compat_l = (double)(LHS), enzyme_compat_r = (double)(RHS); \
    if (!(enzyme_compat_l == enzyme_compat_r) ||                             \
        signbit(enzyme_compat_l) != signbit(enzyme_compat_r))                \
      enzyme_compat_report(#LHS " == " #RHS, enzyme_compat_l,                \
                           enzyme_compat_r, 0.0, __FILE__, __LINE__);        \
  } while (0)

/* A check the original test made by hand (printing and aborting). */
#define ENZYME_COMPAT_FAIL(MESSAGE)                                          \
  do {                                                                       \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, (MESSAGE));           \
    enzyme_compat_failures++;                                                \
  } while (0)

/* main's exit status: 0 when every check held. */
static inline int enzyme_compat_result(void)
{
  if (enzyme_compat_failures)
    fprintf(stderr, "%d check(s) failed\n", enzyme_compat_failures);
  return enzyme_compat_failures != 0;
}

#endif
