/*
 * Embedding: derivatives requested at run time by name (tanjit_fwddiff),
 * across modules, after the module ran, from many threads, and through
 * Julia's own jlplt ccalls.  Every derivative is checked against an
 * analytic value and a central finite difference of the primal.
 */
#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "tanjit/tanjit.h"

static tanjit_session *new_session(void) {
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(NULL, &err);
  ck_assert_msg(s, "%s", tanjit_error_message(err));
  return s;
}

static void load_ok(tanjit_session *s, const char *ir, const char *name) {
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_load_memory(s, ir, strlen(ir), name, &err) == 0, "%s: %s",
                name, tanjit_error_message(err));
}

static void *fwddiff_ok(tanjit_session *s, const char *fn, const tanjit_activity *a,
                        size_t n, unsigned width) {
  tanjit_error *err = NULL;
  void *p = tanjit_fwddiff(s, fn, a, n, width, &err);
  ck_assert_msg(p, "fwddiff %s: %s", fn, tanjit_error_message(err));
  return p;
}

/* f(x, a) = sin(x) * a[0] + a[1]^2, with a call counter in module state. */
static const char model_ir[] =
    "declare double @llvm.sin.f64(double)\n"
    "@calls = internal global i32 0\n"
    "define double @f(double %x, ptr %a) {\n"
    "  %c = load i32, ptr @calls\n  %c1 = add i32 %c, 1\n  store i32 %c1, ptr @calls\n"
    "  %s = call double @llvm.sin.f64(double %x)\n"
    "  %a0 = load double, ptr %a\n"
    "  %p1 = getelementptr double, ptr %a, i64 1\n"
    "  %a1 = load double, ptr %p1\n"
    "  %t = fmul double %s, %a0\n  %q = fmul double %a1, %a1\n"
    "  %r = fadd double %t, %q\n  ret double %r\n}\n"
    "define i32 @call_count() {\n  %c = load i32, ptr @calls\n  ret i32 %c\n}\n";

typedef double (*f_t)(double, double *);
typedef double (*df_t)(double, double, double *, double *);

static double central_difference(f_t f, double x, double *a, double dx,
                                 const double *da) {
  const double h = 1e-6;
  double ap[2] = {a[0] + h * da[0], a[1] + h * da[1]};
  double am[2] = {a[0] - h * da[0], a[1] - h * da[1]};
  return (f(x + h * dx, ap) - f(x - h * dx, am)) / (2 * h);
}

START_TEST(derivative_after_module_ran) {
  tanjit_session *s = new_session();
  load_ok(s, model_ir, "model.ll");
  tanjit_error *err = NULL;
  f_t f = (f_t)(uintptr_t)tanjit_lookup(s, "f", &err);
  double a[2] = {3.0, -2.0};
  ck_assert_double_eq_tol(f(0.5, a), sin(0.5) * 3.0 + 4.0, 1e-14);
  tanjit_activity act[] = {TANJIT_DUP, TANJIT_DUP};
  df_t df = (df_t)(uintptr_t)fwddiff_ok(s, "f", act, 2, 1);
  double da[2] = {0.25, 1.0};
  double d = df(0.5, 1.0, a, da);
  double analytic = cos(0.5) * 3.0 + sin(0.5) * 0.25 + 2 * -2.0 * 1.0;
  ck_assert_double_eq_tol(d, analytic, 1e-13);
  ck_assert_double_eq_tol(d, central_difference(f, 0.5, a, 1.0, da), 1e-7);
  /* The derivative shares the module's state: the counter saw every call
   * (1 direct + 1 derivative + 4 finite-difference evaluations). */
  int (*count)(void) = (int (*)(void))(uintptr_t)tanjit_lookup(s, "call_count", &err);
  ck_assert_int_eq(count(), 1 + 1 + 2);
  /* A repeat request is the cached address. */
  ck_assert_ptr_eq(fwddiff_ok(s, "f", act, 2, 1), (void *)(uintptr_t)df);
  tanjit_session_free(s);
}
END_TEST

