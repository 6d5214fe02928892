/*
 * Run-time reverse requests (tanjit_autodiff) and custom reverse rules
 * (tanjit_register_rev_rule[_address]) through the public API, on IR
 * modules written here.  Every gradient entry is checked against central
 * finite differences of the function itself, starting from nonzero shadows
 * (so accumulation, `+=`, is what is checked); custom rules return
 * deliberately scaled derivatives, so a number proves the rule ran.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tanjit/tanjit.h"

static tanjit_session *new_session(void) {
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(NULL, &err);
  ck_assert_msg(s, "%s", tanjit_error_message(err));
  return s;
}

static void load_ok(tanjit_session *s, const char *ir, const char *name) {
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_load_memory(s, ir, strlen(ir), name, &err) == 0,
                "%s: %s", name, tanjit_error_message(err));
}

static void *lookup_ok(tanjit_session *s, const char *sym) {
  tanjit_error *err = NULL;
  void *p = tanjit_lookup(s, sym, &err);
  ck_assert_msg(p, "lookup %s: %s", sym, tanjit_error_message(err));
  return p;
}

static void *autodiff_ok(tanjit_session *s, const char *fn,
                         const tanjit_activity *act, size_t n) {
  tanjit_error *err = NULL;
  void *p = tanjit_autodiff(s, fn, act, n, 1, &err);
  ck_assert_msg(p, "tanjit_autodiff %s: %s", fn, tanjit_error_message(err));
  return p;
}

static void assert_close(double got, double want, const char *what) {
  double tol = 1e-6 * (1.0 + fabs(want));
  ck_assert_msg(fabs(got - want) <= tol, "%s: got %.12g, want %.12g", what,
                got, want);
}

/* f(x, a, y, n) = x^2 * sum a_i^2 + sin(y) * x */
static const char *const loss_ir =
    "define double @f(double %x, ptr %a, double %y, i32 %n) {\n"
    "entry:\n"
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i32 [0, %entry], [%i1, %loop]\n"
    "  %s = phi double [0.0, %entry], [%s1, %loop]\n"
    "  %p = getelementptr double, ptr %a, i32 %i\n"
    "  %v = load double, ptr %p\n"
    "  %v2 = fmul double %v, %v\n"
    "  %s1 = fadd double %s, %v2\n"
    "  %i1 = add i32 %i, 1\n"
    "  %c = icmp slt i32 %i1, %n\n"
    "  br i1 %c, label %loop, label %done\n"
    "done:\n"
    "  %xx = fmul double %x, %x\n"
    "  %t = fmul double %xx, %s1\n"
    "  %sy = call double @sin(double %y)\n"
    "  %u = fmul double %sy, %x\n"
    "  %r = fadd double %t, %u\n"
    "  ret double %r\n"
    "}\n"
    "declare double @sin(double)\n"
    /* h(x, y) = x*y + sin(x), in float */
    "define float @h(float %x, float %y) {\n"
    "  %m = fmul float %x, %y\n"
    "  %s = call float @llvm.sin.f32(float %x)\n"
    "  %r = fadd float %m, %s\n"
    "  ret float %r\n"
    "}\n"
    "declare float @llvm.sin.f32(float)\n"
    /* k(a, b, c) = a*b*c + a */
    "define double @k(double %a, double %b, double %c) {\n"
    "  %ab = fmul double %a, %b\n"
    "  %abc = fmul double %ab, %c\n"
    "  %r = fadd double %abc, %a\n"
    "  ret double %r\n"
    "}\n"
    /* sq(in, out, n): out[i] = 3 in[i]^2 */
    "define void @sq(ptr %in, ptr %out, i32 %n) {\n"
    "entry:\n"
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i32 [0, %entry], [%i1, %loop]\n"
    "  %pi = getelementptr double, ptr %in, i32 %i\n"
    "  %v = load double, ptr %pi\n"
    "  %v2 = fmul double %v, %v\n"
    "  %v3 = fmul double %v2, 3.0\n"
    "  %po = getelementptr double, ptr %out, i32 %i\n"
    "  store double %v3, ptr %po\n"
    "  %i1 = add i32 %i, 1\n"
    "  %c = icmp slt i32 %i1, %n\n"
    "  br i1 %c, label %loop, label %done\n"
    "done:\n"
    "  ret void\n"
    "}\n"
    "define { double, double } @pair(double %x) {\n"
    "  %a = insertvalue { double, double } undef, double %x, 0\n"
    "  %b = insertvalue { double, double } %a, double %x, 1\n"
    "  ret { double, double } %b\n"
    "}\n";

