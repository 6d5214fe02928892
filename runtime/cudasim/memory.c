/* memory.c: allocation and release of device memory (from the arena:
 * plain, managed and pitched) and of page-locked host memory (ordinary heap
 * pages here, tracked so a bad or second cuMemFreeHost is an error rather
 * than heap corruption). The async variants validate their stream and then
 * act at once. Managed and pitched memory is freed with cuMemFree like any
 * device allocation. */
#include "cusim.h"

#include <limits.h>
#include <stdlib.h>

#define HOST_BLOCK_ALIGNMENT ((size_t)4096)
/* Rows of pitched allocations start on this boundary, as on devices whose
 * texture alignment is 512 bytes; the allocation itself starts on one. */
#define PITCH_ALIGNMENT ((size_t)512)

static struct cusim_handle_set host_blocks;

void cusim_host_blocks_clear(void)
{
    for (size_t i = 0; i < host_blocks.count; ++i)
        free((void *)host_blocks.entries[i].handle);
    cusim_handle_set_clear(&host_blocks);
}

static CUresult mem_get_info_locked(size_t *free_bytes, size_t *total_bytes)
{
    CUresult r = cusim_require_context();
    if (r != CUDA_SUCCESS)
        return r;
    if (!free_bytes || !total_bytes)
        return CUDA_ERROR_INVALID_VALUE;
    *total_bytes = cusim_arena_capacity();
    *free_bytes = cusim_arena_capacity() - cusim_arena_used();
    return CUDA_SUCCESS;
}

CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
    CUSIM_LOCKED(mem_get_info_locked(free, total));
}

static CUresult mem_get_info_32_locked(unsigned int *free_bytes, unsigned int *total_bytes)
{
    size_t free_wide = 0, total_wide = 0;
    CUresult r = mem_get_info_locked(free_bytes ? &free_wide : NULL, total_bytes ? &total_wide : NULL);
    if (r == CUDA_SUCCESS) {
        *free_bytes = free_wide > 0xffffffffu ? 0xffffffffu : (unsigned int)free_wide;
        *total_bytes = total_wide > 0xffffffffu ? 0xffffffffu : (unsigned int)total_wide;
    }
    return r;
}

CUresult cuMemGetInfo(unsigned int *free, unsigned int *total)
{
    CUSIM_LOCKED(mem_get_info_32_locked(free, total));
}

static void count_allocation(size_t bytes)
{
    cusim_counters.allocs++;
    cusim_counters.live_allocations++;
    cusim_counters.live_bytes += bytes;
}

static CUresult mem_alloc_locked(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
    CUresult r = cusim_require_context();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = cusim_check_stream(stream)) != CUDA_SUCCESS)
        return r;
    if (!dptr)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = cusim_arena_alloc(bytes, 0, dptr)) != CUDA_SUCCESS)
        return r;
    count_allocation(bytes);
    return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    CUSIM_LOCKED(mem_alloc_locked(dptr, bytesize, NULL));
}

CUresult cuMemAlloc(CUdeviceptr *dptr, unsigned int bytesize)
{
    CUSIM_LOCKED(mem_alloc_locked(dptr, bytesize, NULL));
}

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    CUSIM_LOCKED(mem_alloc_locked(dptr, bytesize, hStream));
}

static CUresult mem_alloc_managed_locked(CUdeviceptr *dptr, size_t bytes, unsigned int flags)
{
    CUresult r = cusim_require_context();
    if (r != CUDA_SUCCESS)
        return r;
    /* exactly one attachment; CU_MEM_ATTACH_SINGLE is for streams only */
    if (!dptr || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = cusim_arena_alloc_managed(bytes, dptr)) != CUDA_SUCCESS)
        return r;
    count_allocation(bytes);
    return CUDA_SUCCESS;
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    CUSIM_LOCKED(mem_alloc_managed_locked(dptr, bytesize, flags));
}

/* The pitch limit says how wide the pitch may be for the caller's pPitch
 * type (the old entry point writes an unsigned int). */
