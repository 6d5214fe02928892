/* queue.c: async work deferred until a synchronization, when the
 * environment asks for it (CUDASIM_DEFER_ASYNC=1; read once, at the first
 * async call).  Without it, async work runs at once (an allowed schedule:
 * an async call may complete before it returns); cudasim_set_defer_async
 * (cudasim.h) overrides it.  With it, an async copy
 * or memset is validated and counted when called, and its bytes move only
 * when something waits for its stream: cuStreamSynchronize or cuStreamQuery
 * of that stream, cuStreamDestroy, cuCtxSynchronize, or any synchronous
 * memory call (they all wait for every stream first, as the legacy default
 * stream does).  Nothing runs earlier than CUDA allows, so a program (or a
 * derivative) that reads an async result before synchronizing gets stale
 * bytes, as it could on a GPU, every time.
 *
 * The default streams (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) are one
 * queue here; waiting for it waits for every stream. */
#include "cusim.h"

#include <stdlib.h>
#include <string.h>

struct deferred {
    uintptr_t stream;
    unsigned char *to;
    const unsigned char *from; /* NULL: a memset of `pattern` */
    size_t bytes;              /* a copy's bytes; a memset's elements */
    size_t width;              /* a memset's element size */
    unsigned char pattern[4];
};

static struct deferred *work;
static size_t work_count, work_capacity;
static int defer_mode = -1; /* -1: the environment not read yet */

static uintptr_t queue_of(CUstream stream)
{
    if (stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD)
        return 0;
    return (uintptr_t)stream;
}

bool cusim_defer_async(void)
{
    if (defer_mode < 0) {
        const char *v = getenv("CUDASIM_DEFER_ASYNC");
        defer_mode = v && *v && strcmp(v, "0") != 0;
    }
    return defer_mode == 1;
}

static void run(const struct deferred *d)
{
    if (d->from) {
        memmove(d->to, d->from, d->bytes);
        return;
    }
    for (size_t i = 0; i < d->bytes; i++)
        memcpy(d->to + i * d->width, d->pattern, d->width);
}

static CUresult push(const struct deferred *d)
{
    if (work_count == work_capacity) {
        size_t capacity = work_capacity ? 2 * work_capacity : 64;
        struct deferred *grown = realloc(work, capacity * sizeof *grown);
        if (!grown)
            return CUDA_ERROR_OUT_OF_MEMORY;
        work = grown;
        work_capacity = capacity;
    }
    work[work_count++] = *d;
    return CUDA_SUCCESS;
}

CUresult cusim_defer_copy(CUstream stream, unsigned char *to, const unsigned char *from, size_t bytes)
{
    struct deferred d = {queue_of(stream), to, from, bytes, 1, {0}};
    return push(&d);
}

CUresult cusim_defer_memset(CUstream stream, unsigned char *to, const unsigned char *pattern, size_t width,
                            size_t count)
{
    struct deferred d = {queue_of(stream), to, NULL, count, width, {0}};
    memcpy(d.pattern, pattern, width);
    return push(&d);
}

void cusim_wait_stream(CUstream stream)
{
    uintptr_t q = queue_of(stream);
    if (q == 0) {
        cusim_wait_all();
        return;
    }
    size_t kept = 0;
    for (size_t i = 0; i < work_count; i++) {
        if (work[i].stream == q)
            run(&work[i]);
        else
            work[kept++] = work[i];
    }
    work_count = kept;
}

void cusim_wait_all(void)
{
    for (size_t i = 0; i < work_count; i++)
        run(&work[i]);
    work_count = 0;
}

void cudasim_set_defer_async(int on)
{
    cusim_lock();
    if (!on)
        cusim_wait_all();
    defer_mode = on != 0;
    cusim_unlock();
}

void cusim_queue_clear(void)
{
    free(work);
    work = NULL;
    work_count = work_capacity = 0;
}
