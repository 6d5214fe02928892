/* test_runtime.c: the runtime API (libcudart.so.12): implicit
 * initialization, copies of every cudaMemcpyKind checked against host data,
 * kind/address contradictions, streams, memset, the last-error protocol,
 * and one shared state with the driver API. No fixture: the runtime must
 * initialize itself. */
#include "test_cudasim.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define CK_RT(call) ck_assert_msg((call) == cudaSuccess, "%s failed", #call)

START_TEST(numeric_codes_match_nvidia)
{
    ck_assert_int_eq(cudaErrorInvalidValue, 1);
    ck_assert_int_eq(cudaErrorMemoryAllocation, 2);
    ck_assert_int_eq(cudaErrorInitializationError, 3);
    ck_assert_int_eq(cudaErrorInvalidDevicePointer, 17);
    ck_assert_int_eq(cudaErrorInvalidMemcpyDirection, 21);
    ck_assert_int_eq(cudaErrorInvalidDevice, 101);
    ck_assert_int_eq(cudaErrorInvalidResourceHandle, 400);
    ck_assert_int_eq(cudaMemcpyHostToHost, 0);
    ck_assert_int_eq(cudaMemcpyHostToDevice, 1);
    ck_assert_int_eq(cudaMemcpyDeviceToHost, 2);
    ck_assert_int_eq(cudaMemcpyDeviceToDevice, 3);
    ck_assert_int_eq(cudaMemcpyDefault, 4);
}
END_TEST

