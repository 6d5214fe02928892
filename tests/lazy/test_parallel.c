/*
 * Parallel compilation (tanjit_options.jobs, `--jobs N`): a large module
 * compiled in partitions on threads gives the same bits at any number of
 * jobs, lazily, cached, under fast derivative arithmetic too; the object cache stores and reuses the
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
#include "session_fixture.h"

static tanjit_session *open_jobs(tanjit_compile_mode mode, const char *cache, unsigned jobs) {
  return fixture_session((fixture_options){mode, cache, jobs, TANJIT_DERIVATIVE_FP_STRICT});
}

static tanjit_session *open_session(tanjit_compile_mode mode, const char *cache) {
  return open_jobs(mode, cache, 1);
}

/* sum, df0, df57 and f30 at each point, compiled with `jobs` threads. */
static void values_with_jobs(const char *text, unsigned jobs, const char *cache,
                             double *out, tanjit_stats *st) {
  static const char *const names[] = {"sum", "df0", "df57", "f30"};
  fixture_values((fixture_options){TANJIT_COMPILE_EAGER, cache, jobs, TANJIT_DERIVATIVE_FP_STRICT},
                 text, names, 4, out, st);
}

START_TEST(partitions_give_the_same_bits) {
  char *gen = fixture_generated_module(60); /* 121 functions and 60 derivatives */
  double one[4 * FIXTURE_N_POINTS], two[4 * FIXTURE_N_POINTS], four[4 * FIXTURE_N_POINTS];
  values_with_jobs(gen, 1, NULL, one, NULL);
  values_with_jobs(gen, 2, NULL, two, NULL);
  values_with_jobs(gen, 4, NULL, four, NULL);
  ck_assert_mem_eq(one, two, sizeof one);
  ck_assert_mem_eq(one, four, sizeof one);
  /* and they are the derivatives */
  for (size_t i = 0; i < FIXTURE_N_POINTS; i++) {
    double x = fixture_points[i];
    double want = fixture_generated_derivative(0, x);
    ck_assert_msg(fabs(one[FIXTURE_N_POINTS + i] - want) <= 1e-12 * fabs(want), "df0(%g) = %.17g",
                  x, one[FIXTURE_N_POINTS + i]);
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
  char *gen = fixture_generated_module(60);
  double cold[4 * FIXTURE_N_POINTS], warm[4 * FIXTURE_N_POINTS], warm1[4 * FIXTURE_N_POINTS];
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
  /* --jobs 1 compiles the same partitions, one after the other: its own
   * entry (another directory) lists them too; a small module's is one
   * object */
  char whole[] = "/tmp/tanjit-parallel-whole-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(whole));
  double one[4 * FIXTURE_N_POINTS];
  values_with_jobs(gen, 1, whole, one, &st);
  ck_assert_int_eq(entry_holds_parts(whole), 1);
  char *small = fixture_generated_module(8);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'/*", whole);
  ck_assert_int_eq(system(cmd), 0);
  tanjit_session *s = open_jobs(TANJIT_COMPILE_EAGER, whole, 2);
  fixture_load(s, small);
  double x = 0.5, want_sum = 0;
  for (int i = 0; i < 8; i++)
    want_sum += fixture_generated_derivative(i, x);
  ck_assert_double_eq_tol(fixture_lookup(s, "sum")(x), want_sum, 1e-12);
  ck_assert_double_eq_tol(fixture_lookup(s, "df0")(x), fixture_generated_derivative(0, x), 1e-12);
  ck_assert_double_eq_tol(fixture_lookup(s, "df7")(x), fixture_generated_derivative(7, x), 1e-12);
  double k3 = 1.0 + 3 / 7.0, c3 = 3.0 + 3 / 7.0;
  ck_assert_double_eq_tol(fixture_lookup(s, "f3")(x), (sin(x * x) * k3 + exp(x)) / c3, 1e-12);
  tanjit_session_free(s);
  free(small);
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
  char *gen = fixture_generated_module(60);
  double def[4 * FIXTURE_N_POINTS], one[4 * FIXTURE_N_POINTS];
  values_with_jobs(gen, 0, NULL, def, NULL); /* the number of cores */
  values_with_jobs(gen, 1, NULL, one, NULL);
  ck_assert_mem_eq(def, one, sizeof one);
  free(gen);
}
END_TEST

/* The fast-math module's functions at each point, in one session. */
#define FAST_NAMES 5
static void fast_values(const char *text, int n, fixture_options o, double *out,
                        tanjit_stats *st) {
  char last[16];
  snprintf(last, sizeof last, "df%d", n - 1);
  const char *const names[FAST_NAMES] = {"sum", "at_constants", "df0", last, "f3"};
  fixture_values(o, text, names, FAST_NAMES, out, st);
}

static void assert_same_bits(const double *want, const double *got, const char *mode) {
  for (size_t i = 0; i < FAST_NAMES * FIXTURE_N_POINTS; i++)
    ck_assert_msg(memcmp(&want[i], &got[i], sizeof *got) == 0,
                  "%s: value %zu (point %g): %.17g, eager --jobs 1 %.17g", mode,
                  i / FIXTURE_N_POINTS, fixture_points[i % FIXTURE_N_POINTS], got[i], want[i]);
}

/*
 * Under the default fast derivative arithmetic (reassoc nsz contract),
 * code where regrouping across inlined calls would change the rounding
 * (fast-math derivatives of shared helpers called from fast-math
 * derivatives, derivatives at constant points, a constant table): eager
 * --jobs 1, --jobs 2 and --jobs 3, lazily compiled, stored in and added
 * from the object cache, all give the same bits; in partitions (a large
 * module, on the threads asked for) and whole (a small one).
 */
START_TEST(fast_math_gives_the_same_bits_in_every_mode) {
  char dir[] = "/tmp/tanjit-parallel-fast-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  const tanjit_derivative_fp fast = TANJIT_DERIVATIVE_FP_FAST;
  const tanjit_compile_mode eager = TANJIT_COMPILE_EAGER, lazy = TANJIT_COMPILE_LAZY;
  static const int sizes[] = {80, 12}; /* 164 functions: partitions; 28: whole */
  for (int z = 0; z < 2; z++) {
    int n = sizes[z];
    char *text = fixture_fast_math_module(n);
    double want[FAST_NAMES * FIXTURE_N_POINTS], got[FAST_NAMES * FIXTURE_N_POINTS];
    tanjit_stats st;
    fast_values(text, n, (fixture_options){eager, NULL, 1, fast}, want, &st);
    ck_assert_int_eq(st.partition_threads, n >= 64 ? 1 : 0);
    if (n >= 64)
      ck_assert_uint_ge(st.partitions, 2);
    fast_values(text, n, (fixture_options){eager, NULL, 2, fast}, got, &st);
    assert_same_bits(want, got, "eager --jobs 2");
    /* the partitions were compiled on two threads */
    ck_assert_int_eq(st.partition_threads, n >= 64 ? 2 : 0);
    fast_values(text, n, (fixture_options){eager, NULL, 3, fast}, got, NULL);
    assert_same_bits(want, got, "eager --jobs 3");
    fast_values(text, n, (fixture_options){lazy, NULL, 1, fast}, got, &st);
    assert_same_bits(want, got, "lazy");
    ck_assert_int_eq(st.partitions, 0);
    fast_values(text, n, (fixture_options){lazy, NULL, 2, fast}, got, NULL);
    assert_same_bits(want, got, "lazy --jobs 2");
    fast_values(text, n, (fixture_options){eager, dir, 2, fast}, got, &st);
    assert_same_bits(want, got, "cold cache --jobs 2");
    ck_assert_int_eq(st.cache_misses, 1);
    fast_values(text, n, (fixture_options){eager, dir, 1, fast}, got, &st);
    assert_same_bits(want, got, "warm cache --jobs 1");
    ck_assert_int_eq(st.cache_hits, 1);
    /* and the numbers are the derivatives: f_i = g_i (c_i sq + k_i tail) */
    double a = 0x1.999999999999ap-4, b = 0x1.3333333333333p-2, m = 0x1.1c71c71c71c72p+0;
    for (int k = 2; k <= 3; k++) {
      int i = k == 2 ? 0 : n - 1;
      double c = 1.0 + i / 7.0, ki = 0.1 + i / 3.0, g = 0.3 + i / 11.0;
      for (size_t j = 0; j < FIXTURE_N_POINTS; j++) {
        double x = fixture_points[j];
        double d = g * (c * 2 * a * b * x + ki * (exp(sin(x)) * cos(x) * m + 1));
        ck_assert_msg(fabs(want[k * FIXTURE_N_POINTS + j] - d) <= 1e-12 * fabs(d),
                      "df%d(%g) = %.17g, want %.17g", i, x, want[k * FIXTURE_N_POINTS + j], d);
      }
    }
    free(text);
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
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
  char *gen = fixture_generated_module(24);
  double want;
  {
    tanjit_session *s = open_session(TANJIT_COMPILE_EAGER, NULL);
    fixture_load(s, gen);
    want = fixture_lookup(s, "sum")(0.75);
    tanjit_session_free(s);
  }
  tanjit_session *s = open_session(TANJIT_COMPILE_LAZY, NULL);
  fixture_load(s, gen);
  fn1 sum = fixture_lookup(s, "sum"); /* sum's body only: every df<i> is a stub */
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
  tcase_add_test(tc, fast_math_gives_the_same_bits_in_every_mode);
  tcase_add_test(tc, partitions_are_cached_together);
  tcase_add_test(tc, default_jobs_is_accepted);
  tcase_add_test(tc, first_calls_from_two_threads);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