START_TEST(derivative_with_const_and_vector_width) {
  tanjit_session *s = new_session();
  load_ok(s, model_ir, "model.ll");
  tanjit_activity act[] = {TANJIT_DUP, TANJIT_CONST};
  void (*df)(double *, double, double, double, double, double, double *) =
      (void (*)(double *, double, double, double, double, double, double *))(uintptr_t)
          fwddiff_ok(s, "f", act, 2, 4);
  double a[2] = {3.0, -2.0}, out[4] = {0};
  df(out, 0.5, 1.0, 2.0, -1.0, 0.0, a);
  const double dirs[4] = {1.0, 2.0, -1.0, 0.0};
  for (int k = 0; k < 4; k++)
    ck_assert_double_eq_tol(out[k], cos(0.5) * 3.0 * dirs[k], 1e-13);
  tanjit_session_free(s);
}
END_TEST

START_TEST(derivative_across_modules) {
  tanjit_session *s = new_session();
  load_ok(s,
          "declare double @llvm.exp.f64(double)\n"
          "define double @g(double %x) {\n"
          "  %e = call double @llvm.exp.f64(double %x)\n"
          "  %r = fmul double %e, %x\n  ret double %r\n}\n",
          "g.ll");
  load_ok(s,
          "declare double @g(double)\n"
          "define double @h(double %x) {\n"
          "  %y = fmul double %x, %x\n"
          "  %r = call double @g(double %y)\n  ret double %r\n}\n",
          "h.ll");
  tanjit_activity act[] = {TANJIT_DUP};
  double (*dh)(double, double) =
      (double (*)(double, double))(uintptr_t)fwddiff_ok(s, "h", act, 1, 1);
  /* h = x^2 e^{x^2}: h' = 2x e^{x^2} (1 + x^2) */
  double x = 0.7;
  ck_assert_double_eq_tol(dh(x, 1.0), 2 * x * exp(x * x) * (1 + x * x), 1e-12);
  tanjit_session_free(s);
}
END_TEST

START_TEST(bad_requests_are_clear_errors) {
  tanjit_session *s = new_session();
  load_ok(s, model_ir, "model.ll");
  tanjit_error *err = NULL;
  tanjit_activity act[] = {TANJIT_DUP, TANJIT_DUP};
  ck_assert_ptr_null(tanjit_fwddiff(s, "no_such_fn", act, 2, 1, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "no_such_fn"));
  tanjit_error_free(err);
  ck_assert_ptr_null(tanjit_fwddiff(s, "f", act, 1, 1, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "takes 2"));
  tanjit_error_free(err);
  ck_assert_ptr_null(tanjit_fwddiff(s, "f", act, 2, 0, &err));
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "width 0"));
  tanjit_error_free(err);
  tanjit_activity bogus[] = {TANJIT_DUP, (tanjit_activity)9};
  ck_assert_ptr_null(tanjit_fwddiff(s, "f", bogus, 2, 1, &err));
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "parameter 2"));
  tanjit_error_free(err);
  /* The session still serves good requests. */
  ck_assert_ptr_nonnull(fwddiff_ok(s, "f", act, 2, 1));
  tanjit_session_free(s);
}
END_TEST

