/* The one main() every suite in tests/unit shares: run, report, exit. */
#ifndef TANJIT_TESTS_CHECK_MAIN_H
#define TANJIT_TESTS_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/* Runs `suite` (taking it) with Check's normal output; EXIT_SUCCESS only if
 * every test passed. */
static inline int run_suite(Suite *suite) {
  SRunner *sr = srunner_create(suite);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
