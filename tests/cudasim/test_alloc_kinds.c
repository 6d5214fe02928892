/* test_alloc_kinds.c: managed and pitched allocations, from both APIs.
 * Managed memory must be usable by host code at the address handed out
 * (reads, writes, and as the host side of a transfer), by the driver as
 * device memory, and must fault again once freed; the pages around it keep
 * faulting. Pitched memory gets a 512-byte pitch and pitch * height bytes.
 * Misuse gets NVIDIA's error code and counts one error. The old
 * cuMemAllocPitch is declared under __CUDA_API_VERSION_INTERNAL, as in
 * NVIDIA's header. */
#define __CUDA_API_VERSION_INTERNAL 1
#include "test_cudasim.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define CK_RT(call) ck_assert_msg((call) == cudaSuccess, "%s failed", #call)

/* Asserts that call returns expected and counts exactly one error. */
#define CK_FAILS(call, expected)                                                        \
    do {                                                                                \
        struct cudasim_counters before_;                                                \
        cudasim_get_counters(&before_);                                                 \
        int got_ = (int)(call);                                                         \
        ck_assert_msg(got_ == (int)(expected), "%s returned %d, want %d", #call, got_, \
                      (int)(expected));                                                 \
        ck_assert_uint_eq(counters_delta(&before_).errors, 1);                          \
    } while (0)

static void *host_view(CUdeviceptr d)
{
    return (void *)(uintptr_t)d;
}

START_TEST(managed_memory_is_host_addressable)
{
    enum { N = 100 };
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    CUdeviceptr m;
    CK_CU(cuMemAllocManaged(&m, N * sizeof(double), CU_MEM_ATTACH_GLOBAL));
    ck_assert_uint_eq(m % (uintptr_t)sysconf(_SC_PAGESIZE), 0);
    ck_assert_int_eq(cudasim_is_device_pointer(m), 1);
    double *h = host_view(m);
    for (int i = 0; i < N; ++i)
        h[i] = i * 0.5;
    /* the driver sees what the host wrote, and the reverse */
    double back[N];
    CK_CU(cuMemcpyDtoH(back, m, sizeof back));
    ck_assert_double_eq(back[N - 1], (N - 1) * 0.5);
    double in[N];
    for (int i = 0; i < N; ++i)
        in[i] = -i;
    CK_CU(cuMemcpyHtoD(m, in, sizeof in));
    ck_assert_double_eq(h[7], -7.0);
    CK_CU(cuMemsetD8(m, 0, sizeof in));
    ck_assert_double_eq(h[N - 1], 0.0);
    CK_CU(cuMemsetD32(m + 12, 0x3ff00000u, 1)); /* the high word of 1.0 (little-endian) */
    ck_assert_double_eq(h[1], 1.0);
    /* device to device with a plain allocation */
    CUdeviceptr d;
    CK_CU(cuMemAlloc(&d, sizeof in));
    CK_CU(cuMemcpyDtoD(d, m, sizeof in));
    CK_CU(cuMemcpyDtoH(back, d, sizeof back));
    ck_assert_double_eq(back[1], 1.0);
    struct cudasim_counters delta = counters_delta(&before);
    ck_assert_uint_eq(delta.allocs, 2);
    ck_assert_uint_eq(delta.live_allocations, 2);
    ck_assert_uint_eq(delta.live_bytes, 2 * sizeof in);
    CK_CU(cuMemFree(m));
    CK_CU(cuMemFree(d));
    delta = counters_delta(&before);
    ck_assert_uint_eq(delta.frees, 2);
    ck_assert_uint_eq(delta.live_allocations, 0);
    ck_assert_uint_eq(delta.live_bytes, 0);
    ck_assert_uint_eq(delta.errors, 0);
    ck_assert_int_eq(cudasim_is_device_pointer(m), 0);
}
END_TEST

START_TEST(managed_memory_as_the_host_side)
{
    CUdeviceptr m, d;
    CK_CU(cuMemAllocManaged(&m, 64, CU_MEM_ATTACH_HOST));
    CK_CU(cuMemAlloc(&d, 64));
    unsigned char *h = host_view(m);
    for (int i = 0; i < 64; ++i)
        h[i] = (unsigned char)i;
    /* a managed address where host memory belongs: the host may use it */
    CK_CU(cuMemcpyHtoD(d, h, 64));
    CK_CU(cuMemsetD8(m, 0xee, 64));
    CK_CU(cuMemcpyDtoH(h + 32, d, 32));
    ck_assert_uint_eq(h[0], 0xee);
    ck_assert_uint_eq(h[33], 1);
    /* but not past its end, nor a plain device address */
    CK_FAILS(cuMemcpyHtoD(d, h + 32, 33), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemcpyDtoH(host_view(d), m, 8), CUDA_ERROR_INVALID_VALUE);
    /* unified copies see it as device memory */
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    CK_CU(cuMemcpy(d, m, 16));
    ck_assert_uint_eq(counters_delta(&before).dtod, 1);
    CK_CU(cuMemFreeAsync(m, NULL));
    CK_CU(cuMemFree(d));
}
END_TEST

