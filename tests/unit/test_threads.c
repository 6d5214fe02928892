/*
 * One session, eight threads: loads, lookups of shared and private modules,
 * and failed lookups, all at once.  Run under ThreadSanitizer or Helgrind to
 * check for races; here every result is checked by value.
 */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void) {
  Suite *s = suite_create("threads");
  TCase *tc = tcase_create("threads");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, eight_threads_share_a_session);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
