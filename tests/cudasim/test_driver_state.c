/* test_driver_state.c: devices, contexts and streams: what is valid when,
 * including the per-thread current context and streams dropped with their
 * context. */
#include "test_cudasim.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

START_TEST(one_device)
{
    int count = 0;
    CK_CU(cuDeviceGetCount(&count));
    ck_assert_int_eq(count, 1);
    CUdevice dev = -1;
    CK_CU(cuDeviceGet(&dev, 0));
    ck_assert_int_eq(dev, 0);
    ck_assert_int_eq(cuDeviceGet(&dev, 1), CUDA_ERROR_INVALID_DEVICE);
    ck_assert_int_eq(cuDeviceGet(&dev, -1), CUDA_ERROR_INVALID_DEVICE);
    char name[64];
    CK_CU(cuDeviceGetName(name, sizeof name, 0));
    ck_assert_str_eq(name, "cudasim virtual device");
    char tiny[5];
    CK_CU(cuDeviceGetName(tiny, sizeof tiny, 0));
    ck_assert_str_eq(tiny, "cuda");
    ck_assert_int_eq(cuDeviceGetName(name, sizeof name, 3), CUDA_ERROR_INVALID_DEVICE);
    ck_assert_int_eq(cuDeviceGetName(NULL, 10, 0), CUDA_ERROR_INVALID_VALUE);
    size_t total = 0;
    CK_CU(cuDeviceTotalMem(&total, 0));
    ck_assert_uint_eq(total, (size_t)1 << 30);
    int version = 0;
    CK_CU(cuDriverGetVersion(&version));
    ck_assert_int_ge(version, 12000);
}
END_TEST

START_TEST(current_context_rules)
{
    CUcontext current = NULL;
    CK_CU(cuCtxGetCurrent(&current));
    ck_assert_ptr_nonnull(current); /* the fixture's context */
    CK_CU(cuCtxSynchronize());
    CUdevice dev = -1;
    CK_CU(cuCtxGetDevice(&dev));
    ck_assert_int_eq(dev, 0);

    CK_CU(cuCtxSetCurrent(NULL));
    ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    ck_assert_int_eq(cuCtxGetDevice(&dev), CUDA_ERROR_INVALID_CONTEXT);
    ck_assert_int_eq(cuCtxSetCurrent((CUcontext)0x1234), CUDA_ERROR_INVALID_CONTEXT);
    CK_CU(cuCtxSetCurrent(current));
    CK_CU(cuCtxSynchronize());

    CUcontext second;
    CK_CU(cuCtxCreate(&second, 0, 0));
    ck_assert_ptr_ne(second, current);
    CUcontext now;
    CK_CU(cuCtxGetCurrent(&now));
    ck_assert_ptr_eq(now, second);
    CK_CU(cuCtxDestroy(second));
    CK_CU(cuCtxGetCurrent(&now));
    ck_assert_ptr_null(now);
    ck_assert_int_eq(cuCtxSetCurrent(second), CUDA_ERROR_INVALID_CONTEXT);
    ck_assert_int_eq(cuCtxCreate(&second, 0, 1), CUDA_ERROR_INVALID_DEVICE);
    ck_assert_int_eq(cuCtxCreate(&second, 0x100, 0), CUDA_ERROR_INVALID_VALUE);
    CK_CU(cuCtxSetCurrent(current));
}
END_TEST