START_TEST(managed_errors)
{
    CUdeviceptr m;
    CK_FAILS(cuMemAllocManaged(&m, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocManaged(NULL, 16, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocManaged(&m, 16, 0), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocManaged(&m, 16, CU_MEM_ATTACH_GLOBAL | CU_MEM_ATTACH_HOST), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocManaged(&m, 16, CU_MEM_ATTACH_SINGLE), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocManaged(&m, SIZE_MAX, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_OUT_OF_MEMORY);
    CK_FAILS(cuMemAllocManaged(&m, ((size_t)1 << 30) + 1, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_OUT_OF_MEMORY);
    CK_CU(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
    CK_FAILS(cuMemFree(m + 8), CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cudasim_is_device_pointer(m), 1);
    CK_CU(cuMemFree(m));
    CK_FAILS(cuMemFree(m), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/* ---- faults: freed managed memory, and plain memory beside live managed
 * memory ---- */

static CUdeviceptr target;

static void touch_target(void)
{
    signal(SIGSEGV, SIG_DFL);
    volatile unsigned char *p = host_view(target);
    p[0] = 1;
}

static void expect_segv(CUdeviceptr address)
{
    target = address;
    int status = run_in_child(touch_target);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
                  "host access to %#llx did not fault (status %d)", (unsigned long long)address, status);
}

START_TEST(managed_memory_faults_once_freed)
{
    CUdeviceptr before, m, after;
    CK_CU(cuMemAlloc(&before, 256));
    CK_CU(cuMemAllocManaged(&m, 10000, CU_MEM_ATTACH_GLOBAL));
    /* too big for the gap below the managed pages: it lands after them */
    CK_CU(cuMemAlloc(&after, 4000));
    ((unsigned char *)host_view(m))[9999] = 7;
    expect_segv(before);
    expect_segv(after);
    CK_CU(cuMemFree(m));
    expect_segv(m);
    /* the freed pages serve plain allocations again, still faulting */
    CUdeviceptr reuse;
    CK_CU(cuMemAlloc(&reuse, 8192));
    expect_segv(reuse);
    /* and a new managed allocation reads zeros, not the old bytes */
    CUdeviceptr again;
    CK_CU(cuMemAllocManaged(&again, 10000, CU_MEM_ATTACH_GLOBAL));
    if (again == m)
        ck_assert_uint_eq(((unsigned char *)host_view(again))[9999], 0);
    CK_CU(cuMemFree(again));
    CK_CU(cuMemFree(reuse));
    CK_CU(cuMemFree(before));
    CK_CU(cuMemFree(after));
}
END_TEST

START_TEST(pitched_allocations)
{
    struct cudasim_counters before;
    cudasim_get_counters(&before);
    CUdeviceptr d;
    size_t pitch = 0;
    CK_CU(cuMemAllocPitch_v2(&d, &pitch, 100, 3, 8));
    ck_assert_uint_eq(pitch, 512);
    ck_assert_uint_eq(d % 512, 0);
    /* every row is pitch bytes after the last; the allocation ends after
     * the last one */
    double row[12];
    for (int i = 0; i < 12; ++i)
        row[i] = i + 0.25;
    CK_CU(cuMemcpyHtoD(d + 2 * pitch, row, sizeof row));
    CK_CU(cuMemcpyHtoD(d + 3 * pitch - 8, row, 8));
    CK_FAILS(cuMemcpyHtoD(d + 3 * pitch - 8, row, 16), CUDA_ERROR_INVALID_VALUE);
    double back[12];
    CK_CU(cuMemcpyDtoH(back, d + 2 * pitch, sizeof back));
    ck_assert_double_eq(back[11], 11.25);
    struct cudasim_counters delta = counters_delta(&before);
    ck_assert_uint_eq(delta.allocs, 1);
    ck_assert_uint_eq(delta.live_bytes, 3 * 512);

    CUdeviceptr e;
    unsigned int narrow = 0;
    CK_CU(cuMemAllocPitch(&e, &narrow, 513, 2, 16));
    ck_assert_uint_eq(narrow, 1024);
    CK_CU(cuMemcpyDtoD(e + narrow, d + 2 * pitch, sizeof row));
    CK_CU(cuMemcpyDtoH(back, e + narrow, sizeof back));
    ck_assert_double_eq(back[3], 3.25);
    ck_assert_int_eq(cudasim_is_device_pointer(e + 2 * narrow - 1), 1);

    /* the runtime's: the same pitch rule */
    void *p = NULL;
    size_t rt_pitch = 0;
    CK_RT(cudaMallocPitch(&p, &rt_pitch, 512, 4));
    ck_assert_uint_eq(rt_pitch, 512);
    CK_RT(cudaMemset(p, 0, rt_pitch * 4));
    CK_RT(cudaFree(p));
    CK_CU(cuMemFree(d));
    CK_CU(cuMemFree_v2(e));
    delta = counters_delta(&before);
    ck_assert_uint_eq(delta.allocs, 3);
    ck_assert_uint_eq(delta.frees, 3);
    ck_assert_uint_eq(delta.live_bytes, 0);
    ck_assert_uint_eq(delta.errors, 1);
}
END_TEST

START_TEST(pitched_errors)
{
    CUdeviceptr d;
    size_t pitch = 0;
    unsigned int narrow = 0;
    CK_FAILS(cuMemAllocPitch_v2(&d, &pitch, 0, 4, 4), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocPitch_v2(&d, &pitch, 16, 0, 4), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocPitch_v2(NULL, &pitch, 16, 4, 4), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocPitch_v2(&d, NULL, 16, 4, 4), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocPitch_v2(&d, &pitch, 16, 4, 0), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocPitch_v2(&d, &pitch, 16, 4, 2), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocPitch_v2(&d, &pitch, 16, 4, 12), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocPitch_v2(&d, &pitch, 16, 4, 32), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocPitch_v2(&d, &pitch, SIZE_MAX, 1, 4), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocPitch_v2(&d, &pitch, 1024, SIZE_MAX / 512, 4), CUDA_ERROR_OUT_OF_MEMORY);
    CK_FAILS(cuMemAllocPitch_v2(&d, &pitch, 512, ((size_t)1 << 21) + 1, 4), CUDA_ERROR_OUT_OF_MEMORY);
    CK_FAILS(cuMemAllocPitch(&d, &narrow, 0xffffffffu, 1, 4), CUDA_ERROR_INVALID_VALUE);
    CK_FAILS(cuMemAllocPitch(&d, NULL, 16, 1, 4), CUDA_ERROR_INVALID_VALUE);
    ck_assert_uint_eq(pitch, 0); /* untouched on failure */
    ck_assert_uint_eq(narrow, 0);
}
END_TEST

START_TEST(runtime_managed_and_pitched)
{
    double *m = NULL;
    CK_RT(cudaMallocManaged((void **)&m, 8 * sizeof(double), cudaMemAttachGlobal));
    for (int i = 0; i < 8; ++i)
        m[i] = i;
    void *d = NULL;
    CK_RT(cudaMalloc(&d, 8 * sizeof(double)));
    /* managed memory matches any kind: it is both host and device memory */
    CK_RT(cudaMemcpy(d, m, 8 * sizeof(double), cudaMemcpyHostToDevice));
    CK_RT(cudaMemcpy(m, d, 4 * sizeof(double), cudaMemcpyDeviceToDevice));
    CK_RT(cudaMemcpy(m + 4, d, 4 * sizeof(double), cudaMemcpyDeviceToHost));
    CK_RT(cudaMemcpy(m, m + 1, sizeof(double), cudaMemcpyDefault));
    ck_assert_double_eq(m[0], 1.0);
    ck_assert_double_eq(m[7], 3.0);
    CK_RT(cudaMemset(m, 0, 8 * sizeof(double)));
    ck_assert_double_eq(m[5], 0.0);
    CK_RT(cudaFree(m));
    CK_RT(cudaFree(d));
    double *h = NULL;
    CK_RT(cudaMallocManaged((void **)&h, 8, cudaMemAttachHost));
    *h = 2.5;
    CK_RT(cudaFree(h));

    void *p = NULL;
    size_t pitch = 0;
    CK_FAILS(cudaMallocManaged(&p, 0, cudaMemAttachGlobal), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
    CK_FAILS(cudaMallocManaged(&p, 8, 0), cudaErrorInvalidValue);
    CK_FAILS(cudaMallocManaged(&p, 8, cudaMemAttachSingle), cudaErrorInvalidValue);
    CK_FAILS(cudaMallocManaged(NULL, 8, cudaMemAttachGlobal), cudaErrorInvalidValue);
    CK_FAILS(cudaMallocManaged(&p, SIZE_MAX, cudaMemAttachGlobal), cudaErrorMemoryAllocation);
    CK_FAILS(cudaMallocPitch(&p, &pitch, 0, 4), cudaErrorInvalidValue);
    CK_FAILS(cudaMallocPitch(&p, &pitch, 4, 0), cudaErrorInvalidValue);
    CK_FAILS(cudaMallocPitch(NULL, &pitch, 4, 4), cudaErrorInvalidValue);
    CK_FAILS(cudaMallocPitch(&p, NULL, 4, 4), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
    ck_assert_ptr_null(p);
}
END_TEST

TCase *tcase_alloc_kinds(void)
{
    TCase *tc = tcase_create("alloc_kinds");
    tcase_add_checked_fixture(tc, driver_setup, driver_teardown);
    tcase_add_test(tc, managed_memory_is_host_addressable);
    tcase_add_test(tc, managed_memory_as_the_host_side);
    tcase_add_test(tc, managed_errors);
    tcase_add_test(tc, managed_memory_faults_once_freed);
    tcase_add_test(tc, pitched_allocations);
    tcase_add_test(tc, pitched_errors);
    tcase_add_test(tc, runtime_managed_and_pitched);
    return tc;
}
