/*
 * The embedding API's contract: versions, the growable options struct,
 * host symbols, unloading, primal-and-tangent requests and error locations.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "tanjit/tanjit.h"

/* The header's macros and the library agree (tests link the library built
 * from this header), and LLVM's run-time version is a dotted triple. */
START_TEST(versions_agree) {
  char expected[32];
  snprintf(expected, sizeof expected, "%d.%d.%d", TANJIT_VERSION_MAJOR,
           TANJIT_VERSION_MINOR, TANJIT_VERSION_PATCH);
  ck_assert_str_eq(expected, TANJIT_VERSION_STRING);
  ck_assert_str_eq(tanjit_version(), TANJIT_VERSION_STRING);
  unsigned major, minor, patch;
  ck_assert_int_eq(sscanf(tanjit_llvm_version(), "%u.%u.%u", &major, &minor, &patch), 3);
  ck_assert_uint_ge(major, 19);
  ck_assert_uint_le(major, 22);
}
END_TEST

/* A caller built against an older, shorter tanjit_options: init writes only
 * its bytes, and the session takes defaults for the rest. */
typedef struct old_options {
  size_t struct_size;
  int opt_level;
} old_options;

START_TEST(shorter_options_get_defaults) {
  unsigned char buf[sizeof(tanjit_options) + 16];
  memset(buf, 0xAB, sizeof buf);
  old_options *old = (old_options *)buf;
  tanjit_options_init_sized((tanjit_options *)old, sizeof *old);
  ck_assert_uint_eq(old->struct_size, sizeof *old);
  ck_assert_int_eq(old->opt_level, 2);
  for (size_t i = sizeof *old; i < sizeof buf; i++)
    ck_assert_uint_eq(buf[i], 0xAB); /* nothing written past the caller's */
  old->opt_level = 0;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new((tanjit_options *)old, &err);
  ck_assert_msg(s, "%s", tanjit_error_message(err));
  tanjit_session_free(s);
}
END_TEST

START_TEST(uninitialized_or_unknown_options_are_refused) {
  tanjit_options o;
  memset(&o, 0, sizeof o);
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_session_new(&o, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(tanjit_error_message(err),
                   "tanjit_options.struct_size is 0: fill the options with "
                   "tanjit_options_init first");
  tanjit_error_free(err);
  err = NULL;

  /* A newer caller that set a field this library does not have. */
  struct {
    tanjit_options known;
    int future_field;
  } newer;
  memset(&newer, 0, sizeof newer);
  tanjit_options_init_sized(&newer.known, sizeof newer);
  ck_assert_uint_eq(newer.known.struct_size, sizeof newer);
  tanjit_session *s = tanjit_session_new(&newer.known, &err);
  ck_assert_msg(s, "%s", tanjit_error_message(err)); /* zero: fine */
  tanjit_session_free(s);
  newer.future_field = 1;
  ck_assert_ptr_null(tanjit_session_new(&newer.known, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "does not know"));
  tanjit_error_free(err);
}
END_TEST

int main(void) {
  Suite *s = suite_create("api");
  TCase *tc = tcase_create("api");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, versions_agree);
  tcase_add_test(tc, shorter_options_get_defaults);
  tcase_add_test(tc, uninitialized_or_unknown_options_are_refused);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
