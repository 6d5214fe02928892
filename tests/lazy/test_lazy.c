/*
 * Lazy compilation (TANJIT_COMPILE_LAZY, `--compile lazy`): results are
 * bit-identical to eager compilation; a function never called is never
 * compiled, so its errors fail neither the module nor its neighbours, only
 * its own lookup (a clean tanjit error) or call (the unresolved-call
 * handler); the object cache and unloading still work.
 */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/run_cli.h"
#include "../unit/check_main.h"
#include "session_fixture.h"

static tanjit_derivative_fp derivative_fp = TANJIT_DERIVATIVE_FP_STRICT;

static tanjit_session *open_session(tanjit_compile_mode mode, const char *cache) {
  return fixture_session((fixture_options){mode, cache, 0, derivative_fp});
}

/*
 * Module-private helpers and state, recursion, a table of function
 * pointers called indirectly inside a derivative, a mutable global the
 * derivative reads and writes (a shadow global), and a nested request.
 */
static const char mixed_module[] =
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "declare double @llvm.cos.f64(double)\n"
    "declare double @llvm.log.f64(double)\n"
    "@scale = global double 1.5\n"
    "@calls = internal global i64 0\n"
    "@table = internal constant [2 x ptr] [ptr @sq, ptr @cube]\n"
    "define internal double @sq(double %x) {\n"
    "  %r = fmul double %x, %x\n"
    "  ret double %r\n"
    "}\n"
    "define internal double @cube(double %x) {\n"
    "  %a = fmul double %x, %x\n"
    "  %r = fmul double %a, %x\n"
    "  ret double %r\n"
    "}\n"
    "define double @pick(double %x, i64 %i) {\n"
    "  %p = getelementptr [2 x ptr], ptr @table, i64 0, i64 %i\n"
    "  %f = load ptr, ptr %p\n"
    "  %r = call double %f(double %x)\n"
    "  ret double %r\n"
    "}\n"
    "define double @power(double %x, i32 %n) {\n"
    "  %z = icmp eq i32 %n, 0\n"
    "  br i1 %z, label %one, label %more\n"
    "one:\n"
    "  ret double 1.0\n"
    "more:\n"
    "  %m = sub i32 %n, 1\n"
    "  %r = call double @power(double %x, i32 %m)\n"
    "  %y = fmul double %r, %x\n"
    "  ret double %y\n"
    "}\n"
    "define double @model(double %x) {\n"
    "  %c = load i64, ptr @calls\n"
    "  %c1 = add i64 %c, 1\n"
    "  store i64 %c1, ptr @calls\n"
    "  %s = load double, ptr @scale\n"
    "  %t = fmul double %s, %x\n"
    "  store double %t, ptr @scale\n"
    "  %a = call double @pick(double %x, i64 1)\n"
    "  %b = call double @power(double %t, i32 5)\n"
    "  %k = call double @llvm.cos.f64(double %a)\n"
    "  %l = call double @llvm.log.f64(double %b)\n"
    "  %u = fadd double %k, %l\n"
    "  store double 1.5, ptr @scale\n"
    "  ret double %u\n"
    "}\n"
    "define double @dmodel(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @model, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dpick(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @pick, double %x, double 1.0, i64 0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dpower(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @power, double %x, double 1.0, i32 4)\n"
    "  ret double %r\n"
    "}\n"
    "define i64 @count() {\n"
    "  %c = load i64, ptr @calls\n"
    "  ret i64 %c\n"
    "}\n";

/* Lazy and eager give the same bits, under this file's derivative_fp. */
static void assert_identical(const char *text, const char *const *names, int n) {
  fixture_assert_lazy_matches_eager((fixture_options){TANJIT_COMPILE_LAZY, NULL, 0, derivative_fp},
                                    text, names, n);
}

