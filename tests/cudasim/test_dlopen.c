/* test_dlopen.c: the simulator loaded the way tanjit's resolver loads it:
 * dlopen("<dir>/libcuda.so.1", RTLD_LAZY | RTLD_LOCAL), symbols through the
 * handle. This executable does not link libcuda or libcudart, so the CUDA
 * names must stay invisible to the global scope (dlsym(RTLD_DEFAULT)),
 * while libcudart, loaded the same way, must share libcuda's state. */
#include <check.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#include "cuda.h"
#include "cudasim.h"

#ifndef CUDASIM_DIR
#error "CUDASIM_DIR must name the directory holding libcuda.so.1"
#endif

#define DRIVER_PATH CUDASIM_DIR "/libcuda.so.1"
#define RUNTIME_PATH CUDASIM_DIR "/libcudart.so.12"

/* Every driver entry point a frontend may name, old and _v2. */
static const char *const driver_symbols[] = {
    "cuInit", "cuDeviceGet", "cuDeviceGetCount", "cuDeviceGetName",
    "cuCtxCreate", "cuCtxCreate_v2", "cuCtxDestroy", "cuCtxDestroy_v2", "cuCtxSynchronize",
    "cuCtxSetCurrent", "cuCtxGetCurrent", "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease",
    "cuDevicePrimaryCtxRelease_v2", "cuStreamCreate", "cuStreamDestroy", "cuStreamDestroy_v2",
    "cuStreamSynchronize", "cuMemAlloc", "cuMemAlloc_v2", "cuMemAllocAsync", "cuMemFree",
    "cuMemFree_v2", "cuMemFreeAsync", "cuMemAllocHost", "cuMemAllocHost_v2", "cuMemFreeHost",
    "cuMemAllocManaged", "cuMemAllocPitch", "cuMemAllocPitch_v2",
    "cuMemcpyHtoD", "cuMemcpyHtoD_v2", "cuMemcpyDtoH", "cuMemcpyDtoH_v2", "cuMemcpyDtoD",
    "cuMemcpyDtoD_v2", "cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync",
    "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2", "cuMemcpy", "cuMemcpyAsync",
    "cuMemsetD8", "cuMemsetD8_v2", "cuMemsetD8Async", "cuMemsetD32", "cuMemsetD32_v2",
    "cuGetErrorString", "cuGetErrorName", "cudasim_get_counters", "cudasim_reset_counters",
    "cudasim_is_device_pointer",
};

static const char *const runtime_symbols[] = {
    "cudaMalloc", "cudaMallocAsync", "cudaMallocManaged", "cudaMallocPitch", "cudaFree", "cudaFreeAsync", "cudaFreeHost", "cudaMallocHost",
    "cudaMemcpy", "cudaMemcpyAsync", "cudaMemset", "cudaMemsetAsync", "cudaStreamCreate",
    "cudaStreamDestroy", "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaGetLastError",
    "cudaGetErrorString", "cudaSetDevice", "cudaGetDeviceCount",
};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* dlsym into a typed function pointer without a pedantic object cast. */
#define LOOKUP(handle, name, type, out)                       \
    do {                                                      \
        void *sym_ = dlsym((handle), (name));                 \
        ck_assert_msg(sym_ != NULL, "%s not exported", name); \
        *(void **)(&(out)) = sym_;                            \
    } while (0)

START_TEST(exports_every_driver_symbol)
{
    void *driver = dlopen(DRIVER_PATH, RTLD_LAZY | RTLD_LOCAL);
    ck_assert_msg(driver != NULL, "dlopen: %s", dlerror());
    for (size_t i = 0; i < COUNT(driver_symbols); ++i)
        ck_assert_msg(dlsym(driver, driver_symbols[i]) != NULL, "%s missing", driver_symbols[i]);
    /* The old names are real, separate functions. */
    ck_assert_ptr_ne(dlsym(driver, "cuMemAlloc"), dlsym(driver, "cuMemAlloc_v2"));
    /* Internals stay hidden. */
    ck_assert_ptr_null(dlsym(driver, "cusim_arena_alloc"));
    ck_assert_int_eq(dlclose(driver), 0);
}
END_TEST

START_TEST(local_symbols_stay_out_of_global_scope)
{
    ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"));
    void *driver = dlopen(DRIVER_PATH, RTLD_LAZY | RTLD_LOCAL);
    ck_assert_msg(driver != NULL, "dlopen: %s", dlerror());
    void *runtime = dlopen(RUNTIME_PATH, RTLD_LAZY | RTLD_LOCAL);
    ck_assert_msg(runtime != NULL, "dlopen: %s", dlerror());
    ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"));
    ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "cuMemcpyHtoD_v2"));
    ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "cudaMalloc"));
    ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "cudasim_get_counters"));
    ck_assert_ptr_nonnull(dlsym(driver, "cuMemAlloc_v2"));
    ck_assert_ptr_nonnull(dlsym(runtime, "cudaMalloc"));
    for (size_t i = 0; i < COUNT(runtime_symbols); ++i)
        ck_assert_msg(dlsym(runtime, runtime_symbols[i]) != NULL, "%s missing", runtime_symbols[i]);
    ck_assert_int_eq(dlclose(runtime), 0);
    ck_assert_int_eq(dlclose(driver), 0);
}
END_TEST

