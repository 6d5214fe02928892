/* memset.c: the cuMemsetD8/D16/D32 family. N counts elements; the
 * destination must be a live device range of N elements, aligned to the
 * element size (CUDA_ERROR_INVALID_VALUE otherwise). Zero elements succeed.
 * Every successful call counts once in `memsets`. */
#include "cusim.h"

#include <string.h>

static CUresult memset_locked(CUdeviceptr dst, unsigned int value, size_t width, size_t count, CUstream stream,
                             bool async)
{
    CUresult r = cusim_require_context();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = cusim_check_stream(stream)) != CUDA_SUCCESS)
        return r;
    if (count > 0) {
        if (dst % width != 0 || count > SIZE_MAX / width)
            return CUDA_ERROR_INVALID_VALUE;
        unsigned char *view;
        if ((r = cusim_arena_view(dst, count * width, &view)) != CUDA_SUCCESS)
            return r;
        /* Store the element's bytes in host order, as the device would. */
        unsigned char pattern[4];
        if (width == 1) {
            pattern[0] = (unsigned char)(value & 0xffu);
        } else if (width == 2) {
            unsigned short narrow = (unsigned short)value;
            memcpy(pattern, &narrow, 2);
        } else {
            memcpy(pattern, &value, 4);
        }
        if (async && cusim_defer_async()) {
            if ((r = cusim_defer_memset(stream, view, pattern, width, count)) != CUDA_SUCCESS)
                return r;
        } else {
            if (!async)
                cusim_wait_all();
            for (size_t i = 0; i < count; ++i)
                memcpy(view + i * width, pattern, width);
        }
    }
    cusim_counters.memsets++;
    return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    CUSIM_LOCKED(memset_locked(dstDevice, uc, 1, N, NULL, false));
}

CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, unsigned int N)
{
    CUSIM_LOCKED(memset_locked(dstDevice, uc, 1, N, NULL, false));
}

CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{
    CUSIM_LOCKED(memset_locked(dstDevice, uc, 1, N, hStream, true));
}

CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
    CUSIM_LOCKED(memset_locked(dstDevice, us, 2, N, NULL, false));
}

CUresult cuMemsetD16(CUdeviceptr dstDevice, unsigned short us, unsigned int N)
{
    CUSIM_LOCKED(memset_locked(dstDevice, us, 2, N, NULL, false));
}

CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
{
    CUSIM_LOCKED(memset_locked(dstDevice, us, 2, N, hStream, true));
}

CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    CUSIM_LOCKED(memset_locked(dstDevice, ui, 4, N, NULL, false));
}

CUresult cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, unsigned int N)
{
    CUSIM_LOCKED(memset_locked(dstDevice, ui, 4, N, NULL, false));
}

CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{
    CUSIM_LOCKED(memset_locked(dstDevice, ui, 4, N, hStream, true));
}