START_TEST(primary_context_retain_release)
{
    CUcontext primary, again;
    CK_CU(cuDevicePrimaryCtxRetain(&primary, 0));
    CK_CU(cuDevicePrimaryCtxRetain(&again, 0));
    ck_assert_ptr_eq(primary, again);
    CK_CU(cuCtxSetCurrent(primary));
    CK_CU(cuCtxSynchronize());
    /* The primary context cannot be destroyed, only released. */
    ck_assert_int_eq(cuCtxDestroy(primary), CUDA_ERROR_INVALID_CONTEXT);
    CK_CU(cuDevicePrimaryCtxRelease(0));
    CK_CU(cuCtxSynchronize());
    CK_CU(cuDevicePrimaryCtxRelease(0));
    ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    ck_assert_int_eq(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
    ck_assert_int_eq(cuDevicePrimaryCtxRelease(2), CUDA_ERROR_INVALID_DEVICE);
}
END_TEST

START_TEST(streams_die_with_their_context)
{
    CUcontext other;
    CK_CU(cuCtxCreate(&other, 0, 0));
    CUstream owned;
    CK_CU(cuStreamCreate(&owned, 0));
    CK_CU(cuStreamSynchronize(owned));
    CK_CU(cuCtxDestroy(other));
    ck_assert_int_eq(cuStreamSynchronize(owned), CUDA_ERROR_INVALID_HANDLE);
    ck_assert_int_eq(cuStreamDestroy(owned), CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

static void *other_thread_current(void *out)
{
    /* A new thread starts with no current context. */
    *(CUresult *)out = cuCtxSynchronize();
    return NULL;
}

START_TEST(current_context_is_per_thread)
{
    CUresult seen = CUDA_SUCCESS;
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, other_thread_current, &seen), 0);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    ck_assert_int_eq(seen, CUDA_ERROR_INVALID_CONTEXT);
    CK_CU(cuCtxSynchronize());
}
END_TEST

enum { COPIES_PER_THREAD = 200 };

struct hammer {
    CUdeviceptr shared;
    CUcontext context; /* memory calls need one current in each thread */
};

static void *hammer_copies(void *arg)
{
    const struct hammer *h = arg;
    CUdeviceptr d = h->shared;
    long failures = cuCtxSetCurrent(h->context) != CUDA_SUCCESS;
    for (int i = 0; i < COPIES_PER_THREAD; ++i) {
        CUdeviceptr mine;
        unsigned char buf[128];
        memset(buf, i & 0xff, sizeof buf);
        failures += cuMemAlloc(&mine, sizeof buf) != CUDA_SUCCESS;
        failures += cuMemcpyHtoD(mine, buf, sizeof buf) != CUDA_SUCCESS;
        failures += cuMemcpyDtoD(d, mine, sizeof buf) != CUDA_SUCCESS;
        failures += cuMemFree(mine) != CUDA_SUCCESS;
    }
    return (void *)failures;
}

START_TEST(threads_share_state_safely)
{
    CUdeviceptr shared;
    CK_CU(cuMemAlloc(&shared, 128));
    struct hammer h = {shared, NULL};
    CK_CU(cuCtxGetCurrent(&h.context));
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    pthread_t threads[4];
    for (int i = 0; i < 4; ++i)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, hammer_copies, &h), 0);
    for (int i = 0; i < 4; ++i) {
        void *failures;
        ck_assert_int_eq(pthread_join(threads[i], &failures), 0);
        ck_assert_int_eq((long)failures, 0);
    }
    struct cudasim_counters delta = counters_delta(&before);
    ck_assert_uint_eq(delta.allocs, 4 * COPIES_PER_THREAD);
    ck_assert_uint_eq(delta.frees, 4 * COPIES_PER_THREAD);
    ck_assert_uint_eq(delta.htod, 4 * COPIES_PER_THREAD);
    ck_assert_uint_eq(delta.dtod, 4 * COPIES_PER_THREAD);
    ck_assert_uint_eq(delta.live_allocations, 0);
    CK_CU(cuMemFree(shared));
}
END_TEST

/* Deferred (CUDASIM_DEFER_ASYNC=1, here cudasim_set_defer_async): async
 * work waits on its stream until something waits for it. */
START_TEST(deferred_async_work_waits_for_synchronization)
{
    cudasim_set_defer_async(1);
    double in[4] = {1, 2, 3, 4}, out[4] = {0};
    CUdeviceptr d;
    CUstream s;
    CK_CU(cuMemAlloc(&d, sizeof in));
    CK_CU(cuStreamCreate(&s, 0));
    CK_CU(cuMemcpyHtoDAsync(d, in, sizeof in, s));
    CK_CU(cuMemcpyDtoHAsync(out, d, sizeof out, s));
    ck_assert(out[3] == 0); /* nothing ran yet */
    CK_CU(cuStreamSynchronize(s));
    ck_assert(out[0] == 1 && out[3] == 4);
    /* a memset on the stream, then a synchronous copy: it waits for it */
    CK_CU(cuMemsetD8Async(d, 0, sizeof in, s));
    ck_assert(out[3] == 4);
    CK_CU(cuMemcpyDtoH(out, d, sizeof out));
    ck_assert(out[0] == 0 && out[3] == 0);
    /* destroying a stream waits for its work */
    CK_CU(cuMemcpyHtoDAsync(d, in, sizeof in, s));
    CK_CU(cuMemcpyDtoHAsync(out, d, sizeof out, s));
    CK_CU(cuStreamDestroy(s));
    ck_assert(out[2] == 3);
    CK_CU(cuMemFree(d));
    cudasim_set_defer_async(0);
}
END_TEST

TCase *tcase_driver_state(void)
{
    TCase *tc = tcase_create("driver_state");
    tcase_add_checked_fixture(tc, driver_setup, driver_teardown);
    tcase_add_test(tc, one_device);
    tcase_add_test(tc, current_context_rules);
    tcase_add_test(tc, primary_context_retain_release);
    tcase_add_test(tc, streams_die_with_their_context);
    tcase_add_test(tc, current_context_is_per_thread);
    tcase_add_test(tc, threads_share_state_safely);
    tcase_add_test(tc, deferred_async_work_waits_for_synchronization);
    return tc;
}
