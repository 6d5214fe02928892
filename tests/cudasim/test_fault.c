/* test_fault.c: device addresses are not host memory. Reading or writing
 * one from host code must fault (SIGSEGV), as on a GPU; each attempt runs
 * in a forked child with the default SIGSEGV action (sanitizers install
 * their own handler). */
#include "test_cudasim.h"

#include <signal.h>
#include <stdint.h>
#include <unistd.h>

static CUdeviceptr target;

static void read_device_address(void)
{
    signal(SIGSEGV, SIG_DFL);
    volatile const double *p = (volatile const double *)(uintptr_t)target;
    double value = *p;
    (void)value;
}

static void write_device_address(void)
{
    signal(SIGSEGV, SIG_DFL);
    volatile double *p = (volatile double *)(uintptr_t)target;
    *p = 1.0;
}

static void read_freed_device_address(void)
{
    signal(SIGSEGV, SIG_DFL);
    volatile const unsigned char *p = (volatile const unsigned char *)(uintptr_t)target;
    unsigned char value = p[3];
    (void)value;
}

static void expect_segv(void (*body)(void))
{
    int status = run_in_child(body);
    ck_assert_msg(WIFSIGNALED(status), "host access to a device address did not fault (exit %d)",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    ck_assert_int_eq(WTERMSIG(status), SIGSEGV);
}

START_TEST(host_dereference_faults)
{
    double values[4] = {1, 2, 3, 4};
    CK_CU(cuMemAlloc(&target, sizeof values));
    CK_CU(cuMemcpyHtoD(target, values, sizeof values));
    expect_segv(read_device_address);
    expect_segv(write_device_address);
    /* The simulator still reads the bytes through its own mapping. */
    double back[4] = {0};
    CK_CU(cuMemcpyDtoH(back, target, sizeof back));
    ck_assert_double_eq(back[3], 4.0);
    CK_CU(cuMemFree(target));
    expect_segv(read_freed_device_address);
}
END_TEST

START_TEST(runtime_pointer_faults)
{
    void *p = NULL;
    ck_assert_int_eq(cudaMalloc(&p, 64), 0);
    target = (CUdeviceptr)(uintptr_t)p;
    expect_segv(read_device_address);
    ck_assert_int_eq(cudaFree(p), 0);
}
END_TEST

TCase *tcase_fault(void)
{
    TCase *tc = tcase_create("fault");
    tcase_add_checked_fixture(tc, driver_setup, driver_teardown);
    tcase_add_test(tc, host_dereference_faults);
    tcase_add_test(tc, runtime_pointer_faults);
    return tc;
}