START_TEST(julia_plt_ccall_differentiated_through) {
  tanjit_session *s = new_session();
  load_ok(s,
          "@lib = private unnamed_addr constant [10 x i8] c\"libm.so.6\\00\"\n"
          "@fn = private unnamed_addr constant [4 x i8] c\"cos\\00\"\n"
          "@handle = internal global ptr null\n"
          "@jlplt_cos_42_got = internal global ptr @jlplt_cos_42 #0\n"
          "declare ptr @ijl_load_and_lookup(ptr, ptr, ptr)\n"
          "define internal double @jlplt_cos_42(double %x) {\n"
          "  %f = call ptr @ijl_load_and_lookup(ptr @lib, ptr @fn, ptr @handle)\n"
          "  store ptr %f, ptr @jlplt_cos_42_got\n"
          "  %r = musttail call double %f(double %x)\n  ret double %r\n}\n"
          "define double @julia_g(double %x) {\n"
          "  %fp = load ptr, ptr @jlplt_cos_42_got\n"
          "  %c = call double %fp(double %x)\n"
          "  %r = fmul double %c, %x\n  ret double %r\n}\n"
          "attributes #0 = { \"julia.fname\"=\"cos\" \"julia.libname\"=\"libm.so.6\" }\n",
          "jlplt.ll");
  tanjit_error *err = NULL;
  double (*g)(double) = (double (*)(double))(uintptr_t)tanjit_lookup(s, "julia_g", &err);
  ck_assert_msg(g, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(g(0.3), cos(0.3) * 0.3, 1e-15);
  tanjit_activity act[] = {TANJIT_DUP};
  double (*dg)(double, double) =
      (double (*)(double, double))(uintptr_t)fwddiff_ok(s, "julia_g", act, 1, 1);
  ck_assert_double_eq_tol(dg(0.3, 1.0), cos(0.3) - 0.3 * sin(0.3), 1e-14);
  tanjit_session_free(s);
}
END_TEST

/* Julia's jlplt GOT into a library loaded RTLD_LOCAL whose function has no
 * IR: bound at load, differentiated with a rule registered for it, the rule
 * itself resolved from the same library through the same rename. */
START_TEST(julia_plt_into_local_library_with_registered_rule) {
  tanjit_options o;
  tanjit_options_init(&o);
  const char *dirs[] = {getenv("TJTEST_LIB_DIR"), NULL};
  o.library_dirs = dirs;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_int_eq(tanjit_register_fwd_rule(s, "tjtest_scale", "tjtest_scale_fwd", 0, &err), 0);
  load_ok(s,
          "@lib = private unnamed_addr constant [13 x i8] c\"libtjtest.so\\00\"\n"
          "@fn = private unnamed_addr constant [13 x i8] c\"tjtest_scale\\00\"\n"
          "@handle = internal global ptr null\n"
          "@jlplt_tjtest_scale_3_got = internal global ptr @jlplt_tjtest_scale_3\n"
          "declare ptr @ijl_load_and_lookup(ptr, ptr, ptr)\n"
          "define internal double @jlplt_tjtest_scale_3(double %x) {\n"
          "  %f = call ptr @ijl_load_and_lookup(ptr @lib, ptr @fn, ptr @handle)\n"
          "  store ptr %f, ptr @jlplt_tjtest_scale_3_got\n"
          "  %r = musttail call double %f(double %x)\n  ret double %r\n}\n"
          "define double @julia_h(double %x) {\n"
          "  %fp = load ptr, ptr @jlplt_tjtest_scale_3_got\n"
          "  %y = call double %fp(double %x)\n"
          "  %r = fmul double %y, %x\n  ret double %r\n}\n",
          "jlplt-local.ll");
  double (*h)(double) = (double (*)(double))(uintptr_t)tanjit_lookup(s, "julia_h", &err);
  ck_assert_msg(h, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(h(2.0), 2.5 * 2.0 * 2.0, 1e-14);
  tanjit_activity act[] = {TANJIT_DUP};
  double (*dh)(double, double) =
      (double (*)(double, double))(uintptr_t)fwddiff_ok(s, "julia_h", act, 1, 1);
  /* h = scale(x) * x, scale' = 2.5 by the rule: h' = 2.5 x + 2.5 x */
  ck_assert_double_eq_tol(dh(2.0, 1.0), 10.0, 1e-14);
  ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "tjtest_scale"));
  tanjit_session_free(s);
}
END_TEST

/* A module with aliases (clang emits them for __attribute__((alias))):
 * the derivative's copy of the module must not redefine them, and a call
 * through an alias is differentiated like a call to its aliasee. */
START_TEST(derivative_of_module_with_aliases) {
  tanjit_session *s = new_session();
  load_ok(s,
          "define double @sq(double %x) {\n  %r = fmul double %x, %x\n  ret double %r\n}\n"
          "@sq_alias = alias double (double), ptr @sq\n"
          "@weight = global double 2.0\n"
          "@weight_alias = alias double, ptr @weight\n"
          "define double @uses(double %x) {\n"
          "  %w = load double, ptr @weight_alias\n"
          "  %r = call double @sq_alias(double %x)\n"
          "  %m = fmul double %r, %w\n  ret double %m\n}\n",
          "aliases.ll");
  tanjit_activity act[] = {TANJIT_DUP};
  double (*dsq)(double, double) =
      (double (*)(double, double))(uintptr_t)fwddiff_ok(s, "sq", act, 1, 1);
  double (*duses)(double, double) =
      (double (*)(double, double))(uintptr_t)fwddiff_ok(s, "uses", act, 1, 1);
  ck_assert_double_eq_tol(dsq(3.0, 1.0), 6.0, 1e-14);
  ck_assert_double_eq_tol(duses(3.0, 1.0), 12.0, 1e-14);
  tanjit_session_free(s);
}
END_TEST