START_TEST(lazy_equals_eager_bit_for_bit) {
  char *gen = fixture_generated_module(40);
  const char *gen_names[] = {"sum", "df0", "df39", "f17"};
  assert_identical(gen, gen_names, 4);
  free(gen);
  const char *mixed_names[] = {"dmodel", "dpick", "dpower", "model"};
  assert_identical(mixed_module, mixed_names, 4);
  /* and the numbers are the derivatives: d/dx cos(x^3) + 5 log(1.5 x) */
  tanjit_session *s = open_session(TANJIT_COMPILE_LAZY, NULL);
  fixture_load(s, mixed_module);
  fn1 dmodel = fixture_lookup(s, "dmodel");
  for (size_t i = 0; i < FIXTURE_N_POINTS; i++) {
    double x = fixture_points[i];
    double want = -sin(x * x * x) * 3 * x * x + 5 / x;
    ck_assert_msg(fabs(dmodel(x) - want) <= 1e-12 * (1 + fabs(want)),
                  "dmodel(%g) = %.17g, want %.17g", x, dmodel(x), want);
  }
  /* module state is shared by every body: model's counter is count's */
  long long (*count)(void) = (long long (*)(void))(void *)fixture_lookup(s, "count");
  long long before = count();
  fixture_lookup(s, "model")(1.0);
  ck_assert_int_eq(count(), before + 1);
  tanjit_session_free(s);
}
END_TEST

/* With fast derivative arithmetic (the default) lazy and eager agree to
 * rounding: only how tangent sums are grouped may differ. */
START_TEST(fast_derivatives_agree) {
  derivative_fp = TANJIT_DERIVATIVE_FP_FAST;
  char *gen = fixture_generated_module(40);
  const char *names[] = {"sum", "df0", "df39", "f17"};
  assert_identical(gen, names, 4);
  free(gen);
  gen = fixture_fast_math_module(20);
  const char *fast_names[] = {"sum", "at_constants", "df0", "df19"};
  assert_identical(gen, fast_names, 4);
  free(gen);
  assert_identical(mixed_module, (const char *[]){"dmodel", "dpick", "dpower", "model"}, 4);
  derivative_fp = TANJIT_DERIVATIVE_FP_STRICT;
}
END_TEST

/* A run-time derivative (tanjit_fwddiff) of a function of a lazily
 * compiled module: the same bits as the eager session's. */
START_TEST(runtime_derivative_of_lazy_module) {
  double got[2][FIXTURE_N_POINTS];
  for (int mode = 0; mode < 2; mode++) {
    tanjit_session *s = open_session(mode, NULL);
    char *gen = fixture_generated_module(8);
    fixture_load(s, gen);
    free(gen);
    fixture_lookup(s, "df3")(0.5); /* compiled (lazily: some bodies) first */
    tanjit_activity act[] = {TANJIT_DUP};
    tanjit_error *err = NULL;
    double (*d)(double, double) =
        (double (*)(double, double))tanjit_fwddiff(s, "f5", act, 1, 1, &err);
    ck_assert_msg(d, "%s", err ? tanjit_error_message(err) : "");
    for (size_t i = 0; i < FIXTURE_N_POINTS; i++) {
      double x = fixture_points[i];
      got[mode][i] = d(x, 1.0);
      double want = fixture_generated_derivative(5, x);
      ck_assert_msg(fabs(got[mode][i] - want) <= 1e-12 * fabs(want), "%.17g", got[mode][i]);
    }
    tanjit_session_free(s);
  }
  ck_assert_mem_eq(got[0], got[1], sizeof got[0]);
}
END_TEST

/* f calls a symbol nothing defines; g is fine and does not call f. */
static const char broken_neighbour[] =
    "declare double @nosuch_symbol_for_lazy(double)\n"
    "define double @f(double %x) {\n"
    "  %r = call double @nosuch_symbol_for_lazy(double %x)\n"
    "  ret double %r\n"
    "}\n"
    "define double @g(double %x) {\n"
    "  %r = fmul double %x, 3.0\n"
    "  ret double %r\n"
    "}\n"
    "define double @h(double %x) {\n"
    "  %n = fcmp olt double %x, 0.0\n"
    "  br i1 %n, label %bad, label %good\n"
    "bad:\n"
    "  %b = call double @f(double %x)\n"
    "  ret double %b\n"
    "good:\n"
    "  %r = call double @g(double %x)\n"
    "  ret double %r\n"
    "}\n";

