/*
 * The judge shared by the end-to-end programs: compares tangents against an
 * analytic value or a central finite difference, counts mismatches, and
 * turns them into main's exit status (0 only when every check held).
 *
 * Everything here is static, so a program stays one translation unit that
 * `tanjit run` can load alone.  None of it is ever differentiated.
 *
 * Finite differences use the five-point stencil
 *   g'(0) ~ [g(-2h) - 8 g(-h) + 8 g(h) - g(2h)] / 12h
 * with the differences taken in long double: truncation O(h^4), so h = 1e-3
 * leaves both truncation and double round-off (~1e-16/h) far below the
 * tolerance.
 *
 * Built with -DTANGENT_NATIVE_SELFTEST (and native_stub.c standing in for
 * the engine), tangent checks are skipped: what remains checks the primal
 * values and that each analytic reference agrees with finite differences,
 * so the references themselves are known right before any engine runs.
 */
#ifndef TANJIT_TESTS_TANGENT_CHECK_H
#define TANJIT_TESTS_TANGENT_CHECK_H

#include <math.h>
#include <stdio.h>

#define TC_UNUSED __attribute__((unused))

/* Double tangents against an exact (analytic) reference. */
#define TC_RTOL_EXACT 1e-11L
#define TC_ATOL_EXACT 1e-13L
/* Double tangents, or references, against a finite difference. */
#define TC_RTOL_FD 1e-7L
#define TC_ATOL_FD 1e-9L
/* Float tangents: float round-off (~6e-8) accumulated over a kernel. */
#define TC_RTOL_FLOAT 2e-4L
#define TC_ATOL_FLOAT 1e-5L

static int tc_checks, tc_failures, tc_skipped;

static TC_UNUSED int tc_close(long double got, long double want,
                              long double rtol, long double atol) {
  if (isnan(got) || isnan(want))
    return 0;
  return fabsl(got - want) <= atol + rtol * fabsl(want);
}

static TC_UNUSED void tc_compare(const char *kind, const char *what,
                                 long double got, long double want,
                                 long double rtol, long double atol) {
  tc_checks++;
  if (tc_close(got, want, rtol, atol))
    return;
  tc_failures++;
  printf("MISMATCH %s %s: got %.17Lg, expected %.17Lg (diff %.3Lg)\n", kind,
         what, got, want, got - want);
}

/* A tangent the engine produced; skipped in the native self-test. */
static TC_UNUSED void tc_tangent(const char *what, long double got,
                                 long double want, long double rtol,
                                 long double atol) {
#ifdef TANGENT_NATIVE_SELFTEST
  (void)what, (void)got, (void)want, (void)rtol, (void)atol;
  tc_skipped++;
#else
  tc_compare("tangent", what, got, want, rtol, atol);
#endif
}

static TC_UNUSED void check_tangent(const char *what, double got,
                                    long double want) {
  tc_tangent(what, got, want, TC_RTOL_EXACT, TC_ATOL_EXACT);
}

static TC_UNUSED void check_tangent_fd(const char *what, double got,
                                       long double fd) {
  tc_tangent(what, got, fd, TC_RTOL_FD, TC_ATOL_FD);
}

static TC_UNUSED void check_tangent_float(const char *what, float got,
                                          long double want) {
  tc_tangent(what, got, want, TC_RTOL_FLOAT, TC_ATOL_FLOAT);
}

static TC_UNUSED void check_primal(const char *what, double got,
                                   long double want) {
  tc_compare("primal", what, got, want, TC_RTOL_EXACT, TC_ATOL_EXACT);
}

/* A primal value that the derivative call itself wrote (an output
 * parameter of the differentiated function): the engine's doing, so skipped
 * natively like a tangent. */
static TC_UNUSED void check_primal_out(const char *what, double got,
                                       long double want) {
  tc_tangent(what, got, want, TC_RTOL_EXACT, TC_ATOL_EXACT);
}

static TC_UNUSED void check_int(const char *what, long got, long want) {
  tc_checks++;
  if (got == want)
    return;
  tc_failures++;
  printf("MISMATCH value %s: got %ld, expected %ld\n", what, got, want);
}

/* An analytic reference must itself agree with finite differences. */
static TC_UNUSED void check_reference(const char *what, long double analytic,
                                      long double fd) {
  tc_compare("reference", what, analytic, fd, TC_RTOL_FD, TC_ATOL_FD);
}

/* The same for a float function, whose finite difference is float-noisy. */
static TC_UNUSED void check_reference_float(const char *what,
                                            long double analytic,
                                            long double fd) {
  tc_compare("reference", what, analytic, fd, TC_RTOL_FLOAT, TC_ATOL_FLOAT);
}

/* g(t, ctx): the program's function along one direction, t = 0 the point. */
typedef double (*tc_line_fn)(double t, void *ctx);

static TC_UNUSED long double fd_derivative_h(tc_line_fn g, void *ctx,
                                             double h) {
  long double m2 = g(-2 * h, ctx), m1 = g(-h, ctx);
  long double p1 = g(h, ctx), p2 = g(2 * h, ctx);
  return (m2 - 8 * m1 + 8 * p1 - p2) / (12.0L * h);
}

static TC_UNUSED long double fd_derivative(tc_line_fn g, void *ctx) {
  return fd_derivative_h(g, ctx, 1e-3);
}

typedef float (*tc_line_fn_float)(float t, void *ctx);

/* Float: a wider step, since float round-off is ~1e-7 of the value. */
static TC_UNUSED long double fd_derivative_float(tc_line_fn_float g,
                                                 void *ctx) {
  const float h = 1e-2f;
  long double m2 = g(-2 * h, ctx), m1 = g(-h, ctx);
  long double p1 = g(h, ctx), p2 = g(2 * h, ctx);
  return (m2 - 8 * m1 + 8 * p1 - p2) / (12.0L * h);
}

/* A one-argument function checked at x: its tangent (the request's
 * result, seeded with 1) against the analytic value `want`, and `want`
 * itself against a finite difference, so a wrong expectation fails too. */
typedef double (*tc_unary)(double);
static TC_UNUSED tc_unary tc_unary_checked;
static TC_UNUSED double tc_unary_along(double t, void *ctx) {
  return tc_unary_checked(*(double *)ctx + t);
}
static TC_UNUSED void tc_check_unary(const char *name, tc_unary f, double x,
                                     double tangent, long double want) {
  tc_unary_checked = f;
  check_reference(name, want, fd_derivative(tc_unary_along, &x));
  check_tangent(name, tangent, want);
}
/* A request must name its function as a constant: one request per use. */
#define CHECK_UNARY(name, f, x, want)                                          \
  tc_check_unary(name, f, x, __enzyme_fwddiff((void *)f, x, 1.0), want)

/* main's return value: 0 when every check held. */
static TC_UNUSED int tc_finish(const char *program) {
  if (tc_checks + tc_skipped == 0) {
    printf("%s: FAIL: no check ran\n", program);
    return 1;
  }
  if (tc_failures) {
    printf("%s: FAIL: %d of %d checks failed\n", program, tc_failures,
           tc_checks);
    return 1;
  }
  printf("%s: ok (%d checks", program, tc_checks);
  if (tc_skipped)
    printf(", %d tangent checks skipped natively", tc_skipped);
  printf(")\n");
  return 0;
}

#endif
