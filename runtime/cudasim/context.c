/* context.c: contexts. Created contexts and the device's primary context are
 * opaque handles (handles.c); each thread has its own current context, as
 * in CUDA. Contexts only gate cuCtxSynchronize/cuCtxGetDevice and own
 * streams: memory calls need a current context, as real CUDA's do
 * (CUDA_ERROR_INVALID_CONTEXT without one), and destroying a context
 * leaves its allocations alive. */
#include "cusim.h"

static struct cusim_handle_set created_contexts;
static uintptr_t primary_context;
static unsigned long primary_retains;
static _Thread_local uintptr_t thread_current_context;

static bool context_is_live(uintptr_t ctx)
{
    if (ctx != 0 && ctx == primary_context)
        return primary_retains > 0;
    return cusim_handle_find(&created_contexts, ctx) >= 0;
}

CUresult cusim_require_context(void)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    return cusim_current_context() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

uintptr_t cusim_current_context(void)
{
    return context_is_live(thread_current_context) ? thread_current_context : 0;
}

void cusim_contexts_clear(void)
{
    cusim_handle_set_clear(&created_contexts);
    primary_context = 0;
    primary_retains = 0;
}

static CUresult ctx_create_locked(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx || (flags & ~(unsigned int)CU_CTX_FLAGS_MASK))
        return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    uintptr_t ctx = cusim_handle_next();
    if (!cusim_handle_add(&created_contexts, ctx, (uintptr_t)dev))
        return CUDA_ERROR_OUT_OF_MEMORY;
    thread_current_context = ctx;
    *pctx = (CUcontext)ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    CUSIM_LOCKED(ctx_create_locked(pctx, flags, dev));
}

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    CUSIM_LOCKED(ctx_create_locked(pctx, flags, dev));
}

static CUresult ctx_destroy_locked(CUcontext ctx)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    ptrdiff_t index = cusim_handle_find(&created_contexts, (uintptr_t)ctx);
    if (ctx == NULL || index < 0) /* includes the primary context */
        return CUDA_ERROR_INVALID_CONTEXT;
    cusim_handle_remove_at(&created_contexts, (size_t)index);
    cusim_streams_drop_owned_by((uintptr_t)ctx);
    if (thread_current_context == (uintptr_t)ctx)
        thread_current_context = 0;
    return CUDA_SUCCESS;
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    CUSIM_LOCKED(ctx_destroy_locked(ctx));
}

CUresult cuCtxDestroy(CUcontext ctx)
{
    CUSIM_LOCKED(ctx_destroy_locked(ctx));
}

static CUresult ctx_set_current_locked(CUcontext ctx)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (ctx != NULL && !context_is_live((uintptr_t)ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    thread_current_context = (uintptr_t)ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    CUSIM_LOCKED(ctx_set_current_locked(ctx));
}

static CUresult ctx_get_current_locked(CUcontext *pctx)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = (CUcontext)cusim_current_context();
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    CUSIM_LOCKED(ctx_get_current_locked(pctx));
}

static CUresult ctx_get_device_locked(CUdevice *device)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (!cusim_current_context())
        return CUDA_ERROR_INVALID_CONTEXT;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *device)
{
    CUSIM_LOCKED(ctx_get_device_locked(device));
}

/* Runs whatever async work is deferred (queue.c), after checking there is
 * a context. */
static CUresult ctx_synchronize_locked(void)
{
    CUresult r = cusim_require_context();
    if (r != CUDA_SUCCESS)
        return r;
    cusim_wait_all();
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    CUSIM_LOCKED(ctx_synchronize_locked());
}

static CUresult primary_retain_locked(CUcontext *pctx, CUdevice dev)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!primary_context)
        primary_context = cusim_handle_next();
    primary_retains++;
    *pctx = (CUcontext)primary_context;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUSIM_LOCKED(primary_retain_locked(pctx, dev));
}

static CUresult primary_release_locked(CUdevice dev)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    if (primary_retains == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (--primary_retains == 0)
        cusim_streams_drop_owned_by(primary_context);
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CUSIM_LOCKED(primary_release_locked(dev));
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    CUSIM_LOCKED(primary_release_locked(dev));
}
