/* test_driver_transfers.c: driver API data movement: each copy direction,
 * partial copies at offsets, async copies on a stream, the memset widths and
 * unified cuMemcpy, each checked byte for byte against a host reference, and
 * the counters each one moves. */
#include "test_cudasim.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define STRINGIFY(x) #x
#define EXPANDED_NAME(x) STRINGIFY(x)

START_TEST(header_maps_names_to_v2)
{
    /* As NVIDIA's cuda.h: code written with the plain names calls _v2. */
    ck_assert_str_eq(EXPANDED_NAME(cuMemAlloc), "cuMemAlloc_v2");
    ck_assert_str_eq(EXPANDED_NAME(cuMemFree), "cuMemFree_v2");
    ck_assert_str_eq(EXPANDED_NAME(cuMemcpyHtoD), "cuMemcpyHtoD_v2");
    ck_assert_str_eq(EXPANDED_NAME(cuMemcpyDtoHAsync), "cuMemcpyDtoHAsync_v2");
    ck_assert_str_eq(EXPANDED_NAME(cuMemsetD8), "cuMemsetD8_v2");
    ck_assert_str_eq(EXPANDED_NAME(cuCtxDestroy), "cuCtxDestroy_v2");
    ck_assert_str_eq(EXPANDED_NAME(cuStreamDestroy), "cuStreamDestroy_v2");
    ck_assert_str_eq(EXPANDED_NAME(cuMemcpy), "cuMemcpy");
    ck_assert_str_eq(EXPANDED_NAME(cuMemsetD8Async), "cuMemsetD8Async");
}
END_TEST

START_TEST(htod_dtoh_round_trip)
{
    enum { N = 1000 };
    double host[N], back[N];
    for (int i = 0; i < N; ++i)
        host[i] = 0.5 * i - 7.0;
    struct cudasim_counters before;
    cudasim_get_counters(&before);

    CUdeviceptr d = 0;
    CK_CU(cuMemAlloc(&d, sizeof host));
    ck_assert(d != 0);
    ck_assert_int_eq(cudasim_is_device_pointer(d), 1);
    ck_assert_int_eq(cudasim_is_device_pointer(d + sizeof host - 1), 1);
    ck_assert_int_eq(cudasim_is_device_pointer(d + sizeof host), 0);
    ck_assert_int_eq(cudasim_is_device_pointer((unsigned long long)(uintptr_t)host), 0);
    CK_CU(cuMemcpyHtoD(d, host, sizeof host));
    memset(back, 0, sizeof back);
    CK_CU(cuMemcpyDtoH(back, d, sizeof back));
    for (int i = 0; i < N; ++i)
        ck_assert_double_eq(back[i], 0.5 * i - 7.0);
    CK_CU(cuMemFree(d));
    ck_assert_int_eq(cudasim_is_device_pointer(d), 0);

    struct cudasim_counters delta = counters_delta(&before);
    ck_assert_uint_eq(delta.htod, 1);
    ck_assert_uint_eq(delta.dtoh, 1);
    ck_assert_uint_eq(delta.bytes_htod, sizeof host);
    ck_assert_uint_eq(delta.bytes_dtoh, sizeof host);
    ck_assert_uint_eq(delta.allocs, 1);
    ck_assert_uint_eq(delta.frees, 1);
    ck_assert_uint_eq(delta.live_allocations, 0);
    ck_assert_uint_eq(delta.errors, 0);
}
END_TEST

START_TEST(dtod_copies_between_allocations)
{
    float src_host[64], out[64];
    for (int i = 0; i < 64; ++i)
        src_host[i] = (float)(i * i);
    CUdeviceptr a, b;
    CK_CU(cuMemAlloc(&a, sizeof src_host));
    CK_CU(cuMemAlloc(&b, sizeof src_host));
    ck_assert(a != b);
    CK_CU(cuMemcpyHtoD(a, src_host, sizeof src_host));
    CK_CU(cuMemsetD8(b, 0, sizeof src_host));
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    CK_CU(cuMemcpyDtoD(b, a, sizeof src_host));
    struct cudasim_counters delta = counters_delta(&before);
    ck_assert_uint_eq(delta.dtod, 1);
    ck_assert_uint_eq(delta.bytes_dtod, sizeof src_host);
    CK_CU(cuMemcpyDtoH(out, b, sizeof out));
    for (int i = 0; i < 64; ++i)
        ck_assert_float_eq(out[i], (float)(i * i));
    CK_CU(cuMemFree(a));
    CK_CU(cuMemFree(b));
}
END_TEST

