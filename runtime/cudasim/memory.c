/* memory.c: allocation and release of device memory (from the arena) and of
 * page-locked host memory (ordinary heap pages here, tracked so a bad or
 * second cuMemFreeHost is an error rather than heap corruption). The async
 * variants validate their stream and then act at once. */
#include "cusim.h"

#include <stdlib.h>

#define HOST_BLOCK_ALIGNMENT ((size_t)4096)

static struct cusim_handle_set host_blocks;

void cusim_host_blocks_clear(void)
{
    for (size_t i = 0; i < host_blocks.count; ++i)
        free((void *)host_blocks.entries[i].handle);
    cusim_handle_set_clear(&host_blocks);
}

static CUresult mem_get_info_locked(size_t *free_bytes, size_t *total_bytes)
{
    CUresult r = cusim_require_init();
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

static CUresult mem_alloc_locked(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = cusim_check_stream(stream)) != CUDA_SUCCESS)
        return r;
    if (!dptr)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = cusim_arena_alloc(bytes, dptr)) != CUDA_SUCCESS)
        return r;
    cusim_counters.allocs++;
    cusim_counters.live_allocations++;
    cusim_counters.live_bytes += bytes;
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

static CUresult mem_free_locked(CUdeviceptr dptr, CUstream stream)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = cusim_check_stream(stream)) != CUDA_SUCCESS)
        return r;
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
    CUresult r = cusim_require_init();
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
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    ptrdiff_t index = cusim_handle_find(&host_blocks, (uintptr_t)p);
    if (p == NULL || index < 0)
        return CUDA_ERROR_INVALID_VALUE;
    cusim_handle_remove_at(&host_blocks, (size_t)index);
    free(p);
    return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void *p)
{
    CUSIM_LOCKED(mem_free_host_locked(p));
}
