/* stream.c: streams. Work submitted to a stream runs at once, in the
 * calling thread (allowed semantics: an async call may complete before it
 * returns), or under CUDASIM_DEFER_ASYNC=1 waits in queue.c until the
 * stream is synchronized, queried or destroyed.  The
 * default streams (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) are always
 * valid; anything else must be a stream created and not yet destroyed. */
#include "cusim.h"

static struct cusim_handle_set live_streams;

static bool is_default_stream(CUstream stream)
{
    return stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD;
}

CUresult cusim_check_stream(CUstream stream)
{
    if (is_default_stream(stream) || cusim_handle_find(&live_streams, (uintptr_t)stream) >= 0)
        return CUDA_SUCCESS;
    return CUDA_ERROR_INVALID_HANDLE;
}

void cusim_streams_drop_owned_by(uintptr_t context)
{
    for (size_t i = live_streams.count; i-- > 0;)
        if (live_streams.entries[i].owner == context)
            cusim_handle_remove_at(&live_streams, i);
}

void cusim_streams_clear(void)
{
    cusim_handle_set_clear(&live_streams);
}

static CUresult stream_create_locked(CUstream *phStream, unsigned int flags)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!phStream || (flags & ~(unsigned int)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t stream = cusim_handle_next();
    if (!cusim_handle_add(&live_streams, stream, cusim_current_context()))
        return CUDA_ERROR_OUT_OF_MEMORY;
    *phStream = (CUstream)stream;
    return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    CUSIM_LOCKED(stream_create_locked(phStream, Flags));
}

static CUresult stream_destroy_locked(CUstream stream)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    ptrdiff_t index = cusim_handle_find(&live_streams, (uintptr_t)stream);
    if (is_default_stream(stream) || index < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    cusim_wait_stream(stream);
    cusim_handle_remove_at(&live_streams, (size_t)index);
    return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream hStream)
{
    CUSIM_LOCKED(stream_destroy_locked(hStream));
}

CUresult cuStreamDestroy(CUstream hStream)
{
    CUSIM_LOCKED(stream_destroy_locked(hStream));
}

/* Synchronize and query agree: all work on a valid stream has completed
 * (deferred work runs now). */
static CUresult stream_wait_locked(CUstream stream)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = cusim_check_stream(stream)) != CUDA_SUCCESS)
        return r;
    cusim_wait_stream(stream);
    return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream hStream)
{
    CUSIM_LOCKED(stream_wait_locked(hStream));
}

CUresult cuStreamQuery(CUstream hStream)
{
    CUSIM_LOCKED(stream_wait_locked(hStream));
}