typedef struct d2 {
  double dx, dy;
} d2;
typedef struct f2 {
  float dx, dy;
} f2;
typedef struct d3 {
  double da, db, dc;
} d3;

typedef double (*f_t)(double, double *, double, int);

START_TEST(active_scalars_and_dup_pointer_match_finite_differences) {
  tanjit_session *s = new_session();
  load_ok(s, loss_ir, "loss");
  f_t f = (f_t)(uintptr_t)lookup_ok(s, "f");
  tanjit_activity act[] = {TANJIT_ACTIVE, TANJIT_DUP, TANJIT_ACTIVE,
                           TANJIT_CONST};
  d2 (*g)(double, double *, double *, double, int) =
      (d2(*)(double, double *, double *, double, int))(uintptr_t)autodiff_ok(
          s, "f", act, 4);
  double x = 0.7, y = 1.3, a[3] = {0.5, -1.25, 2.0};
  double da[3] = {0.25, -0.5, 1.0}, da0[3];
  memcpy(da0, da, sizeof da);
  d2 r = g(x, a, da, y, 3);
  const double h = 1e-6;
  assert_close(r.dx, (f(x + h, a, y, 3) - f(x - h, a, y, 3)) / (2 * h), "df/dx");
  assert_close(r.dy, (f(x, a, y + h, 3) - f(x, a, y - h, 3)) / (2 * h), "df/dy");
  for (int i = 0; i < 3; i++) {
    double keep = a[i];
    a[i] = keep + h;
    double up = f(x, a, y, 3);
    a[i] = keep - h;
    double down = f(x, a, y, 3);
    a[i] = keep;
    char what[32];
    snprintf(what, sizeof what, "da[%d]", i);
    assert_close(da[i] - da0[i], (up - down) / (2 * h), what);
  }
  tanjit_session_free(s);
}
END_TEST

START_TEST(one_active_returns_its_adjoint_and_const_pointer_gets_none) {
  tanjit_session *s = new_session();
  load_ok(s, loss_ir, "loss");
  f_t f = (f_t)(uintptr_t)lookup_ok(s, "f");
  tanjit_activity act[] = {TANJIT_ACTIVE, TANJIT_CONST, TANJIT_CONST,
                           TANJIT_CONST};
  double (*g)(double, double *, double, int) =
      (double (*)(double, double *, double, int))(uintptr_t)autodiff_ok(
          s, "f", act, 4);
  double x = -0.4, y = 0.9, a[2] = {1.5, 0.5};
  const double h = 1e-6;
  assert_close(g(x, a, y, 2), (f(x + h, a, y, 2) - f(x - h, a, y, 2)) / (2 * h),
               "df/dx");
  ck_assert(a[0] == 1.5 && a[1] == 0.5); /* the primal memory untouched */
  /* dupnoneed: the shadow still receives the gradient */
  tanjit_activity act2[] = {TANJIT_CONST, TANJIT_DUPNONEED, TANJIT_CONST,
                            TANJIT_CONST};
  void (*g2)(double, double *, double *, double, int) =
      (void (*)(double, double *, double *, double, int))(uintptr_t)autodiff_ok(
          s, "f", act2, 4);
  double da[2] = {1.0, 2.0};
  g2(x, a, da, y, 2);
  assert_close(da[0] - 1.0, 2 * x * x * a[0], "da[0]");
  assert_close(da[1] - 2.0, 2 * x * x * a[1], "da[1]");
  tanjit_session_free(s);
}
END_TEST