START_TEST(partial_copies_at_offsets)
{
    int values[64], patch[8], window[12];
    for (int i = 0; i < 64; ++i)
        values[i] = i;
    for (int i = 0; i < 8; ++i)
        patch[i] = 100 + i;
    CUdeviceptr d;
    CK_CU(cuMemAlloc(&d, sizeof values));
    CK_CU(cuMemcpyHtoD(d, values, sizeof values));
    CK_CU(cuMemcpyHtoD(d + 16 * sizeof(int), patch, sizeof patch));
    CK_CU(cuMemcpyDtoH(window, d + 14 * sizeof(int), sizeof window));
    /* window covers elements 14..25: 14, 15, then the patch at 16..23, then 24, 25 */
    static const int expected[12] = {14, 15, 100, 101, 102, 103, 104, 105, 106, 107, 24, 25};
    for (int i = 0; i < 12; ++i)
        ck_assert_int_eq(window[i], expected[i]);
    /* The last element, reached exactly to the end of the allocation. */
    int last = 0;
    CK_CU(cuMemcpyDtoH(&last, d + 63 * sizeof(int), sizeof last));
    ck_assert_int_eq(last, 63);
    /* Overlapping device-to-device within one allocation moves like memmove. */
    CK_CU(cuMemcpyDtoD(d + sizeof(int), d, 4 * sizeof(int)));
    int head[5];
    CK_CU(cuMemcpyDtoH(head, d, sizeof head));
    static const int shifted[5] = {0, 0, 1, 2, 3};
    for (int i = 0; i < 5; ++i)
        ck_assert_int_eq(head[i], shifted[i]);
    CK_CU(cuMemFree(d));
}
END_TEST

START_TEST(async_copies_on_a_stream)
{
    CUstream stream;
    CK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    ck_assert_ptr_nonnull(stream);
    double host[32], out[32];
    for (int i = 0; i < 32; ++i)
        host[i] = 1.0 / (i + 1);
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    CUdeviceptr a, b;
    CK_CU(cuMemAllocAsync(&a, sizeof host, stream));
    CK_CU(cuMemAllocAsync(&b, sizeof host, stream));
    CK_CU(cuMemcpyHtoDAsync(a, host, sizeof host, stream));
    CK_CU(cuMemsetD8Async(b, 0xff, sizeof host, stream));
    CK_CU(cuMemcpyDtoDAsync(b, a, sizeof host / 2, stream));
    CK_CU(cuMemcpyDtoHAsync(out, b, sizeof out, stream));
    CK_CU(cuStreamSynchronize(stream));
    CK_CU(cuStreamQuery(stream));
    for (int i = 0; i < 16; ++i)
        ck_assert_double_eq(out[i], 1.0 / (i + 1));
    unsigned char all_ones[sizeof(double)];
    memset(all_ones, 0xff, sizeof all_ones);
    for (int i = 16; i < 32; ++i)
        ck_assert_mem_eq(&out[i], all_ones, sizeof(double));
    CK_CU(cuMemFreeAsync(a, stream));
    CK_CU(cuMemFreeAsync(b, stream));
    struct cudasim_counters delta = counters_delta(&before);
    ck_assert_uint_eq(delta.htod, 1);
    ck_assert_uint_eq(delta.dtod, 1);
    ck_assert_uint_eq(delta.dtoh, 1);
    ck_assert_uint_eq(delta.memsets, 1);
    ck_assert_uint_eq(delta.allocs, 2);
    ck_assert_uint_eq(delta.frees, 2);
    ck_assert_uint_eq(delta.bytes_dtod, sizeof host / 2);
    CK_CU(cuStreamDestroy(stream));
    ck_assert_int_eq(cuStreamSynchronize(stream), CUDA_ERROR_INVALID_HANDLE);
    /* The default streams are always valid. */
    CK_CU(cuStreamSynchronize(NULL));
    CK_CU(cuStreamSynchronize(CU_STREAM_LEGACY));
    CK_CU(cuStreamSynchronize(CU_STREAM_PER_THREAD));
}
END_TEST

START_TEST(memset_widths)
{
    CUdeviceptr d;
    CK_CU(cuMemAlloc(&d, 64));
    unsigned char bytes[64];
    CK_CU(cuMemsetD8(d, 0xab, 64));
    CK_CU(cuMemsetD8(d + 8, 0x01, 4));
    CK_CU(cuMemcpyDtoH(bytes, d, 64));
    for (int i = 0; i < 64; ++i)
        ck_assert_uint_eq(bytes[i], (i >= 8 && i < 12) ? 0x01 : 0xab);

    float floats[16];
    float one_and_half = 1.5f;
    unsigned int bits;
    memcpy(&bits, &one_and_half, sizeof bits);
    CK_CU(cuMemsetD32(d, bits, 16));
    CK_CU(cuMemcpyDtoH(floats, d, sizeof floats));
    for (int i = 0; i < 16; ++i)
        ck_assert_float_eq(floats[i], 1.5f);

    unsigned short shorts[32];
    CK_CU(cuMemsetD16(d, 0xbeef, 32));
    CK_CU(cuMemsetD32Async(d + 4, 0, 1, NULL));
    CK_CU(cuMemsetD16Async(d + 8, 0x1234, 1, NULL));
    CK_CU(cuMemcpyDtoH(shorts, d, sizeof shorts));
    for (int i = 0; i < 32; ++i) {
        unsigned short expected = (i == 2 || i == 3) ? 0 : i == 4 ? 0x1234 : 0xbeef;
        ck_assert_uint_eq(shorts[i], expected);
    }
    CK_CU(cuMemFree(d));
}
END_TEST

