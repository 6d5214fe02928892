/*
 * Parallel compilation (tanjit_options.jobs, `--jobs N`): a large module
 * compiled in partitions on threads gives the bits a whole-module compile
 * gives, at any number of jobs; the object cache stores and reuses the
 * partitions' objects; and lazily compiled functions called first from
 * two threads at once.  The threaded suite scripts/test.sh runs under TSan.
 */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/check_main.h"
#include "tanjit/tanjit.h"

static tanjit_session *open_jobs(tanjit_compile_mode mode, const char *cache, unsigned jobs);
static tanjit_session *open_session(tanjit_compile_mode mode, const char *cache) {
  return open_jobs(mode, cache, 1);
}

static tanjit_session *open_jobs(tanjit_compile_mode mode, const char *cache, unsigned jobs) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.compile_mode = mode;
  o.jobs = jobs;
  o.cache_dir = cache;
  /* bit for bit: with reassociation allowed (the default, fast), the
   * optimizer may regroup tangent sums differently where a whole-module
   * compile inlined across partitions (test_lazy's fast_derivatives_agree) */
  o.derivative_fp = TANJIT_DERIVATIVE_FP_STRICT;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_msg(s, "%s", err ? tanjit_error_message(err) : "");
  return s;
}

static void load(tanjit_session *s, const char *text) {
  tanjit_error *err = NULL;
  int rc = tanjit_load_memory(s, text, strlen(text), "m.ll", &err);
  ck_assert_msg(rc == 0, "%s", err ? tanjit_error_message(err) : "");
}

typedef double (*fn1)(double);

static fn1 lookup(tanjit_session *s, const char *name) {
  tanjit_error *err = NULL;
  fn1 f = (fn1)tanjit_lookup_function(s, name, &err);
  ck_assert_msg(f, "%s: %s", name, err ? tanjit_error_message(err) : "");
  return f;
}

/* N functions f<i> with a request each (df<i>), as bench/compile
 * generates, plus a driver summing every derivative. */
static char *generated_module(int n) {
  size_t cap = 4096 + (size_t)n * 1024;
  char *text = malloc(cap);
  size_t at = (size_t)snprintf(text, cap,
                               "declare double @llvm.sin.f64(double)\n"
                               "declare double @llvm.exp.f64(double)\n"
                               "declare double @__enzyme_fwddiff(ptr, ...)\n");
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(
        text + at, cap - at,
        "define double @f%d(double %%x) {\n"
        "  %%a = fmul double %%x, %%x\n"
        "  %%b = call double @llvm.sin.f64(double %%a)\n"
        "  %%c = fmul double %%b, %.17e\n"
        "  %%d = call double @llvm.exp.f64(double %%x)\n"
        "  %%e = fadd double %%c, %%d\n"
        "  %%g = fdiv double %%e, %.17e\n"
        "  ret double %%g\n"
        "}\n"
        "define double @df%d(double %%x) {\n"
        "  %%r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f%d, double %%x, double 1.0)\n"
        "  ret double %%r\n"
        "}\n",
        i, 1.0 + i / 7.0, 3.0 + i / 7.0, i, i);
  at += (size_t)snprintf(text + at, cap - at,
                         "define double @sum(double %%x) {\n  %%s0 = fadd double 0.0, 0.0\n");
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(text + at, cap - at,
                           "  %%t%d = call double @df%d(double %%x)\n"
                           "  %%s%d = fadd double %%s%d, %%t%d\n",
                           i, i, i + 1, i, i);
  snprintf(text + at, cap - at, "  ret double %%s%d\n}\n", n);
  return text;
}

static const double points[] = {0.25, 0.5, 1.0, 1.75, 3.0};
#define N_POINTS (sizeof points / sizeof *points)

/* sum, df0, df57 and f30 at each point, compiled with `jobs` threads. */
static void values_with_jobs(const char *text, unsigned jobs, const char *cache,
                             double *out, tanjit_stats *st) {
  static const char *const names[] = {"sum", "df0", "df57", "f30"};
  tanjit_session *s = open_jobs(TANJIT_COMPILE_EAGER, cache, jobs);
  load(s, text);
  for (int k = 0; k < 4; k++) {
    fn1 f = lookup(s, names[k]);
    for (size_t i = 0; i < N_POINTS; i++)
      out[k * N_POINTS + i] = f(points[i]);
  }
  if (st)
    tanjit_session_stats(s, st);
  tanjit_session_free(s);
}