START_TEST(several_adjoints_follow_the_c_abi) {
  tanjit_session *s = new_session();
  load_ok(s, loss_ir, "loss");
  /* two floats: packed in one register by C */
  tanjit_activity two[] = {TANJIT_ACTIVE, TANJIT_ACTIVE};
  f2 (*gh)(float, float) = (f2(*)(float, float))(uintptr_t)autodiff_ok(s, "h", two, 2);
  f2 rh = gh(0.5f, 2.0f);
  ck_assert_msg(fabsf(rh.dx - (2.0f + cosf(0.5f))) < 1e-5f, "dh/dx %g", rh.dx);
  ck_assert_msg(fabsf(rh.dy - 0.5f) < 1e-6f, "dh/dy %g", rh.dy);
  /* three doubles: returned through memory by C */
  tanjit_activity three[] = {TANJIT_ACTIVE, TANJIT_ACTIVE, TANJIT_ACTIVE};
  d3 (*gk)(double, double, double) =
      (d3(*)(double, double, double))(uintptr_t)autodiff_ok(s, "k", three, 3);
  d3 rk = gk(2.0, 3.0, 5.0);
  assert_close(rk.da, 3.0 * 5.0 + 1.0, "dk/da");
  assert_close(rk.db, 2.0 * 5.0, "dk/db");
  assert_close(rk.dc, 2.0 * 3.0, "dk/dc");
  /* a const in the middle: the struct holds only the active ones */
  tanjit_activity mid[] = {TANJIT_ACTIVE, TANJIT_CONST, TANJIT_ACTIVE};
  d2 (*gm)(double, double, double) =
      (d2(*)(double, double, double))(uintptr_t)autodiff_ok(s, "k", mid, 3);
  d2 rm = gm(2.0, 3.0, 5.0);
  assert_close(rm.dx, 16.0, "dk/da");
  assert_close(rm.dy, 6.0, "dk/dc");
  tanjit_session_free(s);
}
END_TEST

START_TEST(void_function_accumulates_into_shadows) {
  tanjit_session *s = new_session();
  load_ok(s, loss_ir, "loss");
  tanjit_activity act[] = {TANJIT_DUP, TANJIT_DUP, TANJIT_CONST};
  void (*g)(double *, double *, double *, double *, int) =
      (void (*)(double *, double *, double *, double *, int))(uintptr_t)
          autodiff_ok(s, "sq", act, 3);
  double in[3] = {1.0, -2.0, 0.5}, out[3];
  double din[3] = {0.5, 0.25, -1.0}, dout[3] = {1.0, 2.0, -3.0};
  g(in, din, out, dout, 3);
  const double w[3] = {1.0, 2.0, -3.0}, c[3] = {0.5, 0.25, -1.0};
  for (int i = 0; i < 3; i++) {
    assert_close(out[i], 3 * in[i] * in[i], "out");
    assert_close(din[i], c[i] + 6 * in[i] * w[i], "din");
    assert_close(dout[i], 0.0, "dout (consumed)");
  }
  tanjit_session_free(s);
}
END_TEST

START_TEST(repeat_request_is_cached) {
  tanjit_session *s = new_session();
  load_ok(s, loss_ir, "loss");
  tanjit_activity act[] = {TANJIT_ACTIVE, TANJIT_DUP, TANJIT_ACTIVE,
                           TANJIT_CONST};
  tanjit_activity other[] = {TANJIT_ACTIVE, TANJIT_CONST, TANJIT_ACTIVE,
                             TANJIT_CONST};
  tanjit_activity fwd[] = {TANJIT_DUP, TANJIT_DUP, TANJIT_DUP, TANJIT_CONST};
  void *a = autodiff_ok(s, "f", act, 4);
  ck_assert_ptr_eq(autodiff_ok(s, "f", act, 4), a);
  void *b = autodiff_ok(s, "f", other, 4);
  ck_assert_ptr_ne(a, b);
  ck_assert_ptr_eq(autodiff_ok(s, "f", other, 4), b);
  /* forward mode's cache is apart */
  tanjit_error *err = NULL;
  void *df = tanjit_fwddiff(s, "f", fwd, 4, 1, &err);
  ck_assert_msg(df, "%s", tanjit_error_message(err));
  ck_assert_ptr_ne(df, a);
  ck_assert_ptr_eq(autodiff_ok(s, "f", act, 4), a);
  tanjit_stats st;
  tanjit_session_stats(s, &st);
  unsigned long modules = st.modules;
  autodiff_ok(s, "f", act, 4);
  tanjit_session_stats(s, &st);
  ck_assert_uint_eq(st.modules, modules); /* nothing transformed again */
  tanjit_session_free(s);
}
END_TEST

/* One session on cache directory `dir`: the gradient of k at (2, 3, 5)
 * (all active), and the session's stats. */
static d3 cached_gradient(const char *dir, tanjit_stats *st) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.cache_dir = dir;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_msg(s, "%s", tanjit_error_message(err));
  load_ok(s, loss_ir, "loss");
  tanjit_activity three[] = {TANJIT_ACTIVE, TANJIT_ACTIVE, TANJIT_ACTIVE};
  d3 (*gk)(double, double, double) =
      (d3(*)(double, double, double))(uintptr_t)autodiff_ok(s, "k", three, 3);
  d3 r = gk(2.0, 3.0, 5.0);
  tanjit_session_stats(s, st);
  tanjit_session_free(s);
  return r;
}

