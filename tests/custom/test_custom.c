/*
 * Custom forward derivatives through the public API: rules registered with
 * tanjit_register_fwd_rule (overriding a built-in one, for symbols with no
 * IR in a closed library, by plain name and through an ejlstr$ rename, in
 * both result forms), Enzyme's in-IR registrations (written in C, compiled
 * by clang), the enzyme_inactive attribute, bad registrations, and both
 * kinds of request (__enzyme_fwddiff in IR, tanjit_fwddiff at run time).
 * Every rule differs from the true derivative where it can, so a number
 * proves which rule ran; each is also checked against an analytic value.
 */
#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tanjit/tanjit.h"

/* Resolved from the process (the test is linked with -rdynamic): a
 * deliberately wrong derivative for sin, twice the true one. */
double test_twice_cos_fwd(double x, double dx) { return 2.0 * cos(x) * dx; }

static const char *env_or_fail(const char *name) {
  const char *v = getenv(name);
  ck_assert_msg(v && *v, "environment variable %s is not set (run through "
                         "meson test)", name);
  return v;
}

static tanjit_session *new_session_dirs(const char *const *dirs) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.library_dirs = dirs;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_msg(s, "%s", tanjit_error_message(err));
  return s;
}

static tanjit_session *new_session(void) { return new_session_dirs(NULL); }

static void load_ok(tanjit_session *s, const char *ir, const char *name) {
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_load_memory(s, ir, strlen(ir), name, &err) == 0, "%s: %s",
                name, tanjit_error_message(err));
}

static void *lookup_ok(tanjit_session *s, const char *sym) {
  tanjit_error *err = NULL;
  void *p = tanjit_lookup(s, sym, &err);
  ck_assert_msg(p, "lookup %s: %s", sym, tanjit_error_message(err));
  return p;
}

static void register_ok(tanjit_session *s, const char *fn, const char *d,
                        unsigned flags) {
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_register_fwd_rule(s, fn, d, flags, &err) == 0,
                "register %s -> %s: %s", fn, d, tanjit_error_message(err));
}

static void add_closedlib(tanjit_session *s) {
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_add_library(s, env_or_fail("CUSTOM_CLOSEDLIB"), &err) == 0,
                "%s", tanjit_error_message(err));
}

typedef double (*d1_t)(double);
typedef double (*d2_t)(double, double);

/* The closed library's counters, through our own handle on the same
 * (already loaded) library. */