START_TEST(implicit_init_and_device)
{
    int count = 0, device = -1;
    CK_RT(cudaGetDeviceCount(&count));
    ck_assert_int_eq(count, 1);
    CK_RT(cudaSetDevice(0));
    CK_RT(cudaGetDevice(&device));
    ck_assert_int_eq(device, 0);
    CK_RT(cudaDeviceSynchronize());
    ck_assert_int_eq(cudaSetDevice(1), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
    /* The runtime made the primary context current, for the driver too. */
    CK_CU(cuCtxSynchronize());
}
END_TEST

START_TEST(explicit_kinds_round_trip)
{
    enum { N = 256 };
    double host[N], back[N];
    for (int i = 0; i < N; ++i)
        host[i] = i * 0.125 - 3.0;
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    void *a = NULL, *b = NULL;
    CK_RT(cudaMalloc(&a, sizeof host));
    CK_RT(cudaMalloc(&b, sizeof host));
    ck_assert_int_eq(cudasim_is_device_pointer((uintptr_t)a), 1);
    CK_RT(cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice));
    CK_RT(cudaMemcpy(b, a, sizeof host, cudaMemcpyDeviceToDevice));
    CK_RT(cudaMemcpy(back, b, sizeof back, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i)
        ck_assert_double_eq(back[i], i * 0.125 - 3.0);
    double copy[N];
    CK_RT(cudaMemcpy(copy, back, sizeof copy, cudaMemcpyHostToHost));
    ck_assert_double_eq(copy[N - 1], (N - 1) * 0.125 - 3.0);
    CK_RT(cudaFree(a));
    CK_RT(cudaFree(b));
    struct cudasim_counters delta = counters_delta(&before);
    ck_assert_uint_eq(delta.htod, 1);
    ck_assert_uint_eq(delta.dtod, 1);
    ck_assert_uint_eq(delta.dtoh, 1);
    ck_assert_uint_eq(delta.htoh, 1);
    ck_assert_uint_eq(delta.bytes_htod, sizeof host);
    ck_assert_uint_eq(delta.allocs, 2);
    ck_assert_uint_eq(delta.frees, 2);
    ck_assert_uint_eq(delta.errors, 0);
}
END_TEST

START_TEST(default_kind_infers_direction)
{
    float host[40], back[40];
    for (int i = 0; i < 40; ++i)
        host[i] = (float)i * -2.0f;
    void *a, *b;
    CK_RT(cudaMalloc(&a, sizeof host));
    CK_RT(cudaMalloc(&b, sizeof host));
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    CK_RT(cudaMemcpy(a, host, sizeof host, cudaMemcpyDefault));
    CK_RT(cudaMemcpy((char *)b + 20 * sizeof(float), a, 20 * sizeof(float), cudaMemcpyDefault));
    CK_RT(cudaMemcpy(b, (char *)a + 20 * sizeof(float), 20 * sizeof(float), cudaMemcpyDefault));
    CK_RT(cudaMemcpy(back, b, sizeof back, cudaMemcpyDefault));
    for (int i = 0; i < 40; ++i) /* b holds the halves of host swapped */
        ck_assert_float_eq(back[i], (float)((i + 20) % 40) * -2.0f);
    struct cudasim_counters delta = counters_delta(&before);
    ck_assert_uint_eq(delta.htod, 1);
    ck_assert_uint_eq(delta.dtod, 2);
    ck_assert_uint_eq(delta.dtoh, 1);
    ck_assert_uint_eq(delta.bytes_dtod, sizeof host);
    CK_RT(cudaFree(a));
    CK_RT(cudaFree(b));
}
END_TEST

START_TEST(contradicting_kinds_are_refused)
{
    double host[4] = {1, 2, 3, 4}, other[4] = {0};
    void *d;
    CK_RT(cudaMalloc(&d, sizeof host));
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    ck_assert_int_eq(cudaMemcpy(host, d, sizeof host, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemcpy(d, host, sizeof host, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemcpy(other, host, sizeof host, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemcpy(d, d, sizeof host, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemcpy(d, host, sizeof host, (enum cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
    ck_assert_int_eq(cudaMemcpyAsync(d, host, sizeof host, (enum cudaMemcpyKind)-1, NULL),
                     cudaErrorInvalidMemcpyDirection);
    ck_assert_int_eq(cudaPeekAtLastError(), cudaErrorInvalidMemcpyDirection);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
    struct cudasim_counters delta = counters_delta(&before);
    ck_assert_uint_eq(delta.errors, 6);
    ck_assert_uint_eq(delta.htod + delta.dtoh + delta.dtod + delta.htoh, 0);
    /* Past the end: found by the driver, reported with the runtime's code. */
    ck_assert_int_eq(cudaMemcpy(d, host, sizeof host + 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    ck_assert_uint_eq(counters_delta(&before).errors, 7);
    CK_RT(cudaMemcpy(d, host, 0, cudaMemcpyDeviceToHost)); /* nothing to copy */
    CK_RT(cudaFree(d));
}
END_TEST

START_TEST(async_on_a_stream)
{
    cudaStream_t stream;
    CK_RT(cudaStreamCreate(&stream));
    int host[100], back[100];
    for (int i = 0; i < 100; ++i)
        host[i] = 7 * i;
    void *d = NULL;
    CK_RT(cudaMallocAsync(&d, sizeof host, stream));
    CK_RT(cudaMemsetAsync(d, 0, sizeof host, stream));
    CK_RT(cudaMemcpyAsync(d, host, 50 * sizeof(int), cudaMemcpyHostToDevice, stream));
    CK_RT(cudaMemcpyAsync(back, d, sizeof back, cudaMemcpyDefault, stream));
    CK_RT(cudaStreamSynchronize(stream));
    for (int i = 0; i < 100; ++i)
        ck_assert_int_eq(back[i], i < 50 ? 7 * i : 0);
    CK_RT(cudaFreeAsync(d, stream));
    CK_RT(cudaFreeAsync(NULL, stream));
    CK_RT(cudaStreamDestroy(stream));
    ck_assert_int_eq(cudaStreamSynchronize(stream), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaMemcpyAsync(back, host, 4, cudaMemcpyHostToHost, stream), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaStreamDestroy(stream), cudaErrorInvalidResourceHandle);
    CK_RT(cudaStreamSynchronize(cudaStreamLegacy));
    CK_RT(cudaStreamSynchronize(NULL));
}
END_TEST

START_TEST(memset_and_host_memory)
{
    unsigned char *pinned = NULL;
    CK_RT(cudaMallocHost((void **)&pinned, 300));
    void *d;
    CK_RT(cudaMalloc(&d, 300));
    CK_RT(cudaMemset(d, 0x3c, 300));
    CK_RT(cudaMemset((char *)d + 100, 0x1ff, 10)); /* value converts to unsigned char */
    CK_RT(cudaMemcpy(pinned, d, 300, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 300; ++i)
        ck_assert_uint_eq(pinned[i], (i >= 100 && i < 110) ? 0xff : 0x3c);
    ck_assert_int_eq(cudaMemset(d, 0, 301), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemset(pinned, 0, 1), cudaErrorInvalidValue);
    CK_RT(cudaFreeHost(pinned));
    ck_assert_int_eq(cudaFreeHost(pinned), cudaErrorInvalidValue);
    CK_RT(cudaFreeHost(NULL));
    CK_RT(cudaFree(d));
    (void)cudaGetLastError();
}
END_TEST

START_TEST(runtime_free_errors)
{
    void *d, *zero = (void *)0x1;
    CK_RT(cudaMalloc(&zero, 0));
    ck_assert_ptr_null(zero);
    CK_RT(cudaFree(NULL));
    CK_RT(cudaMalloc(&d, 32));
    ck_assert_int_eq(cudaFree((char *)d + 4), cudaErrorInvalidValue);
    CK_RT(cudaFree(d));
    ck_assert_int_eq(cudaFree(d), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMalloc(NULL, 8), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMalloc(&d, (size_t)2 << 30), cudaErrorMemoryAllocation);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorMemoryAllocation);
}
END_TEST

START_TEST(error_names_and_strings)
{
    ck_assert_str_eq(cudaGetErrorName(cudaErrorInvalidMemcpyDirection), "cudaErrorInvalidMemcpyDirection");
    ck_assert_str_eq(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory");
    ck_assert_str_eq(cudaGetErrorString(cudaSuccess), "no error");
    ck_assert_str_eq(cudaGetErrorString((cudaError_t)4242), "unrecognized error code");
}
END_TEST

START_TEST(shares_state_with_the_driver)
{
    CK_CU(cuInit(0)); /* harmless after the runtime's own */
    void *d;
    CK_RT(cudaMalloc(&d, 16));
    double in[2] = {2.5, -1.0}, out[2] = {0, 0};
    CK_CU(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)d, in, sizeof in));
    CK_RT(cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost));
    ck_assert_double_eq(out[0], 2.5);
    ck_assert_double_eq(out[1], -1.0);
    CK_CU(cuMemFree((CUdeviceptr)(uintptr_t)d));
    ck_assert_int_eq(cudaFree(d), cudaErrorInvalidValue);
}
END_TEST

START_TEST(survives_driver_releasing_the_primary_context)
{
    CK_RT(cudaDeviceSynchronize());
    while (cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS)
        ; /* drop every retain, the runtime's included */
    ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    CK_RT(cudaDeviceSynchronize());
    void *d;
    CK_RT(cudaMalloc(&d, 8));
    CK_RT(cudaFree(d));
    CK_CU(cuCtxSynchronize());
}
END_TEST

static void *runtime_on_new_thread(void *out)
{
    cudaError_t *results = out;
    results[0] = cudaDeviceSynchronize();
    void *d = NULL;
    results[1] = cudaMalloc(&d, 16);
    results[2] = cudaFree(d);
    return NULL;
}

START_TEST(new_threads_get_the_primary_context)
{
    cudaError_t results[3] = {cudaErrorUnknown, cudaErrorUnknown, cudaErrorUnknown};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, runtime_on_new_thread, results), 0);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    for (int i = 0; i < 3; ++i)
        ck_assert_int_eq(results[i], cudaSuccess);
}
END_TEST

TCase *tcase_runtime(void)
{
    TCase *tc = tcase_create("runtime");
    tcase_add_test(tc, numeric_codes_match_nvidia);
    tcase_add_test(tc, implicit_init_and_device);
    tcase_add_test(tc, explicit_kinds_round_trip);
    tcase_add_test(tc, default_kind_infers_direction);
    tcase_add_test(tc, contradicting_kinds_are_refused);
    tcase_add_test(tc, async_on_a_stream);
    tcase_add_test(tc, memset_and_host_memory);
    tcase_add_test(tc, runtime_free_errors);
    tcase_add_test(tc, error_names_and_strings);
    tcase_add_test(tc, shares_state_with_the_driver);
    tcase_add_test(tc, survives_driver_releasing_the_primary_context);
    tcase_add_test(tc, new_threads_get_the_primary_context);
    return tc;
}