START_TEST(gradient_is_kept_in_the_object_cache) {
  char dir[] = "/tmp/tanjit-rev-api-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  tanjit_stats st;
  d3 cold = cached_gradient(dir, &st);
  ck_assert_uint_eq(st.cache_hits, 0);
  ck_assert_uint_ge(st.cache_misses, 1);
  d3 warm = cached_gradient(dir, &st);
  ck_assert_uint_eq(st.cache_hits, 1);
  ck_assert_uint_eq(st.cache_misses, 0);
  ck_assert(cold.da == warm.da && cold.db == warm.db && cold.dc == warm.dc);
  assert_close(warm.da, 16.0, "dk/da");
  char cmd[64];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(unload_removes_the_gradient) {
  tanjit_session *s = new_session();
  load_ok(s, loss_ir, "loss");
  tanjit_activity three[] = {TANJIT_ACTIVE, TANJIT_ACTIVE, TANJIT_ACTIVE};
  autodiff_ok(s, "k", three, 3);
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_unload(s, "loss", &err) == 0, "%s",
                tanjit_error_message(err));
  ck_assert_ptr_null(tanjit_autodiff(s, "k", three, 3, 1, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  tanjit_error_free(err);
  /* k defined again, differently: the gradient is made anew from it */
  const char *k2 = "define double @k(double %a, double %b, double %c) {\n"
                   "  %ab = fmul double %a, %b\n  %r = fadd double %ab, %c\n"
                   "  ret double %r\n}\n";
  load_ok(s, k2, "k2");
  d3 (*gk)(double, double, double) =
      (d3(*)(double, double, double))(uintptr_t)autodiff_ok(s, "k", three, 3);
  d3 r = gk(2.0, 3.0, 5.0);
  assert_close(r.da, 3.0, "dk/da");
  assert_close(r.db, 2.0, "dk/db");
  assert_close(r.dc, 1.0, "dk/dc");
  tanjit_session_free(s);
}
END_TEST

static void expect_error(tanjit_session *s, const char *fn,
                         const tanjit_activity *act, size_t n, unsigned width,
                         tanjit_error_code code, const char *message) {
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_autodiff(s, fn, act, n, width, &err));
  ck_assert_ptr_nonnull(err);
  ck_assert_msg(tanjit_error_get_code(err) == code, "code %d (want %d): %s",
                (int)tanjit_error_get_code(err), (int)code,
                tanjit_error_message(err));
  ck_assert_msg(strstr(tanjit_error_message(err), message),
                "message \"%s\" lacks \"%s\"", tanjit_error_message(err),
                message);
  tanjit_error_free(err);
}

START_TEST(errors_name_the_problem_and_leave_the_session_usable) {
  tanjit_session *s = new_session();
  load_ok(s, loss_ir, "loss");
  tanjit_activity good[] = {TANJIT_ACTIVE, TANJIT_DUP, TANJIT_ACTIVE,
                            TANJIT_CONST};
  expect_error(s, "nosuch", good, 4, 1, TANJIT_ERR_SYMBOL,
               "tanjit_autodiff: no loaded module defines a function `nosuch`");
  expect_error(s, "f", good, 3, 1, TANJIT_ERR_INVALID_ARGUMENT,
               "tanjit_autodiff of f: 3 activities given, but f takes 4 "
               "parameters");
  expect_error(s, "f", good, 4, 2, TANJIT_ERR_UNSUPPORTED,
               "tanjit_autodiff of f: width 2 (vector reverse mode) is not "
               "supported; the width must be 1");
  expect_error(s, "f", good, 4, 0, TANJIT_ERR_INVALID_ARGUMENT,
               "tanjit_autodiff of f: width 0 is not in 1..");
  tanjit_activity active_int[] = {TANJIT_ACTIVE, TANJIT_DUP, TANJIT_ACTIVE,
                                  TANJIT_ACTIVE};
  expect_error(s, "f", active_int, 4, 1, TANJIT_ERR_INVALID_ARGUMENT,
               "tanjit_autodiff of f: parameter 4 (i32) is TANJIT_ACTIVE, "
               "which takes a float scalar passed by value (pass a pointer "
               "with TANJIT_DUP)");
  tanjit_activity active_ptr[] = {TANJIT_ACTIVE, TANJIT_ACTIVE, TANJIT_ACTIVE,
                                  TANJIT_CONST};
  expect_error(s, "f", active_ptr, 4, 1, TANJIT_ERR_INVALID_ARGUMENT,
               "parameter 2 (ptr) is TANJIT_ACTIVE");
  tanjit_activity dup_float[] = {TANJIT_DUP, TANJIT_DUP, TANJIT_ACTIVE,
                                 TANJIT_CONST};
  expect_error(s, "f", dup_float, 4, 1, TANJIT_ERR_INVALID_ARGUMENT,
               "tanjit_autodiff of f: parameter 1 (double) is duplicated, but "
               "reverse mode duplicates pointers only (a float passed by "
               "value is TANJIT_ACTIVE)");
  tanjit_activity bad[] = {(tanjit_activity)7, TANJIT_DUP, TANJIT_ACTIVE,
                           TANJIT_CONST};
  expect_error(s, "f", bad, 4, 1, TANJIT_ERR_INVALID_ARGUMENT,
               "tanjit_autodiff of f: activity 7 of parameter 1 is not "
               "TANJIT_CONST, TANJIT_DUP or TANJIT_DUPNONEED or TANJIT_ACTIVE");
  expect_error(NULL, "f", good, 4, 1, TANJIT_ERR_INVALID_ARGUMENT,
               "tanjit_autodiff: session, function and activities are required");
  /* the engine's own refusal, naming the request */
  tanjit_activity pair[] = {TANJIT_ACTIVE};
  expect_error(s, "pair", pair, 1, 1, TANJIT_ERR_UNSUPPORTED,
               "tanjit_autodiff of pair (active; width 1)");
  expect_error(s, "pair", pair, 1, 1, TANJIT_ERR_UNSUPPORTED,
               "its result has type { double, double }; reverse mode seeds "
               "a float result only");
  /* located at the function asked for, not at tanjit's wrapper calling
   * __enzyme_autodiff */
  tanjit_error *pair_err = NULL;
  ck_assert_ptr_null(tanjit_autodiff(s, "pair", pair, 1, 1, &pair_err));
  ck_assert_str_eq(tanjit_error_function(pair_err), "pair");
  ck_assert_ptr_null(tanjit_error_instruction(pair_err));
  tanjit_error_free(pair_err);
  /* forward mode refuses reverse mode's activity */
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_fwddiff(s, "f", good, 4, 1, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(tanjit_error_message(err),
                   "tanjit_fwddiff of f: parameter 1 is TANJIT_ACTIVE, which "
                   "is reverse mode's (tanjit_autodiff); forward mode takes "
                   "TANJIT_DUP");
  tanjit_error_free(err);
  /* and still works */
  tanjit_activity one[] = {TANJIT_ACTIVE, TANJIT_CONST, TANJIT_CONST,
                           TANJIT_CONST};
  double (*g)(double, double *, double, int) =
      (double (*)(double, double *, double, int))(uintptr_t)autodiff_ok(
          s, "f", one, 4);
  double a[1] = {2.0};
  assert_close(g(1.5, a, 0.0, 1), 2 * 1.5 * 4.0 + sin(0.0), "after errors");
  tanjit_session_free(s);
}
END_TEST

/* ---- custom reverse rules ---- */

/* The primal, resolved from the process (the test is linked -rdynamic). */
double test_rev_cube(double x) { return x * x * x; }

static int aug_calls, rev_calls;
static double tapes[8];

/* Records x in its own tape slot, to check each call gets its tape back. */
void *test_rev_cube_aug(double x) {
  tapes[aug_calls % 8] = x;
  return &tapes[aug_calls++ % 8];
}

/* Ten times the true derivative 3x^2, read from the tape. */
double test_rev_cube_rev(double x, double dret, void *tape) {
  rev_calls++;
  double t = *(double *)tape;
  ck_assert_msg(t == x, "tape holds %g for the call with %g", t, x);
  return 10.0 * 3.0 * x * x * dret;
}

/* Without an augmented function: scaled by 100, no tape. */
static double cube_rev_no_tape(double x, double dret) {
  rev_calls++;
  return 100.0 * 3.0 * x * x * dret;
}

/* u(x) = cube(x) * 2 + cube(x * x) */
static const char *const rule_ir =
    "declare double @test_rev_cube(double)\n"
    "define double @u(double %x) {\n"
    "  %c = call double @test_rev_cube(double %x)\n"
    "  %c2 = fmul double %c, 2.0\n"
    "  %xx = fmul double %x, %x\n"
    "  %d = call double @test_rev_cube(double %xx)\n"
    "  %r = fadd double %c2, %d\n"
    "  ret double %r\n"
    "}\n";

START_TEST(registered_reverse_rule_is_used) {
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_register_rev_rule(s, "test_rev_cube", "test_rev_cube_aug",
                                         "test_rev_cube_rev", 0, &err) == 0,
                "%s", tanjit_error_message(err));
  load_ok(s, rule_ir, "rule");
  tanjit_activity act[] = {TANJIT_ACTIVE};
  double (*g)(double) = (double (*)(double))(uintptr_t)autodiff_ok(s, "u", act, 1);
  aug_calls = rev_calls = 0;
  double x = 1.5;
  /* the rule's numbers: 2 * 30 x^2 + 30 (x^2)^2 * 2x */
  assert_close(g(x), 2 * 30 * x * x + 30 * pow(x, 4) * 2 * x, "du/dx");
  ck_assert_int_eq(aug_calls, 2);
  ck_assert_int_eq(rev_calls, 2);
  tanjit_session_free(s);
}
END_TEST

START_TEST(reverse_rule_by_address_without_augmented) {
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_register_rev_rule_address(
                    s, "test_rev_cube", NULL, (void *)(uintptr_t)cube_rev_no_tape,
                    0, &err) == 0,
                "%s", tanjit_error_message(err));
  load_ok(s, rule_ir, "rule");
  tanjit_activity act[] = {TANJIT_ACTIVE};
  double (*g)(double) = (double (*)(double))(uintptr_t)autodiff_ok(s, "u", act, 1);
  rev_calls = 0;
  double x = 0.5;
  assert_close(g(x), 2 * 300 * x * x + 300 * pow(x, 4) * 2 * x, "du/dx");
  ck_assert_int_eq(rev_calls, 2);
  tanjit_session_free(s);
}
END_TEST

