/*
 * Lazy compilation differentiates a request when the function holding it
 * is first compiled (src/jit/lazy.c, request_groups.c): a request in a
 * function never called is never differentiated (tanjit_stats counts the
 * requests replaced) and its error fails only that function; requests
 * that share derivatives are differentiated together; a function holding
 * a request reached from two callers, or from another module, is
 * differentiated once; and every result has the bits of eager mode.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/check_main.h"
#include "session_fixture.h"

static tanjit_session *open_session(tanjit_compile_mode mode, tanjit_derivative_fp fp) {
  return fixture_session((fixture_options){mode, NULL, 1, fp});
}

static unsigned long requests_so_far(tanjit_session *s) {
  tanjit_stats st;
  tanjit_session_stats(s, &st);
  return st.requests;
}

static void load_as(tanjit_session *s, const char *name, const char *text) {
  tanjit_error *err = NULL;
  int rc = tanjit_load_memory(s, text, strlen(text), name, &err);
  ck_assert_msg(rc == 0, "%s", err ? tanjit_error_message(err) : "");
}

/* dsq and dcube differentiate functions of their own; dbad's target calls
 * a function nothing can differentiate; both callers reach dsq. */
static const char three_requests[] =
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "declare double @opaque_for_deferred(double)\n"
    "define double @sq(double %x) {\n"
    "  %r = fmul double %x, %x\n"
    "  ret double %r\n"
    "}\n"
    "define double @cube(double %x) {\n"
    "  %a = fmul double %x, %x\n"
    "  %r = fmul double %a, %x\n"
    "  ret double %r\n"
    "}\n"
    "define double @bad(double %x) {\n"
    "  %r = call double @opaque_for_deferred(double %x)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dsq(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @sq, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dcube(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @cube, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dbad(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @bad, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @one_caller(double %x) {\n"
    "  %r = call double @dsq(double %x)\n"
    "  ret double %r\n"
    "}\n"
    "define double @other_caller(double %x) {\n"
    "  %r = call double @dsq(double %x)\n"
    "  %s = fadd double %r, 1.0\n"
    "  ret double %s\n"
    "}\n";

START_TEST(uncalled_request_is_never_differentiated) {
  /* eager: the whole module at its first lookup, dbad's error with it */
  tanjit_session *s = open_session(TANJIT_COMPILE_EAGER, TANJIT_DERIVATIVE_FP_FAST);
  fixture_load(s, three_requests);
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "dsq", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_DIFFERENTIATE);
  tanjit_error_free(err);
  tanjit_session_free(s);

  s = open_session(TANJIT_COMPILE_LAZY, TANJIT_DERIVATIVE_FP_FAST);
  fixture_load(s, three_requests);
  ck_assert_uint_eq(requests_so_far(s), 0);
  ck_assert(fixture_lookup(s, "sq")(3.0) == 9.0); /* no request in it */
  ck_assert_uint_eq(requests_so_far(s), 0);
  ck_assert(fixture_lookup(s, "dsq")(3.0) == 6.0);
  ck_assert_uint_eq(requests_so_far(s), 1);
  /* dbad's error only at its own lookup, the same each time */
  for (int round = 0; round < 2; round++) {
    err = NULL;
    ck_assert_ptr_null(tanjit_lookup(s, "dbad", &err));
    ck_assert_ptr_nonnull(err);
    ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_DIFFERENTIATE);
    ck_assert_msg(strstr(tanjit_error_message(err), "cannot compile 'dbad'") &&
                      strstr(tanjit_error_message(err), "opaque_for_deferred"),
                  "%s", tanjit_error_message(err));
    tanjit_error_free(err);
  }
  ck_assert_uint_eq(requests_so_far(s), 1); /* (a failed one is not counted) */
  /* the rest of the module still runs; dcube is made when first reached */
  ck_assert(fixture_lookup(s, "dsq")(2.0) == 4.0);
  ck_assert(fixture_lookup(s, "dcube")(2.0) == 12.0);
  ck_assert_uint_eq(requests_so_far(s), 2);
  tanjit_session_free(s);
}
END_TEST