START_TEST(unified_memcpy_infers_direction)
{
    double host[16], out[16], scratch[16];
    for (int i = 0; i < 16; ++i)
        host[i] = 3.0 * i + 0.25;
    CUdeviceptr a, b;
    CK_CU(cuMemAlloc(&a, sizeof host));
    CK_CU(cuMemAlloc(&b, sizeof host));
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    CK_CU(cuMemcpy(a, (CUdeviceptr)(uintptr_t)host, sizeof host));
    CK_CU(cuMemcpy(b, a, sizeof host));
    CK_CU(cuMemcpy((CUdeviceptr)(uintptr_t)out, b, sizeof out));
    CK_CU(cuMemcpyAsync((CUdeviceptr)(uintptr_t)scratch, (CUdeviceptr)(uintptr_t)out, sizeof out, NULL));
    for (int i = 0; i < 16; ++i) {
        ck_assert_double_eq(out[i], 3.0 * i + 0.25);
        ck_assert_double_eq(scratch[i], 3.0 * i + 0.25);
    }
    struct cudasim_counters delta = counters_delta(&before);
    ck_assert_uint_eq(delta.htod, 1);
    ck_assert_uint_eq(delta.dtod, 1);
    ck_assert_uint_eq(delta.dtoh, 1);
    ck_assert_uint_eq(delta.htoh, 1);
    ck_assert_uint_eq(delta.bytes_htod, sizeof host);
    CK_CU(cuMemFree(a));
    CK_CU(cuMemFree(b));
}
END_TEST

START_TEST(counters_exact_and_reset_keeps_live)
{
    unsigned char buffer[300] = {0};
    CUdeviceptr small, large;
    CK_CU(cuMemAlloc(&small, 100));
    CK_CU(cuMemAlloc(&large, 200));
    cudasim_reset_counters();
    struct cudasim_counters c;
    cudasim_get_counters(&c);
    ck_assert_uint_eq(c.htod + c.dtoh + c.dtod + c.htoh + c.memsets + c.allocs + c.frees + c.errors, 0);
    ck_assert_uint_ge(c.live_allocations, 2);
    unsigned long long live_before = c.live_allocations, bytes_before = c.live_bytes;

    CK_CU(cuMemcpyHtoD(small, buffer, 100));
    CK_CU(cuMemcpyDtoH(buffer, large, 50));
    CK_CU(cuMemcpyDtoD(large, small, 30));
    CK_CU(cuMemsetD8(large, 7, 200));
    ck_assert_int_eq(cuMemcpyHtoD(small, buffer, 101), CUDA_ERROR_INVALID_VALUE);
    CK_CU(cuMemFree(small));
    cudasim_get_counters(&c);
    ck_assert_uint_eq(c.htod, 1);
    ck_assert_uint_eq(c.dtoh, 1);
    ck_assert_uint_eq(c.dtod, 1);
    ck_assert_uint_eq(c.htoh, 0);
    ck_assert_uint_eq(c.memsets, 1);
    ck_assert_uint_eq(c.allocs, 0);
    ck_assert_uint_eq(c.frees, 1);
    ck_assert_uint_eq(c.bytes_htod, 100);
    ck_assert_uint_eq(c.bytes_dtoh, 50);
    ck_assert_uint_eq(c.bytes_dtod, 30);
    ck_assert_uint_eq(c.errors, 1);
    ck_assert_uint_eq(c.live_allocations, live_before - 1);
    ck_assert_uint_eq(c.live_bytes, bytes_before - 100);
    CK_CU(cuMemFree(large));
    cudasim_get_counters(&c);
    ck_assert_uint_eq(c.live_bytes, bytes_before - 300);
    cudasim_get_counters(NULL); /* tolerated */
}
END_TEST