/* Enzyme's in-IR registrations, reached through tanjit_autodiff (so
 * through the session's copy of the module): mul's rule has a tape (x,
 * stored by the augmented function) and returns the two adjoints ten times
 * too large; scale's accumulates 7 (not 2) times dout into din. */
static const char *const in_ir_rules =
    "declare ptr @malloc(i64)\n"
    "declare void @free(ptr)\n"
    "define double @mul(double %x, double %y) {\n"
    "  %m = fmul double %x, %y\n"
    "  ret double %m\n"
    "}\n"
    "define ptr @aug_mul(double %x, double %y) {\n"
    "  %t = call ptr @malloc(i64 8)\n"
    "  store double %x, ptr %t\n"
    "  ret ptr %t\n"
    "}\n"
    "define { double, double } @rev_mul(double %x, double %y, double %d, ptr %t) {\n"
    "  %tx = load double, ptr %t\n"
    "  call void @free(ptr %t)\n"
    "  %dx = fmul double %y, %d\n"
    "  %dx10 = fmul double %dx, 10.0\n"
    "  %dy = fmul double %tx, %d\n"
    "  %dy10 = fmul double %dy, 10.0\n"
    "  %a = insertvalue { double, double } undef, double %dx10, 0\n"
    "  %b = insertvalue { double, double } %a, double %dy10, 1\n"
    "  ret { double, double } %b\n"
    "}\n"
    "@__enzyme_register_gradient_mul = global [3 x ptr] [ptr @mul, ptr @aug_mul, ptr @rev_mul]\n"
    "define void @scale(ptr %in, ptr %out) noinline {\n"
    "  %v = load double, ptr %in\n"
    "  %w = fmul double %v, 2.0\n"
    "  store double %w, ptr %out\n"
    "  ret void\n"
    "}\n"
    "define void @aug_scale(ptr %in, ptr %din, ptr %out, ptr %dout) {\n"
    "  %v = load double, ptr %in\n"
    "  %w = fmul double %v, 2.0\n"
    "  store double %w, ptr %out\n"
    "  ret void\n"
    "}\n"
    "define void @rev_scale(ptr %in, ptr %din, ptr %out, ptr %dout) {\n"
    "  %d = load double, ptr %dout\n"
    "  %s = load double, ptr %din\n"
    "  %d7 = fmul double %d, 7.0\n"
    "  %n = fadd double %s, %d7\n"
    "  store double %n, ptr %din\n"
    "  store double 0.0, ptr %dout\n"
    "  ret void\n"
    "}\n"
    "@__enzyme_register_gradient_scale = global [3 x ptr] [ptr @scale, ptr @aug_scale, ptr @rev_scale]\n"
    /* the augmented function's other result forms: {tape, primal} and
     * the primal alone (its result deliberately off by 1, to show it is
     * the one used) */
    "define double @cube(double %x) {\n"
    "  %a = fmul double %x, %x\n  %b = fmul double %a, %x\n  ret double %b\n"
    "}\n"
    "define { double, double } @aug_cube(double %x) {\n"
    "  %a = fmul double %x, %x\n  %b = fmul double %a, %x\n"
    "  %p = insertvalue { double, double } undef, double %a, 0\n"
    "  %q = insertvalue { double, double } %p, double %b, 1\n"
    "  ret { double, double } %q\n"
    "}\n"
    /* the tape is x*x: 3 * tape * d, times 10 */
    "define double @rev_cube(double %x, double %d, double %t) {\n"
    "  %a = fmul double %t, 30.0\n  %b = fmul double %a, %d\n  ret double %b\n"
    "}\n"
    "@__enzyme_register_gradient_cube = global [3 x ptr] [ptr @cube, ptr @aug_cube, ptr @rev_cube]\n"
    "define double @twice(double %x) {\n"
    "  %a = fmul double %x, 2.0\n  ret double %a\n"
    "}\n"
    "define double @aug_twice(double %x) {\n"
    "  %a = fmul double %x, 2.0\n  %b = fadd double %a, 1.0\n  ret double %b\n"
    "}\n"
    "define double @rev_twice(double %x, double %d) {\n"
    "  %a = fmul double %d, 5.0\n  ret double %a\n"
    "}\n"
    "@__enzyme_register_gradient_twice = global [3 x ptr] [ptr @twice, ptr @aug_twice, ptr @rev_twice]\n"
    /* C(x) = cube(x) * twice(x) */
    "define double @C(double %x) {\n"
    "  %a = call double @cube(double %x)\n"
    "  %b = call double @twice(double %x)\n"
    "  %r = fmul double %a, %b\n"
    "  ret double %r\n"
    "}\n"
    /* L(x, y) = mul(x, y) + mul(y, y) * x */
    "define double @L(double %x, double %y) {\n"
    "  %a = call double @mul(double %x, double %y)\n"
    "  %b = call double @mul(double %y, double %y)\n"
    "  %bx = fmul double %b, %x\n"
    "  %r = fadd double %a, %bx\n"
    "  ret double %r\n"
    "}\n"
    /* M(a) = scale(a[0]) * 3 */
    "define double @M(ptr %a) {\n"
    "  %t = alloca double\n"
    "  call void @scale(ptr %a, ptr %t)\n"
    "  %v = load double, ptr %t\n"
    "  %r = fmul double %v, 3.0\n"
    "  ret double %r\n"
    "}\n";