/* dsq reached from two callers: differentiated once, by the first. */
START_TEST(request_reached_from_two_functions) {
  tanjit_session *s = open_session(TANJIT_COMPILE_LAZY, TANJIT_DERIVATIVE_FP_FAST);
  fixture_load(s, three_requests);
  ck_assert(fixture_lookup(s, "one_caller")(1.5) == 3.0);
  ck_assert_uint_eq(requests_so_far(s), 1);
  ck_assert(fixture_lookup(s, "other_caller")(1.5) == 4.0);
  ck_assert_uint_eq(requests_so_far(s), 1);
  tanjit_session_free(s);
}
END_TEST

/* dshared_a and dshared_b differentiate functions that call one helper:
 * its derivative is shared, so they are made together, as a whole-module
 * transform makes them; dalone is not.  Fast derivative arithmetic, with
 * the helper's derivative a unit of its own in every mode. */
static const char shared_helper[] =
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "declare double @llvm.sin.f64(double)\n"
    "define double @helper(double %x) {\n"
    "  %a = fmul double %x, 0x3FB999999999999A\n"
    "  %b = fmul double %a, %x\n"
    "  %s = call double @llvm.sin.f64(double %b)\n"
    "  %c = fmul double %s, 0x3FD3333333333333\n"
    "  ret double %c\n"
    "}\n"
    "define double @a(double %x) {\n"
    "  %h = call double @helper(double %x)\n"
    "  %r = fmul double %h, 0x3FF1C71C71C71C72\n"
    "  ret double %r\n"
    "}\n"
    "define double @b(double %x) {\n"
    "  %h = call double @helper(double %x)\n"
    "  %y = fmul double %x, 0x3FE5555555555555\n"
    "  %r = fadd double %h, %y\n"
    "  ret double %r\n"
    "}\n"
    "define double @alone(double %x) {\n"
    "  %r = fmul double %x, %x\n"
    "  ret double %r\n"
    "}\n"
    "define double @dshared_a(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @a, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dshared_b(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @b, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dalone(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @alone, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @both(double %x) {\n"
    "  %p = call double @dshared_a(double %x)\n"
    "  %q = call double @dshared_b(double %x)\n"
    "  %r = fadd double %p, %q\n"
    "  ret double %r\n"
    "}\n";

START_TEST(shared_derivatives_are_made_together_with_eager_bits) {
  tanjit_session *s = open_session(TANJIT_COMPILE_LAZY, TANJIT_DERIVATIVE_FP_FAST);
  fixture_load(s, shared_helper);
  double x = 0.75;
  double got = fixture_lookup(s, "dshared_a")(x);
  ck_assert_uint_eq(requests_so_far(s), 2); /* with dshared_b, not dalone */
  double want = 0.3 * cos(0.1 * x * x) * 0.2 * x * (1.0 + 1.0 / 9);
  ck_assert_msg(fabs(got - want) <= 1e-12, "dshared_a(%g) = %.17g, want %.17g", x, got,
                want);
  ck_assert(fixture_lookup(s, "dalone")(x) == 1.5);
  ck_assert_uint_eq(requests_so_far(s), 3);
  tanjit_session_free(s);

  const char *names[] = {"both", "dshared_b", "dshared_a", "dalone"};
  fixture_assert_lazy_matches_eager(
      (fixture_options){TANJIT_COMPILE_LAZY, NULL, 1, TANJIT_DERIVATIVE_FP_FAST}, shared_helper,
      names, 4);
}
END_TEST

/* Module B calls module A's function holding a request, and holds one of
 * its own; module C's request differentiates through A's code (a view:
 * C is differentiated whole at its first lookup).  Each request is made
 * when first reached, with eager's bits. */