START_TEST(uncalled_broken_function_fails_only_itself) {
  /* eager: the module compiles whole, and f's external fails it */
  tanjit_session *s = open_session(TANJIT_COMPILE_EAGER, NULL);
  fixture_load(s, broken_neighbour);
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "g", &err));
  ck_assert_ptr_nonnull(err);
  tanjit_error_free(err);
  tanjit_session_free(s);

  /* lazy: g and h (which calls g, not f, for x >= 0) run */
  s = open_session(TANJIT_COMPILE_LAZY, NULL);
  fixture_load(s, broken_neighbour);
  ck_assert(fixture_lookup(s, "g")(2.0) == 6.0);
  ck_assert(fixture_lookup(s, "h")(2.0) == 6.0);
  /* f's own lookup fails cleanly, twice the same way; g still runs */
  for (int round = 0; round < 2; round++) {
    err = NULL;
    ck_assert_ptr_null(tanjit_lookup(s, "f", &err));
    ck_assert_ptr_nonnull(err);
    ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
    const char *msg = tanjit_error_message(err);
    ck_assert_msg(strstr(msg, "cannot compile 'f'") &&
                      strstr(msg, "unresolved external nosuch_symbol_for_lazy"),
                  "%s", msg);
    tanjit_error_free(err);
  }
  ck_assert(fixture_lookup(s, "g")(-1.0) == -3.0);
  tanjit_session_free(s);
}
END_TEST

typedef struct heard {
  int calls;
  char symbol[256], reason[1024];
} heard;

static void on_unresolved(void *user, const char *symbol, const char *library,
                          const char *reason) {
  (void)library;
  heard *h = user;
  h->calls++;
  snprintf(h->symbol, sizeof h->symbol, "%s", symbol);
  snprintf(h->reason, sizeof h->reason, "%s", reason);
}

/* A call through f's stub (from h, not a lookup) that cannot compile f
 * reaches the unresolved-call handler, with f and the reason. */
START_TEST(failed_first_call_reaches_the_handler) {
  heard h = {0};
  tanjit_options o;
  tanjit_options_init(&o);
  o.compile_mode = TANJIT_COMPILE_LAZY;
  o.on_unresolved = on_unresolved;
  o.on_unresolved_user = &h;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_ptr_nonnull(s);
  fixture_load(s, broken_neighbour);
  fn1 hf = fixture_lookup(s, "h");
  ck_assert(hf(1.0) == 3.0);
  ck_assert_int_eq(h.calls, 0);
  hf(-1.0); /* reaches f: its body cannot be linked */
  ck_assert_int_eq(h.calls, 1);
  ck_assert_str_eq(h.symbol, "f");
  ck_assert_msg(strstr(h.reason, "nosuch_symbol_for_lazy"), "%s", h.reason);
  ck_assert(hf(4.0) == 12.0); /* the rest still runs */
  tanjit_session_free(s);
}
END_TEST

/* A request that cannot be differentiated fails the lookup of the
 * function holding it, with the engine's message: in eager mode the
 * module's first lookup (and the module is removed), in lazy mode that
 * function's first compile (tests/lazy/test_deferred.c: only its own). */
START_TEST(differentiation_error_fails_the_module_lookup) {
  static const char bad[] =
      "declare double @__enzyme_fwddiff(ptr, ...)\n"
      "declare double @opaque_for_lazy(double)\n"
      "define double @f(double %x) {\n"
      "  %r = call double @opaque_for_lazy(double %x)\n"
      "  ret double %r\n"
      "}\n"
      "define double @df(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n";
  tanjit_session *s = open_session(TANJIT_COMPILE_LAZY, NULL);
  fixture_load(s, bad);
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "df", &err));
  ck_assert_ptr_nonnull(err);
  ck_assert_msg(strstr(tanjit_error_message(err), "opaque_for_lazy"), "%s",
                tanjit_error_message(err));
  tanjit_error_free(err);
  /* removed: the corrected module loads under the same names */
  fixture_load(s, mixed_module);
  ck_assert_double_eq_tol(fixture_lookup(s, "dpower")(1.5), 4 * 1.5 * 1.5 * 1.5, 1e-12);
  tanjit_session_free(s);
}
END_TEST

/* Unloading a lazily compiled module and loading a new one. */
START_TEST(unload_and_reload_lazy_module) {
  tanjit_session *s = open_session(TANJIT_COMPILE_LAZY, NULL);
  fixture_load(s, broken_neighbour);
  ck_assert(fixture_lookup(s, "g")(1.0) == 3.0);
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_unload(s, "m.ll", &err), 0);
  fixture_load(s, "define double @g(double %x) {\n  %r = fmul double %x, 5.0\n  ret double %r\n}\n");
  ck_assert(fixture_lookup(s, "g")(1.0) == 5.0);
  tanjit_session_free(s);
}
END_TEST