START_TEST(first_fit_reuses_and_runs_out)
{
    size_t free_bytes, total_bytes;
    CK_CU(cuMemGetInfo(&free_bytes, &total_bytes));
    ck_assert_uint_eq(total_bytes, (size_t)1 << 30);
    CUdeviceptr a, b, c;
    CK_CU(cuMemAlloc(&a, 1000));
    CK_CU(cuMemAlloc(&b, 1000));
    ck_assert_uint_eq(a % 256, 0);
    ck_assert_uint_eq(b % 256, 0);
    CK_CU(cuMemFree(a));
    CK_CU(cuMemAlloc(&c, 512));
    ck_assert_uint_eq(c, a); /* the hole a left is the first that fits */

    CUdeviceptr huge = 0;
    ck_assert_int_eq(cuMemAlloc(&huge, ((size_t)1 << 30) + 1), CUDA_ERROR_OUT_OF_MEMORY);
    CUdeviceptr big1, big2;
    CK_CU(cuMemAlloc(&big1, (size_t)600 << 20));
    ck_assert_int_eq(cuMemAlloc(&big2, (size_t)600 << 20), CUDA_ERROR_OUT_OF_MEMORY);
    /* Touch both ends of the big block: backing pages appear on demand. */
    unsigned char one = 1, back = 0;
    CK_CU(cuMemcpyHtoD(big1 + ((size_t)600 << 20) - 1, &one, 1));
    CK_CU(cuMemcpyDtoH(&back, big1 + ((size_t)600 << 20) - 1, 1));
    ck_assert_uint_eq(back, 1);
    CK_CU(cuMemFree(big1));
    CK_CU(cuMemAlloc(&big2, (size_t)600 << 20));
    CK_CU(cuMemFree(big2));
    CK_CU(cuMemFree(b));
    CK_CU(cuMemFree(c));
}
END_TEST

START_TEST(host_allocations)
{
    void *pinned = NULL;
    CK_CU(cuMemAllocHost(&pinned, 4096 + 3));
    ck_assert_ptr_nonnull(pinned);
    ck_assert_int_eq(cudasim_is_device_pointer((unsigned long long)(uintptr_t)pinned), 0);
    memset(pinned, 0x5a, 4096 + 3);
    CUdeviceptr d;
    CK_CU(cuMemAlloc(&d, 4096 + 3));
    CK_CU(cuMemcpyHtoD(d, pinned, 4096 + 3));
    memset(pinned, 0, 4096 + 3);
    CK_CU(cuMemcpyDtoH(pinned, d, 4096 + 3));
    ck_assert_uint_eq(((unsigned char *)pinned)[4096 + 2], 0x5a);
    CK_CU(cuMemFreeHost(pinned));
    CK_CU(cuMemFree(d));
}
END_TEST

/* Issue 10: a wild host pointer is refused, not followed into a crash;
 * so is a read-only destination, and a range running off its mapping. */
START_TEST(wild_host_pointers_are_invalid_values)
{
    CUdeviceptr d;
    CK_CU(cuMemAlloc(&d, 8192));
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *two = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(two, MAP_FAILED);
    memset(two, 3, 2 * (size_t)page);
    ck_assert_int_eq(munmap(two + page, (size_t)page), 0); /* second page gone */
    ck_assert_int_eq(cuMemcpyHtoD_v2(d, (const void *)(uintptr_t)0x10, 16), CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cuMemcpyHtoD_v2(d, two + page, 16), CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cuMemcpyHtoD_v2(d, two + page - 8, 16), CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cuMemcpyDtoH_v2(two + page - 8, d, 16), CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(mprotect(two, (size_t)page, PROT_READ), 0);
    ck_assert_int_eq(cuMemcpyDtoH_v2(two, d, 16), CUDA_ERROR_INVALID_VALUE);
    /* what is mapped still copies, and the data arrives */
    CK_CU(cuMemcpyHtoD_v2(d, two + page - 16, 16));
    unsigned char back[16] = {0};
    CK_CU(cuMemcpyDtoH_v2(back, d, 16));
    ck_assert_uint_eq(back[15], 3);
    munmap(two, (size_t)page);
    CK_CU(cuMemFree(d));
}
END_TEST

TCase *tcase_driver_transfers(void)
{
    TCase *tc = tcase_create("driver_transfers");
    tcase_add_checked_fixture(tc, driver_setup, driver_teardown);
    tcase_add_test(tc, header_maps_names_to_v2);
    tcase_add_test(tc, htod_dtoh_round_trip);
    tcase_add_test(tc, dtod_copies_between_allocations);
    tcase_add_test(tc, partial_copies_at_offsets);
    tcase_add_test(tc, async_copies_on_a_stream);
    tcase_add_test(tc, memset_widths);
    tcase_add_test(tc, unified_memcpy_infers_direction);
    tcase_add_test(tc, counters_exact_and_reset_keeps_live);
    tcase_add_test(tc, first_fit_reuses_and_runs_out);
    tcase_add_test(tc, host_allocations);
    tcase_add_test(tc, wild_host_pointers_are_invalid_values);
    return tc;
}
