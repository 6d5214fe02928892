/* cusim.h: internals shared by the files of libcuda.so.1 (the driver API
 * simulator). Grouped by the file that defines them.
 *
 * Locking: every exported entry point takes the one state lock
 * (cusim_lock) for its whole run; every cusim_ function below, unless it
 * says otherwise, expects the caller to hold it. */
#ifndef CUSIM_H
#define CUSIM_H

#define __CUDA_API_VERSION_INTERNAL 1
#define __CUDA_API_PUSH_VISIBILITY_DEFAULT 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda.h"
#include "cudasim.h"
#include "cusim_bridge.h"

/* state.c */
void cusim_lock(void);
void cusim_unlock(void);
/* Counts an error result; returns r unchanged. */
CUresult cusim_result(CUresult r);
/* CUDA_ERROR_NOT_INITIALIZED until cuInit has succeeded. */
CUresult cusim_require_init(void);
void cusim_mark_initialized(void);
extern struct cudasim_counters cusim_counters;
/* The body of most entry points: run a lock-held implementation, count its
 * error, return its result. */
#define CUSIM_LOCKED(call)                    \
    do {                                      \
        cusim_lock();                         \
        CUresult cusim_r_ = cusim_result(call); \
        cusim_unlock();                       \
        return cusim_r_;                      \
    } while (0)

/* arena.c: device memory. A PROT_NONE reservation holds the addresses handed
 * out; a second, read/write mapping of the same memfd holds the bytes. */
CUresult cusim_arena_open(void);
void cusim_arena_close(void);
size_t cusim_arena_capacity(void);
size_t cusim_arena_used(void);
/* True when [addr, addr+bytes) touches the reservation at all. */
bool cusim_arena_overlaps(uintptr_t addr, size_t bytes);
/* Starts on a multiple of alignment (a power of two; at least 256 is used). */
CUresult cusim_arena_alloc(size_t bytes, size_t alignment, CUdeviceptr *out);
/* Managed memory: whole pages, read/write to the host at the address handed
 * out until freed. */
CUresult cusim_arena_alloc_managed(size_t bytes, CUdeviceptr *out);
/* Frees the allocation that starts exactly at addr; *bytes gets its size. */
CUresult cusim_arena_free(CUdeviceptr addr, size_t *bytes);
/* Checks that [addr, addr+bytes) lies inside one live allocation and returns
 * where those bytes live in the read/write mapping. */
CUresult cusim_arena_view(CUdeviceptr addr, size_t bytes, unsigned char **view);
/* True when [addr, addr+bytes) lies inside one live managed allocation:
 * memory the host may also use directly. */
bool cusim_arena_is_managed(uintptr_t addr, size_t bytes);

/* handles.c: sets of live opaque handles. Handle values come from one
 * counter and are never reused, so a stale handle is always detected. */
struct cusim_handle_entry {
    uintptr_t handle;
    uintptr_t owner; /* the context of a stream, the size of a host block */
};
struct cusim_handle_set {
    struct cusim_handle_entry *entries;
    size_t count;
    size_t capacity;
};
uintptr_t cusim_handle_next(void);
bool cusim_handle_add(struct cusim_handle_set *set, uintptr_t handle, uintptr_t owner);
/* Index of handle, or -1. */
ptrdiff_t cusim_handle_find(const struct cusim_handle_set *set, uintptr_t handle);
void cusim_handle_remove_at(struct cusim_handle_set *set, size_t index);
void cusim_handle_set_clear(struct cusim_handle_set *set);

/* context.c */
/* The calling thread's current context, or 0. */
uintptr_t cusim_current_context(void);
/* What memory calls require, as on a GPU: cuInit
 * (CUDA_ERROR_NOT_INITIALIZED), then a current context
 * (CUDA_ERROR_INVALID_CONTEXT). */
CUresult cusim_require_context(void);
void cusim_contexts_clear(void);

/* stream.c */
/* CUDA_SUCCESS for the default streams and live streams. */
CUresult cusim_check_stream(CUstream stream);
/* Drops the streams a destroyed context owned. */
void cusim_streams_drop_owned_by(uintptr_t context);
void cusim_streams_clear(void);

/* memory.c */
void cusim_host_blocks_clear(void);

/* queue.c: async work deferred until a synchronization
 * (CUDASIM_DEFER_ASYNC=1). */
bool cusim_defer_async(void);
/* Queue a copy / a memset of `count` elements of `width` bytes (pattern:
 * one element) on stream; both ends already validated. */
CUresult cusim_defer_copy(CUstream stream, unsigned char *to, const unsigned char *from, size_t bytes);
CUresult cusim_defer_memset(CUstream stream, unsigned char *to, const unsigned char *pattern, size_t width,
                            size_t count);
/* Run the work queued on stream (a default stream: on every stream). */
void cusim_wait_stream(CUstream stream);
void cusim_wait_all(void);
void cusim_queue_clear(void);

#endif /* CUSIM_H */
