/* test_driver_errors.c: every misuse the driver simulator must answer with
 * NVIDIA's error code rather than a crash: use before cuInit, unknown and
 * freed device addresses, copies past an allocation's end, double and
 * interior frees, bad streams, device addresses passed as host memory.
 * Each case also checks the error counter moved by exactly one. */
#include "test_cudasim.h"

#include <stdint.h>
#include <unistd.h>

/* Asserts that call returns expected and counts exactly one error. */
#define CK_FAILS(call, expected)                                                        \
    do {                                                                                \
        struct cudasim_counters before_;                                                \
        cudasim_get_counters(&before_);                                                 \
        CUresult got_ = (call);                                                         \
        ck_assert_msg(got_ == (expected), "%s returned %d, want %d", #call, (int)got_, \
                      (int)(expected));                                                 \
        ck_assert_uint_eq(counters_delta(&before_).errors, 1);                          \
    } while (0)

/* Exit codes of the not-initialized child: 0, or the line that failed. */
#define CHILD_EXPECT(call, expected) \
    do {                             \
        if ((call) != (expected))    \
            _exit(__LINE__ % 250 + 1); \
    } while (0)

static void calls_before_cuinit(void)
{
    CUdeviceptr d = 0;
    unsigned char byte = 0;
    CUstream stream;
    CUcontext ctx;
    CUdevice dev;
    int count;
    void *host;
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    /* Queries that need no initialization. */
    const char *text = NULL;
    CHILD_EXPECT(cuGetErrorName(CUDA_ERROR_NOT_INITIALIZED, &text), CUDA_SUCCESS);
    int version = 0;
    CHILD_EXPECT(cuDriverGetVersion(&version), CUDA_SUCCESS);
    CHILD_EXPECT(cudasim_is_device_pointer(0x1000), 0);
    /* Everything else. */
    CHILD_EXPECT(cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuCtxCreate(&ctx, 0, 0), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuCtxSynchronize(), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuStreamCreate(&stream, 0), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuMemAlloc(&d, 16), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuMemAllocHost(&host, 16), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuMemFree(d), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuMemcpyHtoD(d, &byte, 1), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuMemcpyDtoH(&byte, d, 1), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuMemcpy(d, d, 1), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuMemsetD8(d, 0, 1), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(counters_delta(&before).errors, 13ull);
    CHILD_EXPECT(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    CHILD_EXPECT(cuMemAlloc(&d, 16), CUDA_ERROR_NOT_INITIALIZED);
    CHILD_EXPECT(cuInit(0), CUDA_SUCCESS);
    /* then a current context, as on a GPU */
    CHILD_EXPECT(cuMemAlloc(&d, 16), CUDA_ERROR_INVALID_CONTEXT);
    CUcontext primary;
    CHILD_EXPECT(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
    CHILD_EXPECT(cuCtxSetCurrent(primary), CUDA_SUCCESS);
    CHILD_EXPECT(cuMemAlloc(&d, 16), CUDA_SUCCESS);
    CHILD_EXPECT(cuMemFree(d), CUDA_SUCCESS);
}

START_TEST(driver_requires_cuinit)
{
    /* A fresh child: the test runner may have initialized this process. */
    int status = run_in_child(calls_before_cuinit);
    ck_assert_msg(WIFEXITED(status), "child died from signal %d", WTERMSIG(status));
    ck_assert_msg(WEXITSTATUS(status) == 0, "check at line ~%d failed", WEXITSTATUS(status) - 1);
}
END_TEST

TCase *tcase_not_initialized(void)
{
    TCase *tc = tcase_create("not_initialized");
    tcase_add_test(tc, driver_requires_cuinit);
    return tc;
}

START_TEST(numeric_codes_match_nvidia)
{
    ck_assert_int_eq(CUDA_SUCCESS, 0);
    ck_assert_int_eq(CUDA_ERROR_INVALID_VALUE, 1);
    ck_assert_int_eq(CUDA_ERROR_OUT_OF_MEMORY, 2);
    ck_assert_int_eq(CUDA_ERROR_NOT_INITIALIZED, 3);
    ck_assert_int_eq(CUDA_ERROR_DEINITIALIZED, 4);
    ck_assert_int_eq(CUDA_ERROR_NO_DEVICE, 100);
    ck_assert_int_eq(CUDA_ERROR_INVALID_DEVICE, 101);
    ck_assert_int_eq(CUDA_ERROR_INVALID_CONTEXT, 201);
    ck_assert_int_eq(CUDA_ERROR_INVALID_HANDLE, 400);
    ck_assert_int_eq(CUDA_ERROR_NOT_FOUND, 500);
    ck_assert_int_eq(CUDA_ERROR_ILLEGAL_ADDRESS, 700);
    ck_assert_int_eq(CUDA_ERROR_UNKNOWN, 999);
    ck_assert_uint_eq(sizeof(CUdeviceptr), 8);
}
END_TEST

START_TEST(error_names_and_strings)
{
    const char *text = NULL;
    CK_CU(cuGetErrorName(CUDA_ERROR_INVALID_HANDLE, &text));
    ck_assert_str_eq(text, "CUDA_ERROR_INVALID_HANDLE");
    CK_CU(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &text));
    ck_assert_str_eq(text, "out of memory");
    CK_CU(cuGetErrorName(CUDA_SUCCESS, &text));
    ck_assert_str_eq(text, "CUDA_SUCCESS");
    text = "untouched";
    CK_FAILS(cuGetErrorString((CUresult)12345, &text), CUDA_ERROR_INVALID_VALUE);
    ck_assert_ptr_null(text);
    CK_FAILS(cuGetErrorName((CUresult)-1, &text), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuGetErrorName(CUDA_SUCCESS, NULL), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(unknown_device_addresses)
{
    unsigned char host[64] = {0};
    CK_FAILS(cuMemcpyHtoD((CUdeviceptr)0x1234, host, 8), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemcpyDtoH(host, (CUdeviceptr)0, 8), CUDA_ERROR_INVALID_VALUE);
    /* A host pointer where a device address belongs. */
    CK_FAILS(cuMemcpyDtoH(host, (CUdeviceptr)(uintptr_t)(host + 32), 8), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemsetD8((CUdeviceptr)(uintptr_t)host, 0, 8), CUDA_ERROR_INVALID_VALUE);
    /* Inside the device range, but not allocated (freed). */
    CUdeviceptr d;
    CK_CU(cuMemAlloc(&d, 64));
    CK_CU(cuMemFree(d));
    CK_FAILS(cuMemcpyHtoD(d, host, 8), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemcpyDtoD(d, d, 8), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemcpy(d, (CUdeviceptr)(uintptr_t)host, 8), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemsetD32(d, 0, 2), CUDA_ERROR_INVALID_VALUE);
    /* Between two allocations (in the alignment padding). */
    CUdeviceptr a, b;
    CK_CU(cuMemAlloc(&a, 10));
    CK_CU(cuMemAlloc(&b, 10));
    CK_FAILS(cuMemcpyHtoD(a + 10, host, 1), CUDA_ERROR_INVALID_VALUE);
    CK_CU(cuMemFree(a));
    CK_CU(cuMemFree(b));
}
END_TEST

START_TEST(copies_past_the_end)
{
    unsigned char host[256] = {0};
    CUdeviceptr d, e;
    CK_CU(cuMemAlloc(&d, 100));
    CK_CU(cuMemAlloc(&e, 200));
    CK_FAILS(cuMemcpyHtoD(d, host, 101), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemcpyHtoD(d + 50, host, 51), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemcpyDtoH(host, d + 99, 2), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemcpyDtoD(e, d, 150), CUDA_ERROR_INVALID_VALUE); /* source too short */
    CK_FAILS(cuMemcpyDtoD(d, e, 150), CUDA_ERROR_INVALID_VALUE); /* destination too short */
    CK_FAILS(cuMemcpyHtoDAsync(d, host, 200, NULL), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemsetD8(d, 1, 101), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemsetD32(d, 1, 26), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemsetD32(d + 2, 1, 1), CUDA_ERROR_INVALID_VALUE); /* misaligned */
    CK_FAILS(cuMemsetD16(d + 1, 1, 1), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemcpyHtoD(d, host, SIZE_MAX), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemsetD32(d, 1, SIZE_MAX / 2), CUDA_ERROR_INVALID_VALUE);
    /* Exactly to the end is fine. */
    CK_CU(cuMemcpyHtoD(d + 50, host, 50));
    CK_CU(cuMemsetD32(d + 96, 1, 1));
    CK_CU(cuMemFree(d));
    CK_CU(cuMemFree(e));
}
END_TEST

START_TEST(bad_frees)
{
    CUdeviceptr d;
    CK_CU(cuMemAlloc(&d, 512));
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    CK_FAILS(cuMemFree(d + 8), CUDA_ERROR_INVALID_VALUE); /* interior */
    CK_FAILS(cuMemFree(0), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemFree(0x1234), CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cudasim_is_device_pointer(d), 1); /* still alive */
    ck_assert_uint_eq(counters_delta(&before).live_allocations, 0);
    CK_CU(cuMemFree(d));
    CK_FAILS(cuMemFree(d), CUDA_ERROR_INVALID_VALUE); /* double */
    CK_FAILS(cuMemFreeAsync(d, NULL), CUDA_ERROR_INVALID_VALUE);
    struct cudasim_counters delta = counters_delta(&before);
    ck_assert_uint_eq(delta.frees, 1);
    ck_assert_uint_eq(delta.errors, 5);

    void *pinned;
    CK_CU(cuMemAllocHost(&pinned, 64));
    CK_FAILS(cuMemFreeHost((char *)pinned + 1), CUDA_ERROR_INVALID_VALUE);
    CK_CU(cuMemFreeHost(pinned));
    CK_FAILS(cuMemFreeHost(pinned), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemFreeHost(NULL), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(bad_allocations)
{
    CUdeviceptr d;
    CK_FAILS(cuMemAlloc(&d, 0), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAlloc(&d, SIZE_MAX), CUDA_ERROR_OUT_OF_MEMORY);
    void *host;
    CK_FAILS(cuMemAllocHost(&host, 0), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocHost(NULL, 8), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(bad_host_operands)
{
    CUdeviceptr d;
    CK_CU(cuMemAlloc(&d, 64));
    CK_FAILS(cuMemcpyHtoD(d, NULL, 8), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemcpyDtoH(NULL, d, 8), CUDA_ERROR_INVALID_VALUE);
    /* A device address passed as host memory: refused, not dereferenced. */
    CK_FAILS(cuMemcpyHtoD(d, (const void *)(uintptr_t)d, 8), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemcpyDtoH((void *)(uintptr_t)d, d, 8), CUDA_ERROR_INVALID_VALUE);
    CK_CU(cuMemFree(d));
}
END_TEST

START_TEST(zero_length_copies_succeed)
{
    unsigned char host[4];
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    CK_CU(cuMemcpyHtoD(0x1234, NULL, 0));
    CK_CU(cuMemcpyDtoH(host, 0, 0));
    CK_CU(cuMemcpyDtoD(0, 0, 0));
    CK_CU(cuMemcpy(0, 0, 0));
    CK_CU(cuMemsetD8(0, 0, 0));
    ck_assert_uint_eq(counters_delta(&before).errors, 0);
    /* A bad stream is still an error with nothing to copy. */
    CK_FAILS(cuMemcpyHtoDAsync(0, host, 0, (CUstream)0x77777), CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

START_TEST(bad_streams)
{
    CUstream bogus = (CUstream)0xdead0;
    unsigned char host[8] = {0};
    CUdeviceptr d;
    CK_CU(cuMemAlloc(&d, 8));
    CK_FAILS(cuStreamSynchronize(bogus), CUDA_ERROR_INVALID_HANDLE);
    CK_FAILS(cuStreamQuery(bogus), CUDA_ERROR_INVALID_HANDLE);
    CK_FAILS(cuStreamDestroy(bogus), CUDA_ERROR_INVALID_HANDLE);
    CK_FAILS(cuStreamDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
    CK_FAILS(cuMemcpyHtoDAsync(d, host, 8, bogus), CUDA_ERROR_INVALID_HANDLE);
    CK_FAILS(cuMemcpyDtoHAsync(host, d, 8, bogus), CUDA_ERROR_INVALID_HANDLE);
    CK_FAILS(cuMemcpyDtoDAsync(d, d, 8, bogus), CUDA_ERROR_INVALID_HANDLE);
    CK_FAILS(cuMemcpyAsync(d, d, 8, bogus), CUDA_ERROR_INVALID_HANDLE);
    CK_FAILS(cuMemsetD8Async(d, 0, 8, bogus), CUDA_ERROR_INVALID_HANDLE);
    CUdeviceptr e;
    CK_FAILS(cuMemAllocAsync(&e, 8, bogus), CUDA_ERROR_INVALID_HANDLE);
    CK_FAILS(cuMemFreeAsync(d, bogus), CUDA_ERROR_INVALID_HANDLE);
    CK_FAILS(cuStreamCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    CUstream s;
    CK_FAILS(cuStreamCreate(&s, 0x80), CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cudasim_is_device_pointer(d), 1); /* the failed free left it */
    CK_CU(cuMemFree(d));
}
END_TEST

TCase *tcase_driver_errors(void)
{
    TCase *tc = tcase_create("driver_errors");
    tcase_add_checked_fixture(tc, driver_setup, driver_teardown);
    tcase_add_test(tc, numeric_codes_match_nvidia);
    tcase_add_test(tc, error_names_and_strings);
    tcase_add_test(tc, unknown_device_addresses);
    tcase_add_test(tc, copies_past_the_end);
    tcase_add_test(tc, bad_frees);
    tcase_add_test(tc, bad_allocations);
    tcase_add_test(tc, bad_host_operands);
    tcase_add_test(tc, zero_length_copies_succeed);
    tcase_add_test(tc, bad_streams);
    return tc;
}