static int closed_counter(const char *which) {
  void *h = dlopen(env_or_fail("CUSTOM_CLOSEDLIB"), RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(h, "%s", dlerror());
  int (*f)(void) = (int (*)(void))(uintptr_t)dlsym(h, which);
  ck_assert_msg(f, "%s", dlerror());
  int v = f();
  dlclose(h);
  return v;
}

/* f(x) = 3 sin(x), and an in-IR request for its derivative. */
static const char sin_ir[] =
    "declare double @sin(double)\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @f(double %x) {\n"
    "  %s = call double @sin(double %x)\n"
    "  %r = fmul double %s, 3.0\n  ret double %r\n}\n"
    "define double @df(double %x, double %dx) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx)\n"
    "  ret double %d\n}\n";

START_TEST(builtin_sin_without_rule) {
  /* The control: the math table's rule, 3 cos(x) dx. */
  tanjit_session *s = new_session();
  load_ok(s, sin_ir, "sin.ll");
  d2_t df = (d2_t)(uintptr_t)lookup_ok(s, "df");
  ck_assert_double_eq_tol(df(0.7, 1.5), 3.0 * cos(0.7) * 1.5, 1e-14);
  tanjit_session_free(s);
}
END_TEST

START_TEST(registered_rule_overrides_sin_in_ir_request) {
  tanjit_session *s = new_session();
  register_ok(s, "sin", "test_twice_cos_fwd", 0);
  load_ok(s, sin_ir, "sin.ll");
  d2_t df = (d2_t)(uintptr_t)lookup_ok(s, "df");
  d1_t f = (d1_t)(uintptr_t)lookup_ok(s, "f");
  ck_assert_double_eq_tol(f(0.7), 3.0 * sin(0.7), 1e-14); /* primal kept */
  ck_assert_double_eq_tol(df(0.7, 1.5), 3.0 * 2.0 * cos(0.7) * 1.5, 1e-14);
  ck_assert_double_eq_tol(df(-1.2, 1.0), 6.0 * cos(-1.2), 1e-14);
  tanjit_session_free(s);
}
END_TEST

START_TEST(registered_rule_overrides_sin_at_run_time) {
  tanjit_session *s = new_session();
  load_ok(s, sin_ir, "sin.ll");
  /* registered before the derivative is made, after the module loaded */
  register_ok(s, "sin", "test_twice_cos_fwd", 0);
  tanjit_activity dup[] = {TANJIT_DUP};
  tanjit_error *err = NULL;
  d2_t d = (d2_t)(uintptr_t)tanjit_fwddiff(s, "f", dup, 1, 1, &err);
  ck_assert_msg(d, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(d(0.3, 2.0), 6.0 * cos(0.3) * 2.0, 1e-14);
  /* vector mode: one rule call per direction */
  void (*d2)(double *, double, double, double) =
      (void (*)(double *, double, double, double))(uintptr_t)tanjit_fwddiff(
          s, "f", dup, 1, 2, &err);
  ck_assert_msg(d2, "%s", tanjit_error_message(err));
  double out[2] = {0, 0};
  d2(out, 0.3, 1.0, -0.5);
  ck_assert_double_eq_tol(out[0], 6.0 * cos(0.3), 1e-14);
  ck_assert_double_eq_tol(out[1], -3.0 * cos(0.3), 1e-14);
  tanjit_session_free(s);
}
END_TEST

/* g(x) = closed_square(x) * x; closed_square has no IR. */
static const char closed_ir[] =
    "declare double @closed_square(double)\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @g(double %x) {\n"
    "  %s = call double @closed_square(double %x)\n"
    "  %r = fmul double %s, %x\n  ret double %r\n}\n"
    "define double @dg(double %x, double %dx) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %x, double %dx)\n"
    "  ret double %d\n}\n";

START_TEST(closed_symbol_without_rule_fails) {
  tanjit_session *s = new_session();
  add_closedlib(s);
  load_ok(s, closed_ir, "closed.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "dg", &err));
  ck_assert_msg(strstr(tanjit_error_message(err), "closed_square"), "%s",
                tanjit_error_message(err));
  tanjit_error_free(err);
  tanjit_session_free(s);
}
END_TEST

START_TEST(closed_symbol_rule_from_library) {
  tanjit_session *s = new_session();
  add_closedlib(s);
  register_ok(s, "closed_square", "closed_square_fwd", 0);
  load_ok(s, closed_ir, "closed.ll");
  d2_t dg = (d2_t)(uintptr_t)lookup_ok(s, "dg");
  int before = closed_counter("closed_square_calls");
  ck_assert_double_eq_tol(dg(1.5, 1.0), 3.0 * 1.5 * 1.5, 1e-13);
  ck_assert_double_eq_tol(dg(-2.0, 0.5), 3.0 * 4.0 * 0.5, 1e-13);
  /* tangent-only form: the primal call is kept */
  ck_assert_int_eq(closed_counter("closed_square_calls"), before + 2);
  /* and at run time */
  tanjit_activity dup[] = {TANJIT_DUP};
  tanjit_error *err = NULL;
  d2_t d = (d2_t)(uintptr_t)tanjit_fwddiff(s, "g", dup, 1, 1, &err);
  ck_assert_msg(d, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(d(0.5, 2.0), 3.0 * 0.25 * 2.0, 1e-13);
  tanjit_session_free(s);
}
END_TEST

/* The Julia-style rename: the rule is found through "enzyme_math" and the
 * derivative is declared ejlstr$closed_square_fwd$<lib>, from the same
 * RTLD_LOCAL library found in library_dirs. */
static const char closed_renamed_ir[] =
    "declare double @\"ejlstr$closed_square$libcustomclosed.so\"(double) #0\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @g(double %x) {\n"
    "  %s = call double @\"ejlstr$closed_square$libcustomclosed.so\"(double %x)\n"
    "  %r = fmul double %s, %x\n  ret double %r\n}\n"
    "define double @dg(double %x, double %dx) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %x, double %dx)\n"
    "  ret double %d\n}\n"
    "attributes #0 = { \"enzyme_math\"=\"closed_square\" }\n";

START_TEST(closed_symbol_rule_through_rename) {
  const char *dirs[] = {env_or_fail("CUSTOM_CLOSEDLIB_DIR"), NULL};
  tanjit_session *s = new_session_dirs(dirs);
  register_ok(s, "closed_square", "closed_square_fwd", 0);
  load_ok(s, closed_renamed_ir, "renamed.ll");
  d2_t dg = (d2_t)(uintptr_t)lookup_ok(s, "dg");
  ck_assert_double_eq_tol(dg(1.25, 2.0), 3.0 * 1.25 * 1.25 * 2.0, 1e-13);
  tanjit_session_free(s);
}
END_TEST

/* sin(closed_cube(x)), with the pair rule: its primal is cube + 1. */
static const char cube_ir[] =
    "declare double @closed_cube(double)\n"
    "declare double @sin(double)\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @h(double %x) {\n"
    "  %c = call double @closed_cube(double %x)\n"
    "  %r = call double @sin(double %c)\n  ret double %r\n}\n"
    "define double @dh(double %x, double %dx) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @h, double %x, double %dx)\n"
    "  ret double %d\n}\n";

START_TEST(rule_returning_primal_replaces_the_call) {
  tanjit_session *s = new_session();
  add_closedlib(s);
  register_ok(s, "closed_cube", "closed_cube_fwd_pair", TANJIT_RULE_RETURNS_PRIMAL);
  load_ok(s, cube_ir, "cube.ll");
  d2_t dh = (d2_t)(uintptr_t)lookup_ok(s, "dh");
  int cubes = closed_counter("closed_cube_calls");
  int pairs = closed_counter("closed_cube_pair_calls");
  double x = 0.8;
  ck_assert_double_eq_tol(dh(x, 1.0), cos(x * x * x + 1.0) * 3.0 * x * x, 1e-13);
  ck_assert_int_eq(closed_counter("closed_cube_calls"), cubes); /* not made */
  ck_assert_int_eq(closed_counter("closed_cube_pair_calls"), pairs + 1);
  tanjit_activity dup[] = {TANJIT_DUP};
  tanjit_error *err = NULL;
  d2_t d = (d2_t)(uintptr_t)tanjit_fwddiff(s, "h", dup, 1, 1, &err);
  ck_assert_msg(d, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(d(x, 2.0), cos(x * x * x + 1.0) * 6.0 * x * x, 1e-13);
  ck_assert_int_eq(closed_counter("closed_cube_calls"), cubes);
  tanjit_session_free(s);
}
END_TEST

/* q(p) = p[0] * p[1] after closed_scale(p, 2) scales both by 3. */
static const char scale_ir[] =
    "declare void @closed_scale(ptr, i64)\n"
    "define double @q(ptr %p) {\n"
    "  call void @closed_scale(ptr %p, i64 2)\n"
    "  %a = load double, ptr %p\n"
    "  %pb = getelementptr double, ptr %p, i64 1\n"
    "  %b = load double, ptr %pb\n"
    "  %r = fmul double %a, %b\n  ret double %r\n}\n";

static void check_scale(const char *derivative, unsigned flags) {
  tanjit_session *s = new_session();
  add_closedlib(s);
  register_ok(s, "closed_scale", derivative, flags);
  load_ok(s, scale_ir, "scale.ll");
  tanjit_activity dup[] = {TANJIT_DUP};
  tanjit_error *err = NULL;
  double (*d)(double *, double *) = (double (*)(double *, double *))(uintptr_t)
      tanjit_fwddiff(s, "q", dup, 1, 1, &err);
  ck_assert_msg(d, "%s: %s", derivative, tanjit_error_message(err));
  double p[2] = {2.0, 5.0}, dp[2] = {1.0, -1.0};
  double t = d(p, dp);
  /* p scaled exactly once (by the primal call or by the rule, not both) */
  ck_assert_double_eq_tol(p[0], 6.0, 1e-15);
  ck_assert_double_eq_tol(p[1], 15.0, 1e-15);
  ck_assert_double_eq_tol(dp[0], 3.0, 1e-15);
  ck_assert_double_eq_tol(dp[1], -3.0, 1e-15);
  ck_assert_double_eq_tol(t, 3.0 * 15.0 + 6.0 * -3.0, 1e-13);
  tanjit_session_free(s);
}

START_TEST(pointer_arguments_get_their_shadows) {
  check_scale("closed_scale_fwd", 0);
  check_scale("closed_scale_fwd_all", TANJIT_RULE_RETURNS_PRIMAL);
}
END_TEST

/* The enzyme_inactive attribute, on a definition and on a call site. */
static const char inactive_ir[] =
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @noisy(double %x) #0 {\n"
    "  %r = fmul double %x, 5.0\n  ret double %r\n}\n"
    "define double @noisy2(double %x) {\n"
    "  %r = fmul double %x, 7.0\n  ret double %r\n}\n"
    "define double @h(double %x) {\n"
    "  %a = fmul double %x, %x\n"
    "  %n = call double @noisy(double %x)\n"
    "  %m = call double @noisy2(double %x) #0\n"
    "  %k = call double @noisy2(double %a)\n"
    "  %s = fadd double %a, %n\n  %t = fadd double %s, %m\n"
    "  %u = fadd double %t, %k\n  ret double %u\n}\n"
    "define double @dh(double %x, double %dx) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @h, double %x, double %dx)\n"
    "  ret double %d\n}\n"
    "attributes #0 = { \"enzyme_inactive\" }\n";

START_TEST(enzyme_inactive_attribute) {
  tanjit_session *s = new_session();
  load_ok(s, inactive_ir, "inactive.ll");
  d1_t h = (d1_t)(uintptr_t)lookup_ok(s, "h");
  d2_t dh = (d2_t)(uintptr_t)lookup_ok(s, "dh");
  double x = 1.5;
  /* the inactive calls still run */
  ck_assert_double_eq_tol(h(x), x * x + 5 * x + 7 * x + 7 * x * x, 1e-13);
  /* d/dx: only x^2 and the active noisy2(x^2) = 7x^2 count: 2x + 14x */
  ck_assert_double_eq_tol(dh(x, 1.0), 2 * x + 14 * x, 1e-13);
  tanjit_activity dup[] = {TANJIT_DUP};
  tanjit_error *err = NULL;
  d2_t d = (d2_t)(uintptr_t)tanjit_fwddiff(s, "h", dup, 1, 1, &err);
  ck_assert_msg(d, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(d(x, 0.5), 16 * x * 0.5, 1e-13);
  tanjit_session_free(s);
}
END_TEST

/* Enzyme's in-IR registrations, compiled from C at -O0 and -O2. */
static const char *in_ir_files[2];

/* Enzyme uses a registered derivative also when its function is the very
 * target of a request, not only at calls inside differentiated code. */
static const char request_target_ir[] =
    "declare double @__enzyme_fwddiff(...)\n"
    "define double @sq(double %x) {\n  %r = fmul double %x, %x\n  ret double %r\n}\n"
    "define double @dsq(double %x, double %dx) {\n"
    "  %r = fmul double %dx, 100.0\n  ret double %r\n}\n"
    "@__enzyme_register_derivative_sq = global [2 x ptr] [ptr @sq, ptr @dsq]\n"
    "define double @dsq_request(double %x, double %dx) {\n"
    "  %r = call double (...) @__enzyme_fwddiff(ptr @sq, double %x, double %dx)\n"
    "  ret double %r\n}\n";

START_TEST(rule_of_request_target) {
  tanjit_session *s = new_session();
  load_ok(s, request_target_ir, "target.ll");
  d2_t d = (d2_t)(uintptr_t)lookup_ok(s, "dsq_request");
  ck_assert_double_eq_tol(d(3.0, 0.5), 50.0, 1e-14); /* not 2*3*0.5 */
  tanjit_activity dup[] = {TANJIT_DUP};
  tanjit_error *err = NULL;
  d2_t r = (d2_t)(uintptr_t)tanjit_fwddiff(s, "sq", dup, 1, 1, &err);
  ck_assert_msg(r, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(r(3.0, 2.0), 200.0, 1e-14);
  tanjit_session_free(s);
}
END_TEST

static tanjit_session *in_ir_session(int variant) {
  tanjit_session *s = new_session();
  add_closedlib(s); /* closed_log */
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_load_file(s, in_ir_files[variant], &err) == 0, "%s: %s",
                in_ir_files[variant], tanjit_error_message(err));
  return s;
}

START_TEST(in_ir_registrations) {
  tanjit_session *s = in_ir_session(_i);
  double x = 0.6;
  /* __enzyme_register_derivative_, tangent-only through pointers: 100 dx */
  d2_t dsquare = (d2_t)(uintptr_t)lookup_ok(s, "dsquare");
  ck_assert_double_eq_tol(dsquare(3.0, 1.0), 100.0, 1e-13);
  ck_assert_double_eq_tol(dsquare(3.0, 0.25), 25.0, 1e-13);
  /* tangent-only scalar: sin(twice(x)) -> cos(2x) * 7 dx */
  d2_t dts = (d2_t)(uintptr_t)lookup_ok(s, "dtwice_sin");
  ck_assert_double_eq_tol(dts(x, 1.0), cos(2 * x) * 7.0, 1e-13);
  /* pair form: sin(cube(x)) -> cos(x^3 + 1) * 3x^2 dx */
  d2_t dsc = (d2_t)(uintptr_t)lookup_ok(s, "dsin_cube");
  ck_assert_double_eq_tol(dsc(x, 2.0), cos(x * x * x + 1.0) * 6.0 * x * x, 1e-13);
  /* the primal itself is untouched by the registration */
  d1_t sc = (d1_t)(uintptr_t)lookup_ok(s, "sin_cube");
  ck_assert_double_eq_tol(sc(x), sin(x * x * x), 1e-14);
  /* __enzyme_inactivefn: x^2 + noise(x) -> 2x */
  d2_t dwn = (d2_t)(uintptr_t)lookup_ok(s, "dwith_noise");
  ck_assert_double_eq_tol(dwn(x, 1.0), 2 * x, 1e-13);
  d1_t wn = (d1_t)(uintptr_t)lookup_ok(s, "with_noise");
  ck_assert_double_eq_tol(wn(x), x * x + 5 * x, 1e-14);
  /* __enzyme_function_like: x log(x) -> log(x) + 1 */
  d2_t dxl = (d2_t)(uintptr_t)lookup_ok(s, "dxlog");
  ck_assert_double_eq_tol(dxl(x, 1.0), log(x) + 1.0, 1e-13);
  tanjit_session_free(s);
}
END_TEST

START_TEST(in_ir_registrations_at_run_time) {
  tanjit_session *s = in_ir_session(_i);
  tanjit_activity dup[] = {TANJIT_DUP};
  tanjit_error *err = NULL;
  double x = 0.6;
  d2_t d = (d2_t)(uintptr_t)tanjit_fwddiff(s, "square", dup, 1, 1, &err);
  ck_assert_msg(d, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(d(3.0, 0.5), 50.0, 1e-13);
  d = (d2_t)(uintptr_t)tanjit_fwddiff(s, "sin_cube", dup, 1, 1, &err);
  ck_assert_msg(d, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(d(x, 1.0), cos(x * x * x + 1.0) * 3.0 * x * x, 1e-13);
  d = (d2_t)(uintptr_t)tanjit_fwddiff(s, "with_noise", dup, 1, 1, &err);
  ck_assert_msg(d, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(d(x, 1.0), 2 * x, 1e-13);
  d = (d2_t)(uintptr_t)tanjit_fwddiff(s, "xlog", dup, 1, 1, &err);
  ck_assert_msg(d, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(d(x, 1.0), log(x) + 1.0, 1e-13);
  tanjit_session_free(s);
}
END_TEST

START_TEST(bad_registrations) {
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_register_fwd_rule(s, "sin", "test_twice_cos_fwd", 4, &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(tanjit_error_message(err), "flags"), "%s",
                tanjit_error_message(err));
  tanjit_error_free(err);
  err = NULL;
  ck_assert_int_eq(tanjit_register_fwd_rule(s, NULL, "d", 0, &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  tanjit_error_free(err);
  err = NULL;
  ck_assert_int_eq(tanjit_register_fwd_rule(s, "sin", NULL, 0, &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  tanjit_error_free(err);
  err = NULL;
  ck_assert_int_eq(tanjit_register_fwd_rule(s, "", "d", 0, &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  tanjit_error_free(err);
  err = NULL;
  ck_assert_int_eq(tanjit_register_fwd_rule(NULL, "sin", "d", 0, &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  tanjit_error_free(err);
  ck_assert_int_eq(tanjit_register_fwd_rule(s, "sin", "d", 8, NULL), -1);
  /* none of the refused registrations took effect */
  load_ok(s, sin_ir, "sin.ll");
  d2_t df = (d2_t)(uintptr_t)lookup_ok(s, "df");
  ck_assert_double_eq_tol(df(0.7, 1.0), 3.0 * cos(0.7), 1e-14);
  tanjit_session_free(s);
}
END_TEST

START_TEST(unresolved_derivative_is_named_at_lookup) {
  tanjit_session *s = new_session();
  add_closedlib(s);
  register_ok(s, "closed_square", "no_such_square_fwd", 0);
  load_ok(s, closed_ir, "closed.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "dg", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  ck_assert_msg(strstr(tanjit_error_message(err), "no_such_square_fwd"), "%s",
                tanjit_error_message(err));
  tanjit_error_free(err);
  /* the latest registration wins, and the session stays usable */
  register_ok(s, "closed_square", "closed_square_fwd", 0);
  load_ok(s, closed_ir, "closed.ll");
  d2_t dg = (d2_t)(uintptr_t)lookup_ok(s, "dg");
  ck_assert_double_eq_tol(dg(2.0, 1.0), 12.0, 1e-13);
  tanjit_session_free(s);
}
END_TEST

/* In-IR registrations that cannot be honoured fail the lookup, naming the
 * global or the derivative. */
static const char bad_signature_ir[] =
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @f(double %x) {\n  %r = fmul double %x, %x\n  ret double %r\n}\n"
    "define double @wrong_fwd(double %x) {\n  ret double 1.0\n}\n"
    "@__enzyme_register_derivative_f = global [2 x ptr] [ptr @f, ptr @wrong_fwd]\n"
    "define double @g(double %x) {\n"
    "  %y = call double @f(double %x)\n  ret double %y\n}\n"
    "define double @dg(double %x, double %dx) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %x, double %dx)\n"
    "  ret double %d\n}\n";

static const char malformed_ir[] =
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @f(double %x) {\n  %r = fmul double %x, %x\n  ret double %r\n}\n"
    "@__enzyme_register_derivative_broken = global [1 x ptr] [ptr @f]\n"
    "define double @dg(double %x, double %dx) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx)\n"
    "  ret double %d\n}\n";

START_TEST(bad_in_ir_registrations) {
  tanjit_session *s = new_session();
  load_ok(s, bad_signature_ir, "badsig.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "dg", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_DIFFERENTIATE);
  ck_assert_msg(strstr(tanjit_error_message(err), "wrong_fwd") &&
                    strstr(tanjit_error_message(err), "2 parameters"),
                "%s", tanjit_error_message(err));
  tanjit_error_free(err);
  err = NULL;
  /* refused when the module loads, or at the latest when it compiles */
  if (tanjit_load_memory(s, malformed_ir, strlen(malformed_ir), "malformed.ll",
                         &err) == 0)
    ck_assert_ptr_null(tanjit_lookup(s, "dg", &err));
  ck_assert_msg(strstr(tanjit_error_message(err),
                       "__enzyme_register_derivative_broken"),
                "%s", tanjit_error_message(err));
  tanjit_error_free(err);
  tanjit_session_free(s);
}
END_TEST

/* Registrations race with transforms on other threads. */
static void *register_many(void *arg) {
  tanjit_session *s = arg;
  for (int i = 0; i < 200; i++) {
    char name[32];
    snprintf(name, sizeof name, "unused_%lu_%d",
             (unsigned long)(uintptr_t)pthread_self() % 1000, i);
    if (tanjit_register_fwd_rule(s, name, "nothing", 0, NULL) != 0)
      return (void *)1;
  }
  return NULL;
}

START_TEST(registration_is_thread_safe) {
  tanjit_session *s = new_session();
  register_ok(s, "sin", "test_twice_cos_fwd", 0);
  load_ok(s, sin_ir, "sin.ll");
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, register_many, s), 0);
  d2_t df = (d2_t)(uintptr_t)lookup_ok(s, "df");
  tanjit_activity dup[] = {TANJIT_DUP};
  tanjit_error *err = NULL;
  d2_t d = (d2_t)(uintptr_t)tanjit_fwddiff(s, "f", dup, 1, 1, &err);
  ck_assert_msg(d, "%s", tanjit_error_message(err));
  for (int i = 0; i < 4; i++) {
    void *rc;
    pthread_join(t[i], &rc);
    ck_assert_ptr_null(rc);
  }
  ck_assert_double_eq_tol(df(0.4, 1.0), 6.0 * cos(0.4), 1e-14);
  ck_assert_double_eq_tol(d(0.4, 1.0), 6.0 * cos(0.4), 1e-14);
  tanjit_session_free(s);
}
END_TEST

int main(void) {
  in_ir_files[0] = getenv("CUSTOM_IN_IR_O0");
  in_ir_files[1] = getenv("CUSTOM_IN_IR_O2");
  Suite *suite = suite_create("custom");
  TCase *api = tcase_create("api");
  tcase_set_timeout(api, 120);
  tcase_add_test(api, builtin_sin_without_rule);
  tcase_add_test(api, registered_rule_overrides_sin_in_ir_request);
  tcase_add_test(api, registered_rule_overrides_sin_at_run_time);
  tcase_add_test(api, closed_symbol_without_rule_fails);
  tcase_add_test(api, closed_symbol_rule_from_library);
  tcase_add_test(api, closed_symbol_rule_through_rename);
  tcase_add_test(api, rule_returning_primal_replaces_the_call);
  tcase_add_test(api, pointer_arguments_get_their_shadows);
  tcase_add_test(api, bad_registrations);
  tcase_add_test(api, unresolved_derivative_is_named_at_lookup);
  tcase_add_test(api, registration_is_thread_safe);
  suite_add_tcase(suite, api);

  TCase *in_ir = tcase_create("in_ir");
  tcase_set_timeout(in_ir, 120);
  tcase_add_test(in_ir, enzyme_inactive_attribute);
  tcase_add_test(in_ir, rule_of_request_target);
  tcase_add_test(in_ir, bad_in_ir_registrations);
  if (in_ir_files[0] && in_ir_files[1]) {
    tcase_add_loop_test(in_ir, in_ir_registrations, 0, 2);
    tcase_add_loop_test(in_ir, in_ir_registrations_at_run_time, 0, 2);
  } else {
    printf("SKIP: 4 in-IR registration checks (no clang to compile in_ir.c)\n");
  }
  suite_add_tcase(suite, in_ir);

  SRunner *sr = srunner_create(suite);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
