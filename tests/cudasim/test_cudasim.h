/* test_cudasim.h: the pieces of the test_cudasim executable (one TCase
 * builder per file) and helpers they share. */
#ifndef TEST_CUDASIM_H
#define TEST_CUDASIM_H

#include <check.h>
#include <sys/wait.h>

#include "cuda.h"
#include "cuda_runtime_api.h"
#include "cudasim.h"

/* Asserts a driver call succeeded, naming the call on failure. */
#define CK_CU(call) ck_assert_msg((call) == CUDA_SUCCESS, "%s failed", #call)

/* Counter difference after - before, per field. */
struct cudasim_counters counters_delta(const struct cudasim_counters *before);

/* cuInit + a fresh context, for tests that use the driver API. */
void driver_setup(void);
void driver_teardown(void);

/* Runs body in a forked child and returns the wait status; body reports by
 * its exit code (0: all checks held) or by dying from a signal. */
int run_in_child(void (*body)(void));

TCase *tcase_not_initialized(void);
TCase *tcase_driver_transfers(void);
TCase *tcase_driver_v1(void);
TCase *tcase_driver_state(void);
TCase *tcase_driver_errors(void);
TCase *tcase_runtime(void);
TCase *tcase_fault(void);
TCase *tcase_alloc_kinds(void);

#endif /* TEST_CUDASIM_H */
