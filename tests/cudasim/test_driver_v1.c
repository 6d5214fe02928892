/* test_driver_v1.c: the old (pre-_v2) entry points, which libcuda exports as
 * separate symbols with 32-bit sizes. Like NVIDIA's header, ours declares
 * them when __CUDA_API_VERSION_INTERNAL is defined. */
#define __CUDA_API_VERSION_INTERNAL 1
#include "test_cudasim.h"

#include <string.h>

START_TEST(v1_symbols_are_distinct_functions)
{
    ck_assert_ptr_ne((void *)cuMemAlloc, (void *)cuMemAlloc_v2);
    ck_assert_ptr_ne((void *)cuMemcpyHtoD, (void *)cuMemcpyHtoD_v2);
    ck_assert_ptr_ne((void *)cuMemsetD8, (void *)cuMemsetD8_v2);
    ck_assert_ptr_ne((void *)cuMemFree, (void *)cuMemFree_v2);
}
END_TEST

START_TEST(v1_round_trip_and_memset)
{
    unsigned int bytes = 40u; /* the old API's size type */
    CUdeviceptr d;
    ck_assert_int_eq(cuMemAlloc(&d, bytes), CUDA_SUCCESS);
    int host[10], out[10];
    for (int i = 0; i < 10; ++i)
        host[i] = -i;
    ck_assert_int_eq(cuMemcpyHtoD(d, host, bytes), CUDA_SUCCESS);
    ck_assert_int_eq(cuMemcpyDtoH(out, d, bytes), CUDA_SUCCESS);
    for (int i = 0; i < 10; ++i)
        ck_assert_int_eq(out[i], -i);

    CUdeviceptr e;
    ck_assert_int_eq(cuMemAlloc_v2(&e, bytes), CUDA_SUCCESS);
    ck_assert_int_eq(cuMemcpyDtoD(e, d, bytes), CUDA_SUCCESS);
    ck_assert_int_eq(cuMemcpyDtoHAsync(out, e, bytes, NULL), CUDA_SUCCESS);
    ck_assert_int_eq(out[9], -9);

    ck_assert_int_eq(cuMemsetD8(d, 0, bytes), CUDA_SUCCESS);
    ck_assert_int_eq(cuMemsetD32(e, 0x01020304u, 10u), CUDA_SUCCESS);
    ck_assert_int_eq(cuMemcpyDtoH(out, d, bytes), CUDA_SUCCESS);
    for (int i = 0; i < 10; ++i)
        ck_assert_int_eq(out[i], 0);
    ck_assert_int_eq(cuMemcpyDtoH(out, e, bytes), CUDA_SUCCESS);
    for (int i = 0; i < 10; ++i)
        ck_assert_int_eq(out[i], 0x01020304);
    ck_assert_int_eq(cuMemsetD8(d, 1, bytes + 1), CUDA_ERROR_INVALID_VALUE);
    /* An allocation made by one variant is freed by the other. */
    ck_assert_int_eq(cuMemFree_v2(d), CUDA_SUCCESS);
    ck_assert_int_eq(cuMemFree(e), CUDA_SUCCESS);
    ck_assert_int_eq(cuMemFree(e), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(v1_contexts_and_streams)
{
    CUcontext ctx, before;
    ck_assert_int_eq(cuCtxGetCurrent(&before), CUDA_SUCCESS);
    ck_assert_int_eq(cuCtxCreate(&ctx, 0, 0), CUDA_SUCCESS);
    CUstream stream;
    ck_assert_int_eq(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
    ck_assert_int_eq(cuStreamDestroy(stream), CUDA_SUCCESS);
    ck_assert_int_eq(cuStreamDestroy(stream), CUDA_ERROR_INVALID_HANDLE);
    ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
    ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_ERROR_INVALID_CONTEXT);
    /* memory calls need a current context: the one destroyed was */
    void *pinned;
    ck_assert_int_eq(cuMemAllocHost(&pinned, 16u), CUDA_ERROR_INVALID_CONTEXT);
    ck_assert_int_eq(cuCtxSetCurrent(before), CUDA_SUCCESS);
    ck_assert_int_eq(cuMemAllocHost(&pinned, 16u), CUDA_SUCCESS);
    ck_assert_int_eq(cuMemFreeHost(pinned), CUDA_SUCCESS);
    unsigned int free_bytes, total_bytes;
    ck_assert_int_eq(cuMemGetInfo(&free_bytes, &total_bytes), CUDA_SUCCESS);
    ck_assert_uint_eq(total_bytes, 1u << 30);
}
END_TEST

TCase *tcase_driver_v1(void)
{
    TCase *tc = tcase_create("driver_v1");
    tcase_add_checked_fixture(tc, driver_setup, driver_teardown);
    tcase_add_test(tc, v1_symbols_are_distinct_functions);
    tcase_add_test(tc, v1_round_trip_and_memset);
    tcase_add_test(tc, v1_contexts_and_streams);
    return tc;
}