static void remove_dir(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* The cache with lazy sessions: a module without requests is added from
 * the cache at load (whole), as eager; a lazily compiled module is not
 * stored (its split leaves no object of the whole module). */
START_TEST(cache_hits_in_lazy_mode_and_lazy_does_not_store) {
  char dir[] = "/tmp/tanjit-lazy-cache-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  static const char plain[] =
      "define double @g(double %x) {\n  %r = fmul double %x, 7.0\n  ret double %r\n}\n";
  tanjit_stats st;
  tanjit_session *s = open_session(TANJIT_COMPILE_LAZY, dir);
  fixture_load(s, plain);
  ck_assert(fixture_lookup(s, "g")(2.0) == 14.0);
  tanjit_session_stats(s, &st);
  ck_assert_int_eq(st.cache_hits, 0);
  ck_assert_int_eq(st.cache_misses, 0);
  tanjit_session_free(s);

  s = open_session(TANJIT_COMPILE_EAGER, dir); /* stores */
  fixture_load(s, plain);
  ck_assert(fixture_lookup(s, "g")(2.0) == 14.0);
  tanjit_session_stats(s, &st);
  ck_assert_int_eq(st.cache_misses, 1);
  tanjit_session_free(s);

  s = open_session(TANJIT_COMPILE_LAZY, dir); /* hits */
  fixture_load(s, plain);
  ck_assert(fixture_lookup(s, "g")(2.0) == 14.0);
  tanjit_session_stats(s, &st);
  ck_assert_int_eq(st.cache_hits, 1);
  tanjit_session_free(s);
  remove_dir(dir);
}
END_TEST

START_TEST(cli_compile_option) {
  char path[] = "/tmp/tanjit-lazy-cli-XXXXXX.ll";
  int fd = mkstemps(path, 3);
  ck_assert_int_ge(fd, 0);
  static const char prog[] =
      "declare i32 @nosuch_symbol_for_lazy()\n"
      "define i32 @unused() {\n  %r = call i32 @nosuch_symbol_for_lazy()\n  ret i32 %r\n}\n"
      "define i32 @main(i32 %argc, ptr %argv) {\n  ret i32 7\n}\n";
  ck_assert_int_eq(write(fd, prog, sizeof prog - 1), (ssize_t)(sizeof prog - 1));
  close(fd);
  char out[4096];
  const char *lazy[] = {"run", path, "--no-cache", "--compile", "lazy", NULL};
  ck_assert_int_eq(run_tanjit_cli_stdin(lazy, NULL, out, sizeof out), 7);
  const char *eager[] = {"run", path, "--no-cache", "--compile=eager", NULL};
  ck_assert_int_eq(run_tanjit_cli_stdin(eager, NULL, out, sizeof out), 1);
  ck_assert_msg(strstr(out, "nosuch_symbol_for_lazy"), "%s", out);
  const char *bad[] = {"run", path, "--compile", "later", NULL};
  ck_assert_int_eq(run_tanjit_cli_stdin(bad, NULL, out, sizeof out), 2);
  ck_assert_msg(strstr(out, "--compile takes 'lazy' or 'eager'"), "%s", out);
  unlink(path);
}
END_TEST

START_TEST(invalid_compile_mode_is_refused) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.compile_mode = (tanjit_compile_mode)7;
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_session_new(&o, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  tanjit_error_free(err);
}
END_TEST

int main(void) {
  Suite *s = suite_create("lazy");
  TCase *tc = tcase_create("lazy");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, lazy_equals_eager_bit_for_bit);
  tcase_add_test(tc, fast_derivatives_agree);
  tcase_add_test(tc, runtime_derivative_of_lazy_module);
  tcase_add_test(tc, uncalled_broken_function_fails_only_itself);
  tcase_add_test(tc, failed_first_call_reaches_the_handler);
  tcase_add_test(tc, differentiation_error_fails_the_module_lookup);
  tcase_add_test(tc, unload_and_reload_lazy_module);
  tcase_add_test(tc, cache_hits_in_lazy_mode_and_lazy_does_not_store);
  tcase_add_test(tc, cli_compile_option);
  tcase_add_test(tc, invalid_compile_mode_is_refused);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