static CUresult mem_alloc_pitch_locked(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
                                       unsigned int element_bytes, size_t pitch_limit)
{
    CUresult r = cusim_require_context();
    if (r != CUDA_SUCCESS)
        return r;
    if (!dptr || !pitch || width == 0 || height == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (element_bytes != 4 && element_bytes != 8 && element_bytes != 16)
        return CUDA_ERROR_INVALID_VALUE;
    if (width > pitch_limit - (PITCH_ALIGNMENT - 1))
        return CUDA_ERROR_INVALID_VALUE;
    size_t row = (width + PITCH_ALIGNMENT - 1) / PITCH_ALIGNMENT * PITCH_ALIGNMENT;
    if (height > SIZE_MAX / row)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if ((r = cusim_arena_alloc(row * height, PITCH_ALIGNMENT, dptr)) != CUDA_SUCCESS)
        return r;
    count_allocation(row * height);
    *pitch = row;
    return CUDA_SUCCESS;
}

CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
                            unsigned int ElementSizeBytes)
{
    CUSIM_LOCKED(mem_alloc_pitch_locked(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes, SIZE_MAX));
}

static CUresult mem_alloc_pitch_32_locked(CUdeviceptr *dptr, unsigned int *pitch, unsigned int width,
                                          unsigned int height, unsigned int element_bytes)
{
    size_t wide = 0;
    CUresult r = mem_alloc_pitch_locked(dptr, pitch ? &wide : NULL, width, height, element_bytes, UINT_MAX);
    if (r == CUDA_SUCCESS)
        *pitch = (unsigned int)wide;
    return r;
}

CUresult cuMemAllocPitch(CUdeviceptr *dptr, unsigned int *pPitch, unsigned int WidthInBytes, unsigned int Height,
                         unsigned int ElementSizeBytes)
{
    CUSIM_LOCKED(mem_alloc_pitch_32_locked(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes));
}

static CUresult mem_free_locked(CUdeviceptr dptr, CUstream stream)
{
    CUresult r = cusim_require_context();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = cusim_check_stream(stream)) != CUDA_SUCCESS)
        return r;
    /* deferred work may still use the memory: it runs first */
    cusim_wait_all();
    size_t bytes = 0;
    if ((r = cusim_arena_free(dptr, &bytes)) != CUDA_SUCCESS)
        return r;
    cusim_counters.frees++;
    cusim_counters.live_allocations--;
    cusim_counters.live_bytes -= bytes;
    return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    CUSIM_LOCKED(mem_free_locked(dptr, NULL));
}

CUresult cuMemFree(CUdeviceptr dptr)
{
    CUSIM_LOCKED(mem_free_locked(dptr, NULL));
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    CUSIM_LOCKED(mem_free_locked(dptr, hStream));
}

static CUresult mem_alloc_host_locked(void **pp, size_t bytes)
{
    CUresult r = cusim_require_context();
    if (r != CUDA_SUCCESS)
        return r;
    if (!pp || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    size_t rounded = (bytes + HOST_BLOCK_ALIGNMENT - 1) / HOST_BLOCK_ALIGNMENT * HOST_BLOCK_ALIGNMENT;
    if (rounded < bytes)
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *block = aligned_alloc(HOST_BLOCK_ALIGNMENT, rounded);
    if (!block)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (!cusim_handle_add(&host_blocks, (uintptr_t)block, bytes)) {
        free(block);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *pp = block;
    return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    CUSIM_LOCKED(mem_alloc_host_locked(pp, bytesize));
}

CUresult cuMemAllocHost(void **pp, unsigned int bytesize)
{
    CUSIM_LOCKED(mem_alloc_host_locked(pp, bytesize));
}

static CUresult mem_free_host_locked(void *p)
{
    CUresult r = cusim_require_context();
    if (r != CUDA_SUCCESS)
        return r;
    ptrdiff_t index = cusim_handle_find(&host_blocks, (uintptr_t)p);
    if (p == NULL || index < 0)
        return CUDA_ERROR_INVALID_VALUE;
    cusim_wait_all();
    cusim_handle_remove_at(&host_blocks, (size_t)index);
    free(p);
    return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void *p)
{
    CUSIM_LOCKED(mem_free_host_locked(p));
}