START_TEST(in_ir_gradient_registrations_are_used) {
  tanjit_session *s = new_session();
  load_ok(s, in_ir_rules, "in_ir");
  double (*L)(double, double) = (double (*)(double, double))(uintptr_t)lookup_ok(s, "L");
  assert_close(L(2.0, 3.0), 6.0 + 18.0, "L"); /* the primal still runs */
  tanjit_activity two[] = {TANJIT_ACTIVE, TANJIT_ACTIVE};
  d2 (*gL)(double, double) = (d2(*)(double, double))(uintptr_t)autodiff_ok(s, "L", two, 2);
  double x = 2.0, y = 3.0;
  d2 r = gL(x, y);
  /* the rule's numbers: d mul = 10 (y, x); b = y*y, db/dy = 10 * 2y */
  assert_close(r.dx, 10 * y + y * y, "dL/dx");
  assert_close(r.dy, 10 * x + x * 10 * (y + y), "dL/dy");
  /* dC = dcube * twice' + cube * dtwice, with the rules' numbers and the
   * augmented functions' primals: 30x^2 (2x + 1) + x^3 * 5 */
  tanjit_activity one[] = {TANJIT_ACTIVE};
  double (*gC)(double) = (double (*)(double))(uintptr_t)autodiff_ok(s, "C", one, 1);
  double c = 1.5;
  assert_close(gC(c), 30 * c * c * (2 * c + 1) + c * c * c * 5, "dC/dx");
  tanjit_activity dup[] = {TANJIT_DUP};
  void (*gM)(double *, double *) =
      (void (*)(double *, double *))(uintptr_t)autodiff_ok(s, "M", dup, 1);
  double a = 1.5, da = 0.25;
  gM(&a, &da);
  assert_close(da, 0.25 + 7.0 * 3.0, "dM/da");
  tanjit_session_free(s);
}
END_TEST

