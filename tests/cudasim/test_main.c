/* test_main.c: the test_cudasim suite: the driver and runtime API
 * simulators, linked directly. The not-initialized case runs first so it
 * also holds when CK_FORK=no keeps every test in one process. */
#include "test_cudasim.h"

#include <stdlib.h>
#include <unistd.h>

struct cudasim_counters counters_delta(const struct cudasim_counters *before)
{
    struct cudasim_counters now;
    cudasim_get_counters(&now);
    return (struct cudasim_counters){
        .htod = now.htod - before->htod,
        .dtoh = now.dtoh - before->dtoh,
        .dtod = now.dtod - before->dtod,
        .htoh = now.htoh - before->htoh,
        .memsets = now.memsets - before->memsets,
        .allocs = now.allocs - before->allocs,
        .frees = now.frees - before->frees,
        .live_allocations = now.live_allocations - before->live_allocations,
        .live_bytes = now.live_bytes - before->live_bytes,
        .bytes_htod = now.bytes_htod - before->bytes_htod,
        .bytes_dtoh = now.bytes_dtoh - before->bytes_dtoh,
        .bytes_dtod = now.bytes_dtod - before->bytes_dtod,
        .errors = now.errors - before->errors,
    };
}

static CUcontext test_context;

void driver_setup(void)
{
    ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
    CUdevice device;
    ck_assert_int_eq(cuDeviceGet(&device, 0), CUDA_SUCCESS);
    ck_assert_int_eq(cuCtxCreate(&test_context, 0, device), CUDA_SUCCESS);
}

void driver_teardown(void)
{
    ck_assert_int_eq(cuCtxDestroy(test_context), CUDA_SUCCESS);
}

int run_in_child(void (*body)(void))
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        body();
        _exit(0);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return status;
}

int main(void)
{
    Suite *suite = suite_create("cudasim");
    suite_add_tcase(suite, tcase_not_initialized());
    suite_add_tcase(suite, tcase_driver_transfers());
    suite_add_tcase(suite, tcase_driver_v1());
    suite_add_tcase(suite, tcase_driver_state());
    suite_add_tcase(suite, tcase_driver_errors());
    suite_add_tcase(suite, tcase_runtime());
    suite_add_tcase(suite, tcase_fault());
    suite_add_tcase(suite, tcase_alloc_kinds());
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