START_TEST(round_trip_through_handles)
{
    void *driver = dlopen(DRIVER_PATH, RTLD_LAZY | RTLD_LOCAL);
    ck_assert_msg(driver != NULL, "dlopen: %s", dlerror());
    CUresult (*init)(unsigned int);
    CUresult (*retain)(CUcontext *, CUdevice);
    CUresult (*set_current)(CUcontext);
    CUresult (*alloc)(CUdeviceptr *, size_t);
    CUresult (*htod)(CUdeviceptr, const void *, size_t);
    CUresult (*dtoh)(void *, CUdeviceptr, size_t);
    CUresult (*release)(CUdeviceptr);
    void (*get_counters)(struct cudasim_counters *);
    int (*is_device)(unsigned long long);
    LOOKUP(driver, "cuInit", CUresult (*)(unsigned int), init);
    LOOKUP(driver, "cuDevicePrimaryCtxRetain", CUresult (*)(CUcontext *, CUdevice), retain);
    LOOKUP(driver, "cuCtxSetCurrent", CUresult (*)(CUcontext), set_current);
    LOOKUP(driver, "cuMemAlloc_v2", CUresult (*)(CUdeviceptr *, size_t), alloc);
    LOOKUP(driver, "cuMemcpyHtoD_v2", CUresult (*)(CUdeviceptr, const void *, size_t), htod);
    LOOKUP(driver, "cuMemcpyDtoH_v2", CUresult (*)(void *, CUdeviceptr, size_t), dtoh);
    LOOKUP(driver, "cuMemFree_v2", CUresult (*)(CUdeviceptr), release);
    LOOKUP(driver, "cudasim_get_counters", void (*)(struct cudasim_counters *), get_counters);
    LOOKUP(driver, "cudasim_is_device_pointer", int (*)(unsigned long long), is_device);

    ck_assert_int_eq(init(0), CUDA_SUCCESS);
    CUcontext primary; /* memory calls need a current context */
    ck_assert_int_eq(retain(&primary, 0), CUDA_SUCCESS);
    ck_assert_int_eq(set_current(primary), CUDA_SUCCESS);
    double in[3] = {1.25, -2.5, 1e10}, out[3] = {0};
    CUdeviceptr d;
    ck_assert_int_eq(alloc(&d, sizeof in), CUDA_SUCCESS);
    ck_assert_int_eq(htod(d, in, sizeof in), CUDA_SUCCESS);
    ck_assert_int_eq(dtoh(out, d, sizeof out), CUDA_SUCCESS);
    ck_assert_double_eq(out[0], 1.25);
    ck_assert_double_eq(out[1], -2.5);
    ck_assert_double_eq(out[2], 1e10);

    /* libcudart, loaded separately and RTLD_LOCAL, uses this libcuda. */
    void *runtime = dlopen(RUNTIME_PATH, RTLD_LAZY | RTLD_LOCAL);
    ck_assert_msg(runtime != NULL, "dlopen: %s", dlerror());
    int (*rt_malloc)(void **, size_t);
    int (*rt_memcpy)(void *, const void *, size_t, int);
    int (*rt_free)(void *);
    LOOKUP(runtime, "cudaMalloc", int (*)(void **, size_t), rt_malloc);
    LOOKUP(runtime, "cudaMemcpy", int (*)(void *, const void *, size_t, int), rt_memcpy);
    LOOKUP(runtime, "cudaFree", int (*)(void *), rt_free);
    struct cudasim_counters before, after;
    get_counters(&before);
    void *p = NULL;
    ck_assert_int_eq(rt_malloc(&p, 64), 0);
    ck_assert_int_eq(is_device((uintptr_t)p), 1);
    ck_assert_int_eq(rt_memcpy(p, in, sizeof in, 1 /* HostToDevice */), 0);
    ck_assert_int_eq(rt_memcpy(out, (void *)(uintptr_t)d, sizeof out, 4 /* Default */), 0);
    ck_assert_int_eq(rt_free(p), 0);
    get_counters(&after);
    ck_assert_uint_eq(after.htod - before.htod, 1);
    ck_assert_uint_eq(after.dtoh - before.dtoh, 1);
    ck_assert_uint_eq(after.allocs - before.allocs, 1);
    ck_assert_uint_eq(after.frees - before.frees, 1);
    ck_assert_int_eq(release(d), CUDA_SUCCESS);
    get_counters(&after);
    ck_assert_uint_eq(after.live_allocations, 0);
    ck_assert_int_eq(dlclose(runtime), 0);
    ck_assert_int_eq(dlclose(driver), 0);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("cudasim_dlopen");
    TCase *tc = tcase_create("dlopen");
    tcase_add_test(tc, exports_every_driver_symbol);
    tcase_add_test(tc, local_symbols_stay_out_of_global_scope);
    tcase_add_test(tc, round_trip_through_handles);
    suite_add_tcase(suite, tc);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
