/*
 * One session, eight threads: loads, lookups of shared and private modules,
 * and failed lookups, all at once; and sessions of their own on several
 * threads differentiating at once.  Run under ThreadSanitizer or Helgrind to
 * check for races; here every result is checked by value.
 */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "check_main.h"
#include "tanjit/tanjit.h"

#define THREADS 8
#define ROUNDS 6

static tanjit_session *shared_session;

static void *worker(void *arg) {
  intptr_t id = (intptr_t)arg;
  for (int round = 0; round < ROUNDS; round++) {
    char name[64], ir[512];
    snprintf(name, sizeof name, "mul_%ld_%d", (long)id, round);
    snprintf(ir, sizeof ir,
             "declare i32 @shared_square(i32)\n"
             "define i32 @%s(i32 %%x) {\n"
             "  %%s = call i32 @shared_square(i32 %%x)\n"
             "  %%r = mul i32 %%s, %ld\n  ret i32 %%r\n}\n",
             name, (long)id + 1);
    tanjit_error *err = NULL;
    if (tanjit_load_memory(shared_session, ir, strlen(ir), name, &err)) {
      tanjit_error_free(err);
      return (void *)1;
    }
    int (*f)(int) = (int (*)(int))(uintptr_t)tanjit_lookup(shared_session, name, &err);
    if (!f || f(round + 2) != (round + 2) * (round + 2) * ((int)id + 1)) {
      tanjit_error_free(err);
      return (void *)2;
    }
    /* A failing lookup on one thread must not disturb the others. */
    if (tanjit_lookup(shared_session, "never_defined_anywhere", &err) || !err)
      return (void *)3;
    tanjit_error_free(err);
  }
  return NULL;
}

START_TEST(eight_threads_share_a_session) {
  tanjit_error *err = NULL;
  shared_session = tanjit_session_new(NULL, &err);
  ck_assert_ptr_nonnull(shared_session);
  const char *shared = "define i32 @shared_square(i32 %x) {\n"
                       "  %r = mul i32 %x, %x\n  ret i32 %r\n}\n";
  ck_assert_int_eq(tanjit_load_memory(shared_session, shared, strlen(shared),
                                      "shared.ll", &err), 0);
  pthread_t t[THREADS];
  for (intptr_t i = 0; i < THREADS; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, worker, (void *)i), 0);
  for (int i = 0; i < THREADS; i++) {
    void *result;
    pthread_join(t[i], &result);
    ck_assert_msg(result == NULL, "thread %d failed at step %ld", i, (long)(intptr_t)result);
  }
  tanjit_session_free(shared_session);
}
END_TEST

/* Sessions of their own on several threads, differentiating at the same
 * moment: what the engine caches per process (the activity-analysis
 * switch read from the environment) is read and set by all of them at
 * once.  ThreadSanitizer reports a plain cached int here. */
#define DIFF_THREADS 4
static pthread_barrier_t diff_start;

static void *differentiating_worker(void *arg) {
  intptr_t id = (intptr_t)arg;
  char ir[1024];
  snprintf(ir, sizeof ir,
           "declare double @__enzyme_fwddiff(ptr, ...)\n"
           "define double @cube(double %%x) {\n"
           "  %%s = fmul double %%x, %%x\n  %%c = fmul double %%s, %%x\n"
           "  %%r = fmul double %%c, %ld.0\n  ret double %%r\n}\n"
           "define double @dcube(double %%x) {\n"
           "  %%d = call double (ptr, ...) @__enzyme_fwddiff(ptr @cube, "
           "double %%x, double 1.0)\n  ret double %%d\n}\n",
           (long)id + 1);
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(NULL, &err);
  if (!s)
    return (void *)1;
  pthread_barrier_wait(&diff_start);
  void *result = NULL;
  double (*dcube)(double) = NULL;
  if (tanjit_load_memory(s, ir, strlen(ir), "cube.ll", &err) == 0)
    dcube = (double (*)(double))(uintptr_t)tanjit_lookup(s, "dcube", &err);
  if (!dcube)
    result = (void *)2;
  else if (dcube(2.0) != 12.0 * (double)(id + 1)) /* 3 x^2 (id+1) */
    result = (void *)3;
  tanjit_error_free(err);
  tanjit_session_free(s);
  return result;
}

START_TEST(sessions_on_threads_differentiate_at_once) {
  /* LLVM's own lazily made statics (the pass timers' lock), first used on
   * this thread: LLVM is not built for ThreadSanitizer, which cannot see
   * how it publishes them and would report them instead.  The module has
   * no request, so the engine's own first use stays in the workers. */
  tanjit_error *err = NULL;
  tanjit_session *warm = tanjit_session_new(NULL, &err);
  ck_assert_ptr_nonnull(warm);
  const char *plain = "define i32 @one() {\n  ret i32 1\n}\n";
  ck_assert_int_eq(tanjit_load_memory(warm, plain, strlen(plain), "one.ll", &err), 0);
  ck_assert_ptr_nonnull(tanjit_lookup(warm, "one", &err));
  tanjit_session_free(warm);
  ck_assert_int_eq(pthread_barrier_init(&diff_start, NULL, DIFF_THREADS), 0);
  pthread_t t[DIFF_THREADS];
  for (intptr_t i = 0; i < DIFF_THREADS; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, differentiating_worker,
                                    (void *)i), 0);
  for (int i = 0; i < DIFF_THREADS; i++) {
    void *result;
    pthread_join(t[i], &result);
    ck_assert_msg(result == NULL, "thread %d failed at step %ld", i,
                  (long)(intptr_t)result);
  }
  pthread_barrier_destroy(&diff_start);
}
END_TEST

/* The switch alone, first read by several threads at once, with nothing
 * between them that orders them (in the sessions above LLVM's own locks
 * often do, hiding the race from ThreadSanitizer). */
static pthread_barrier_t switch_start;

static void *read_activity_switch(void *arg) {
  pthread_barrier_wait(&switch_start);
  *(int *)arg = ad_activity_disabled();
  return NULL;
}

START_TEST(activity_switch_read_by_threads_at_once) {
  const char *v = getenv("TANJIT_AD_NO_ACTIVITY");
  int want = v && *v && strcmp(v, "0") != 0;
  int got[DIFF_THREADS];
  pthread_t t[DIFF_THREADS];
  ck_assert_int_eq(pthread_barrier_init(&switch_start, NULL, DIFF_THREADS), 0);
  for (int i = 0; i < DIFF_THREADS; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, read_activity_switch, &got[i]), 0);
  for (int i = 0; i < DIFF_THREADS; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(got[i], want);
  }
  pthread_barrier_destroy(&switch_start);
}
END_TEST

int main(void) {
  Suite *s = suite_create("threads");
  TCase *tc = tcase_create("threads");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, eight_threads_share_a_session);
  tcase_add_test(tc, sessions_on_threads_differentiate_at_once);
  tcase_add_test(tc, activity_switch_read_by_threads_at_once);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