START_TEST(partitions_give_the_same_bits) {
  char *gen = generated_module(60); /* 121 functions and 60 derivatives */
  double one[4 * N_POINTS], two[4 * N_POINTS], four[4 * N_POINTS];
  values_with_jobs(gen, 1, NULL, one, NULL);
  values_with_jobs(gen, 2, NULL, two, NULL);
  values_with_jobs(gen, 4, NULL, four, NULL);
  ck_assert_mem_eq(one, two, sizeof one);
  ck_assert_mem_eq(one, four, sizeof one);
  /* and they are the derivatives */
  for (size_t i = 0; i < N_POINTS; i++) {
    double x = points[i], k = 1.0, c = 3.0;
    double want = (2 * k * x * cos(x * x) + exp(x)) / c;
    ck_assert_msg(fabs(one[N_POINTS + i] - want) <= 1e-12 * fabs(want), "df0(%g) = %.17g",
                  x, one[N_POINTS + i]);
  }
  free(gen);
}
END_TEST

/* 1 when the directory's one cache entry is a list of objects (the
 * partitions' and the module's), 0 when it is one object, -1 otherwise. */
static int entry_holds_parts(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "cat '%s'/*.tjo", dir);
  FILE *f = popen(cmd, "r");
  ck_assert_ptr_nonnull(f);
  static char data[1 << 22];
  size_t n = fread(data, 1, sizeof data, f);
  pclose(f);
  if (n < 64)
    return -1;
  return memmem(data, 64 + 8, "TJPARTS1", 8) != NULL;
}

/* A module compiled in partitions is one cache entry holding every
 * partition's object: the next session (any number of jobs) hits. */
START_TEST(partitions_are_cached_together) {
  char dir[] = "/tmp/tanjit-parallel-cache-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char *gen = generated_module(60);
  double cold[4 * N_POINTS], warm[4 * N_POINTS], warm1[4 * N_POINTS];
  char cmd[128];
  tanjit_stats st;
  values_with_jobs(gen, 2, dir, cold, &st);
  ck_assert_int_eq(st.cache_misses, 1);
  ck_assert_int_eq(st.cache_errors, 0);
  /* it was compiled in partitions: its one entry lists their objects */
  ck_assert_int_eq(entry_holds_parts(dir), 1);
  values_with_jobs(gen, 2, dir, warm, &st);
  ck_assert_int_eq(st.cache_hits, 1);
  ck_assert_int_eq(st.cache_errors, 0);
  ck_assert(st.codegen_seconds == 0);
  values_with_jobs(gen, 1, dir, warm1, &st);
  ck_assert_int_eq(st.cache_hits, 1);
  /* compiled whole, one object: (another directory) */
  char whole[] = "/tmp/tanjit-parallel-whole-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(whole));
  double one[4 * N_POINTS];
  values_with_jobs(gen, 1, whole, one, &st);
  ck_assert_int_eq(entry_holds_parts(whole), 0);
  ck_assert_mem_eq(one, cold, sizeof one);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", whole);
  ck_assert_int_eq(system(cmd), 0);
  ck_assert_mem_eq(cold, warm, sizeof cold);
  ck_assert_mem_eq(cold, warm1, sizeof cold);
  free(gen);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(default_jobs_is_accepted) {
  char *gen = generated_module(60);
  double def[4 * N_POINTS], one[4 * N_POINTS];
  values_with_jobs(gen, 0, NULL, def, NULL); /* the number of cores */
  values_with_jobs(gen, 1, NULL, one, NULL);
  ck_assert_mem_eq(def, one, sizeof one);
  free(gen);
}
END_TEST

typedef struct race {
  tanjit_session *s;
  fn1 sum;
  double got;
} race;

static void *call_sum(void *p) {
  race *r = p;
  r->got = r->sum(0.75);
  return NULL;
}

/* Two threads making the first calls into the same lazily compiled
 * functions at once (run under TSan by scripts/test.sh --all). */
START_TEST(first_calls_from_two_threads) {
  char *gen = generated_module(24);
  double want;
  {
    tanjit_session *s = open_session(TANJIT_COMPILE_EAGER, NULL);
    load(s, gen);
    want = lookup(s, "sum")(0.75);
    tanjit_session_free(s);
  }
  tanjit_session *s = open_session(TANJIT_COMPILE_LAZY, NULL);
  load(s, gen);
  fn1 sum = lookup(s, "sum"); /* sum's body only: every df<i> is a stub */
  race r[2] = {{s, sum, 0}, {s, sum, 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, call_sum, &r[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < 2; i++)
    ck_assert_mem_eq(&r[i].got, &want, sizeof want);
  tanjit_session_free(s);
  free(gen);
}
END_TEST


int main(void) {
  Suite *s = suite_create("parallel");
  TCase *tc = tcase_create("parallel");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, partitions_give_the_same_bits);
  tcase_add_test(tc, partitions_are_cached_together);
  tcase_add_test(tc, default_jobs_is_accepted);
  tcase_add_test(tc, first_calls_from_two_threads);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