/* A module that cannot be differentiated (an in-IR request through a call
 * with no rule) must not block run-time requests for unrelated functions. */
START_TEST(unrelated_broken_module_does_not_block_requests) {
  tanjit_session *s = new_session();
  load_ok(s, "define double @sqr(double %x) {\n  %r = fmul double %x, %x\n  ret double %r\n}\n",
          "good.ll");
  load_ok(s,
          "declare double @closed_fn(double)\n"
          "declare double @__enzyme_fwddiff(...)\n"
          "define double @k(double %x) {\n  %r = call double @closed_fn(double %x)\n"
          "  ret double %r\n}\n"
          "define double @dk(double %x) {\n"
          "  %r = call double (...) @__enzyme_fwddiff(ptr @k, double %x, double 1.0)\n"
          "  ret double %r\n}\n",
          "broken.ll");
  tanjit_activity act[] = {TANJIT_DUP};
  double (*d)(double, double) =
      (double (*)(double, double))(uintptr_t)fwddiff_ok(s, "sqr", act, 1, 1);
  ck_assert_double_eq_tol(d(3.0, 1.0), 6.0, 1e-14);
  tanjit_session_free(s);
}
END_TEST

/* A module-private (static) function is renamed at load, so that views of
 * its module keep its identity; tanjit_fwddiff still finds it by the name
 * the frontend gave it. */
START_TEST(fwddiff_of_module_private_function) {
  tanjit_session *s = new_session();
  load_ok(s,
          "define internal double @cube(double %x) {\n"
          "  %a = fmul double %x, %x\n  %b = fmul double %a, %x\n"
          "  ret double %b\n}\n"
          "define double @use(double %x) {\n"
          "  %r = call double @cube(double %x)\n  ret double %r\n}\n",
          "private.ll");
  tanjit_activity act[] = {TANJIT_DUP};
  double (*d)(double, double) =
      (double (*)(double, double))(uintptr_t)fwddiff_ok(s, "cube", act, 1, 1);
  ck_assert_double_eq_tol(d(2.0, 1.0), 12.0, 1e-14);
  tanjit_session_free(s);
}
END_TEST

/* A module-private constant whose address is compared (a sentinel) keeps
 * its identity in derivatives made from views of its module: the
 * derivative takes the primal's branch, from tanjit_fwddiff and from an
 * in-IR request in another module. */
START_TEST(private_constant_keeps_identity) {
  tanjit_session *s = new_session();
  load_ok(s,
          "@sentinel = internal constant [4 x i8] c\"end\\00\"\n"
          "define ptr @get_sentinel() {\n  ret ptr @sentinel\n}\n"
          "define double @f(double %x, ptr %p) {\n"
          "  %s = call ptr @get_sentinel()\n"
          "  %is = icmp eq ptr %p, %s\n  br i1 %is, label %a, label %b\n"
          "a:\n  %r1 = fmul double %x, %x\n  ret double %r1\n"
          "b:\n  %r2 = fmul double %x, 3.0\n  ret double %r2\n}\n",
          "A.ll");
  load_ok(s,
          "declare double @f(double, ptr)\n"
          "declare double @__enzyme_fwddiff(...)\n"
          "define double @df_ir(double %x, ptr %p) {\n"
          "  %r = call double (...) @__enzyme_fwddiff(ptr @f, double %x, "
          "double 1.0, metadata !\"enzyme_const\", ptr %p)\n  ret double %r\n}\n",
          "B.ll");
  tanjit_error *err = NULL;
  void *(*get)(void) = (void *(*)(void))(uintptr_t)tanjit_lookup(s, "get_sentinel", &err);
  ck_assert_ptr_nonnull(get);
  void *sentinel = get();
  tanjit_activity act[] = {TANJIT_DUP, TANJIT_CONST};
  double (*df)(double, double, void *) =
      (double (*)(double, double, void *))(uintptr_t)fwddiff_ok(s, "f", act, 2, 1);
  ck_assert_double_eq(df(2.0, 1.0, sentinel), 4.0); /* 2x: the sentinel branch */
  double (*df_ir)(double, void *) =
      (double (*)(double, void *))(uintptr_t)tanjit_lookup(s, "df_ir", &err);
  ck_assert_ptr_nonnull(df_ir);
  ck_assert_double_eq(df_ir(2.0, sentinel), 4.0);
  tanjit_session_free(s);
}
END_TEST