static const char module_a[] =
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "declare double @llvm.exp.f64(double)\n"
    "define double @ea(double %x) {\n"
    "  %e = call double @llvm.exp.f64(double %x)\n"
    "  %r = fmul double %e, %x\n"
    "  ret double %r\n"
    "}\n"
    "define double @dea(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @ea, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @ea2(double %x) {\n"
    "  %r = fmul double %x, %x\n"
    "  ret double %r\n"
    "}\n"
    "define double @dea_unused(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @ea2, double %x, double 2.0)\n"
    "  ret double %r\n"
    "}\n";
static const char module_b[] =
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "declare double @dea(double)\n"
    "define double @lb(double %x) {\n"
    "  %r = fmul double %x, 0x3FF1C71C71C71C72\n"
    "  ret double %r\n"
    "}\n"
    "define double @dlb(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @lb, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @via_b(double %x) {\n"
    "  %p = call double @dea(double %x)\n"
    "  %q = call double @dlb(double %x)\n"
    "  %r = fadd double %p, %q\n"
    "  ret double %r\n"
    "}\n";
static const char module_c[] =
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "declare double @ea(double)\n"
    "define double @uses_ea(double %x) {\n"
    "  %e = call double @ea(double %x)\n"
    "  %r = fmul double %e, %e\n"
    "  ret double %r\n"
    "}\n"
    "define double @dc(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @uses_ea, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n";

static void cross_values(tanjit_compile_mode mode, double *out, unsigned long *counts) {
  tanjit_session *s = open_session(mode, TANJIT_DERIVATIVE_FP_FAST);
  load_as(s, "a.ll", module_a);
  load_as(s, "b.ll", module_b);
  load_as(s, "c.ll", module_c);
  fn1 via_b = fixture_lookup(s, "via_b");
  for (size_t i = 0; i < FIXTURE_N_POINTS; i++)
    out[i] = via_b(fixture_points[i]);
  counts[0] = requests_so_far(s);
  fn1 dc = fixture_lookup(s, "dc");
  for (size_t i = 0; i < FIXTURE_N_POINTS; i++)
    out[FIXTURE_N_POINTS + i] = dc(fixture_points[i]);
  counts[1] = requests_so_far(s);
  tanjit_session_free(s);
}

START_TEST(requests_across_modules) {
  double eager[2 * FIXTURE_N_POINTS], lazy[2 * FIXTURE_N_POINTS];
  unsigned long eager_counts[2], lazy_counts[2];
  cross_values(TANJIT_COMPILE_EAGER, eager, eager_counts);
  cross_values(TANJIT_COMPILE_LAZY, lazy, lazy_counts);
  for (size_t i = 0; i < 2 * FIXTURE_N_POINTS; i++)
    ck_assert_msg(memcmp(&eager[i], &lazy[i], sizeof(double)) == 0,
                  "%s(%g): eager %.17g, lazy %.17g", i < FIXTURE_N_POINTS ? "via_b" : "dc",
                  fixture_points[i % FIXTURE_N_POINTS], eager[i], lazy[i]);
  /* eager: a's two requests and b's at via_b's lookup; lazy: dea and dlb */
  ck_assert_uint_eq(eager_counts[0], 3);
  ck_assert_uint_eq(lazy_counts[0], 2);
  ck_assert_uint_eq(eager_counts[1], 4);
  ck_assert_uint_eq(lazy_counts[1], 3);
  double x = 0.5, want = exp(x) * (1 + x) + 1.0 + 1.0 / 9;
  ck_assert_msg(fabs(lazy[1] - want) <= 1e-12, "via_b(0.5) = %.17g, want %.17g", lazy[1],
                want);
}
END_TEST

int main(void) {
  Suite *s = suite_create("lazy-requests");
  TCase *tc = tcase_create("lazy-requests");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, uncalled_request_is_never_differentiated);
  tcase_add_test(tc, request_reached_from_two_functions);
  tcase_add_test(tc, shared_derivatives_are_made_together_with_eager_bits);
  tcase_add_test(tc, requests_across_modules);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