START_TEST(bad_in_ir_gradient_registrations) {
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  const char *two =
      "define double @sq(double %x) {\n  %m = fmul double %x, %x\n  ret double %m\n}\n"
      "@__enzyme_register_gradient_sq = global [2 x ptr] [ptr @sq, ptr @sq]\n";
  ck_assert_int_eq(tanjit_load_memory(s, two, strlen(two), "two", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_DIFFERENTIATE);
  ck_assert_msg(strstr(tanjit_error_message(err),
                       "in-IR registration __enzyme_register_gradient_sq: must "
                       "be a constant array of three functions {function, "
                       "augmented forward, reverse}"),
                "%s", tanjit_error_message(err));
  tanjit_error_free(err);
  err = NULL;
  /* a reverse function missing the result's adjoint */
  const char *short_rev =
      "define double @sq(double %x) {\n  %m = fmul double %x, %x\n  ret double %m\n}\n"
      "define void @aug_sq(double %x) {\n  ret void\n}\n"
      "define double @rev_sq(double %x) {\n  ret double %x\n}\n"
      "@__enzyme_register_gradient_sq = global [3 x ptr] [ptr @sq, ptr @aug_sq, ptr @rev_sq]\n"
      "define double @use(double %x) {\n  %y = call double @sq(double %x)\n  ret double %y\n}\n";
  load_ok(s, short_rev, "short_rev");
  tanjit_activity act[] = {TANJIT_ACTIVE};
  ck_assert_ptr_null(tanjit_autodiff(s, "use", act, 1, 1, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_DIFFERENTIATE);
  ck_assert_msg(strstr(tanjit_error_message(err),
                       "reverse mode: the custom gradient of sq: its reverse "
                       "function takes a different number of parameters"),
                "%s", tanjit_error_message(err));
  tanjit_error_free(err);
  err = NULL;
  /* a request on the registered function itself */
  ck_assert_ptr_null(tanjit_autodiff(s, "sq", act, 1, 1, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(tanjit_error_message(err),
                       "sq has a custom gradient (rev_sq), which is used for "
                       "calls to it"),
                "%s", tanjit_error_message(err));
  tanjit_error_free(err);
  tanjit_session_free(s);
}
END_TEST

START_TEST(bad_reverse_rule_registrations) {
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_register_rev_rule(s, "f", "a", NULL, 0, &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(tanjit_error_message(err),
                   "tanjit_register_rev_rule: session, function and reverse "
                   "are required (augmented may be NULL, not empty)");
  tanjit_error_free(err);
  err = NULL;
  ck_assert_int_eq(tanjit_register_rev_rule(s, "f", NULL, "r", 4, &err), -1);
  ck_assert_str_eq(tanjit_error_message(err),
                   "tanjit_register_rev_rule of f: unknown flags 0x4 (none is "
                   "defined)");
  tanjit_error_free(err);
  err = NULL;
  ck_assert_int_eq(tanjit_register_rev_rule_address(s, "f", NULL, NULL, 0, &err),
                   -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  tanjit_error_free(err);
  tanjit_session_free(s);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("rev_api");
  TCase *api = tcase_create("autodiff");
  tcase_set_timeout(api, 120);
  tcase_add_test(api, active_scalars_and_dup_pointer_match_finite_differences);
  tcase_add_test(api, one_active_returns_its_adjoint_and_const_pointer_gets_none);
  tcase_add_test(api, several_adjoints_follow_the_c_abi);
  tcase_add_test(api, void_function_accumulates_into_shadows);
  tcase_add_test(api, repeat_request_is_cached);
  tcase_add_test(api, gradient_is_kept_in_the_object_cache);
  tcase_add_test(api, unload_removes_the_gradient);
  tcase_add_test(api, errors_name_the_problem_and_leave_the_session_usable);
  suite_add_tcase(suite, api);
  TCase *rules = tcase_create("rules");
  tcase_set_timeout(rules, 120);
  tcase_add_test(rules, registered_reverse_rule_is_used);
  tcase_add_test(rules, reverse_rule_by_address_without_augmented);
  tcase_add_test(rules, in_ir_gradient_registrations_are_used);
  tcase_add_test(rules, bad_in_ir_gradient_registrations);
  tcase_add_test(rules, bad_reverse_rule_registrations);
  suite_add_tcase(suite, rules);
  SRunner *sr = srunner_create(suite);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