/* A failing run-time request removes only its own module: derivatives
 * cached before stay cached (the same address, nothing recompiled). */
START_TEST(failed_request_keeps_the_cache) {
  tanjit_session *s = new_session();
  load_ok(s,
          "declare double @nowhere(double)\n"
          "define double @sq(double %x) {\n  %r = fmul double %x, %x\n"
          "  ret double %r\n}\n"
          "define double @bad(double %x) {\n"
          "  %r = call double @nowhere(double %x)\n  ret double %r\n}\n",
          "cache.ll");
  tanjit_activity act[] = {TANJIT_DUP};
  void *first = fwddiff_ok(s, "sq", act, 1, 1);
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_fwddiff(s, "bad", act, 1, 1, &err));
  tanjit_error_free(err);
  ck_assert_ptr_eq(fwddiff_ok(s, "sq", act, 1, 1), first);
  tanjit_session_free(s);
}
END_TEST

/* After a module fails to compile and is removed, a corrected module under
 * the same names gets fresh derivatives, not the cached ones. */
START_TEST(reloaded_module_gets_fresh_derivatives) {
  tanjit_session *s = new_session();
  load_ok(s,
          "declare double @nowhere(double)\n"
          "define double @f(double %x) {\n  %r = fmul double %x, %x\n  ret double %r\n}\n"
          "define double @g(double %x) {\n  %r = call double @nowhere(double %x)\n"
          "  ret double %r\n}\n",
          "first.ll");
  tanjit_activity act[] = {TANJIT_DUP};
  double (*d1)(double, double) =
      (double (*)(double, double))(uintptr_t)fwddiff_ok(s, "f", act, 1, 1);
  ck_assert_double_eq_tol(d1(2.0, 1.0), 4.0, 1e-14);
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "g", &err)); /* fails; first.ll removed */
  tanjit_error_free(err);
  ck_assert_ptr_null(tanjit_fwddiff(s, "f", act, 1, 1, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  tanjit_error_free(err);
  load_ok(s, "define double @f(double %x) {\n  %r = fmul double %x, 3.0\n  ret double %r\n}\n",
          "second.ll");
  double (*d2)(double, double) =
      (double (*)(double, double))(uintptr_t)fwddiff_ok(s, "f", act, 1, 1);
  ck_assert_double_eq_tol(d2(2.0, 1.0), 3.0, 1e-14);
  ck_assert_double_eq_tol(d1(2.0, 1.0), 4.0, 1e-14); /* the old one still runs */
  tanjit_session_free(s);
}
END_TEST

/* A tangent-only rule for a function updating memory in place sees the
 * inputs: it runs before the primal call. */
START_TEST(tangent_rule_runs_before_in_place_update) {
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_add_library(s, getenv("TJTEST_LIB"), &err), 0);
  ck_assert_int_eq(tanjit_register_fwd_rule(s, "tjtest_vscale", "tjtest_vscale_fwd", 0, &err), 0);
  load_ok(s,
          "declare void @tjtest_vscale(ptr, double)\n"
          "define void @v(ptr %p, double %k) {\n  call void @tjtest_vscale(ptr %p, double %k)\n"
          "  ret void\n}\n",
          "inplace.ll");
  tanjit_activity act[] = {TANJIT_DUP, TANJIT_DUP};
  void (*dv)(double *, double *, double, double) =
      (void (*)(double *, double *, double, double))(uintptr_t)fwddiff_ok(s, "v", act, 2, 1);
  double x = 2.0, dx = 1.0;
  dv(&x, &dx, 3.0, 0.5);
  ck_assert_double_eq_tol(x, 6.0, 1e-14);
  ck_assert_double_eq_tol(dx, 1.0 * 3.0 + 2.0 * 0.5, 1e-14);
  tanjit_session_free(s);
}
END_TEST

