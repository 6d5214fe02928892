/* cudasim.h: the simulator's own interface, beside the CUDA APIs it
 * simulates. Exported with C linkage from libcuda.so.1, so tests can prove
 * that transfers happened and nothing leaked.
 *
 * Counters cover both the driver API and the runtime API (libcudart.so.12
 * forwards to libcuda.so.1). A call is counted when it succeeds; `errors`
 * counts every call that returned an error. Allocation counters cover
 * device memory only. */
#ifndef CUDASIM_H
#define CUDASIM_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && defined(__CUDA_API_PUSH_VISIBILITY_DEFAULT)
#pragma GCC visibility push(default)
#endif

struct cudasim_counters {
    unsigned long long htod;             /* host-to-device copies */
    unsigned long long dtoh;             /* device-to-host copies */
    unsigned long long dtod;             /* device-to-device copies */
    unsigned long long htoh;             /* host-to-host copies (unified/runtime calls) */
    unsigned long long memsets;          /* memset calls of every width */
    unsigned long long allocs;           /* device allocations made */
    unsigned long long frees;            /* device allocations freed */
    unsigned long long live_allocations; /* device allocations not yet freed */
    unsigned long long live_bytes;       /* bytes they hold, as requested */
    unsigned long long bytes_htod;
    unsigned long long bytes_dtoh;
    unsigned long long bytes_dtod;
    unsigned long long errors;           /* calls that returned an error */
};

/* Copies the counters into *out (NULL is ignored). */
void cudasim_get_counters(struct cudasim_counters *out);

/* Zeroes every counter except live_allocations and live_bytes. */
void cudasim_reset_counters(void);

/* 1 when addr lies inside a live device allocation (any byte of it), else 0. */
int cudasim_is_device_pointer(unsigned long long addr);

/* Defers async work until a synchronization (on != 0) or runs it at once
 * (0, after running what was deferred), whatever CUDASIM_DEFER_ASYNC says. */
void cudasim_set_defer_async(int on);

#if defined(__GNUC__) && defined(__CUDA_API_PUSH_VISIBILITY_DEFAULT)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* CUDASIM_H */