/* A function pointer the host passes in (as a constant argument) reaches a
 * function of the module that only code outside the request refers to. */
START_TEST(function_pointer_argument_at_run_time) {
  tanjit_session *s = new_session();
  load_ok(s,
          "define double @rhs(double %x) {\n  %r = fmul double %x, %x\n  ret double %r\n}\n"
          "define double @apply(ptr %f, double %x) {\n  %r = call double %f(double %x)\n"
          "  ret double %r\n}\n"
          "define double @user(double %x) {\n"
          "  %r = call double @apply(ptr @rhs, double %x)\n  ret double %r\n}\n",
          "fnptr.ll");
  tanjit_activity act[] = {TANJIT_CONST, TANJIT_DUP};
  double (*d)(void *, double, double) =
      (double (*)(void *, double, double))(uintptr_t)fwddiff_ok(s, "apply", act, 2, 1);
  tanjit_error *err = NULL;
  void *rhs = tanjit_lookup(s, "rhs", &err);
  ck_assert_ptr_nonnull(rhs);
  ck_assert_double_eq_tol(d(rhs, 3.0, 1.0), 6.0, 1e-14);
  tanjit_session_free(s);
}
END_TEST

static tanjit_session *threaded;

static void *request_worker(void *arg) {
  intptr_t id = (intptr_t)arg;
  tanjit_activity act[2] = {TANJIT_DUP, (id & 1) ? TANJIT_CONST : TANJIT_DUP};
  for (int i = 0; i < 5; i++) {
    tanjit_error *err = NULL;
    df_t df = (df_t)(uintptr_t)tanjit_fwddiff(threaded, "f", act, 2, 1, &err);
    if (!df) {
      tanjit_error_free(err);
      return (void *)1;
    }
    double a[2] = {3.0, -2.0}, da[2] = {0.0, 1.0};
    double d = (id & 1) ? ((double (*)(double, double, double *))(uintptr_t)df)(0.5, 1.0, a)
                        : df(0.5, 1.0, a, da);
    double expect = cos(0.5) * 3.0 + ((id & 1) ? 0.0 : -4.0);
    if (fabs(d - expect) > 1e-12)
      return (void *)2;
  }
  return NULL;
}

START_TEST(eight_threads_request_overlapping_derivatives) {
  threaded = new_session();
  load_ok(threaded, model_ir, "model.ll");
  pthread_t t[8];
  for (intptr_t i = 0; i < 8; i++)
    pthread_create(&t[i], NULL, request_worker, (void *)i);
  for (int i = 0; i < 8; i++) {
    void *r;
    pthread_join(t[i], &r);
    ck_assert_msg(r == NULL, "thread %d: step %ld", i, (long)(intptr_t)r);
  }
  tanjit_session_free(threaded);
}
END_TEST

int main(void) {
  Suite *s = suite_create("embed");
  TCase *tc = tcase_create("fwddiff");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, derivative_after_module_ran);
  tcase_add_test(tc, derivative_with_const_and_vector_width);
  tcase_add_test(tc, derivative_across_modules);
  tcase_add_test(tc, bad_requests_are_clear_errors);
  tcase_add_test(tc, julia_plt_ccall_differentiated_through);
  tcase_add_test(tc, julia_plt_into_local_library_with_registered_rule);
  tcase_add_test(tc, derivative_of_module_with_aliases);
  tcase_add_test(tc, unrelated_broken_module_does_not_block_requests);
  tcase_add_test(tc, fwddiff_of_module_private_function);
  tcase_add_test(tc, private_constant_keeps_identity);
  tcase_add_test(tc, failed_request_keeps_the_cache);
  tcase_add_test(tc, reloaded_module_gets_fresh_derivatives);
  tcase_add_test(tc, tangent_rule_runs_before_in_place_update);
  tcase_add_test(tc, function_pointer_argument_at_run_time);
  tcase_add_test(tc, eight_threads_request_overlapping_derivatives);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
