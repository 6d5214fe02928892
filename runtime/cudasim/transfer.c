/* transfer.c: the cuMemcpy family. Every variant funnels into copy_locked,
 * which validates both operands, copies through the arena's access view and
 * counts the transfer by direction.
 *
 * Validation, each failure CUDA_ERROR_INVALID_VALUE: a device operand must
 * lie wholly inside one live allocation (so unknown, freed and overrunning
 * addresses are caught); a host operand must be non-NULL and must not touch
 * the device range (the simulator would fault reading it, as the host does)
 * unless it lies wholly inside managed memory, which the host may use.
 * cuMemcpy/cuMemcpyAsync use unified addressing: an operand inside the
 * device range is a device address, any other is a host pointer.
 * A zero-length copy succeeds without looking at its addresses. */
#include "cusim.h"

#include <string.h>

enum side { SIDE_HOST, SIDE_DEVICE, SIDE_UNIFIED };

struct direction_counters {
    unsigned long long *calls;
    unsigned long long *bytes; /* NULL: bytes not counted */
};

/* Indexed [source side][destination side]. */
static const struct direction_counters direction_table[2][2] = {
    [SIDE_HOST][SIDE_HOST] = {&cusim_counters.htoh, NULL},
    [SIDE_HOST][SIDE_DEVICE] = {&cusim_counters.htod, &cusim_counters.bytes_htod},
    [SIDE_DEVICE][SIDE_HOST] = {&cusim_counters.dtoh, &cusim_counters.bytes_dtoh},
    [SIDE_DEVICE][SIDE_DEVICE] = {&cusim_counters.dtod, &cusim_counters.bytes_dtod},
};

static enum side settle_side(uintptr_t addr, enum side side)
{
    if (side != SIDE_UNIFIED)
        return side;
    return cusim_arena_overlaps(addr, 1) ? SIDE_DEVICE : SIDE_HOST;
}

static CUresult locate(uintptr_t addr, enum side side, size_t bytes, unsigned char **where)
{
    if (side == SIDE_DEVICE || cusim_arena_is_managed(addr, bytes))
        return cusim_arena_view((CUdeviceptr)addr, bytes, where);
    if (addr == 0 || addr + bytes < addr || cusim_arena_overlaps(addr, bytes))
        return CUDA_ERROR_INVALID_VALUE;
    *where = (unsigned char *)addr;
    return CUDA_SUCCESS;
}

static CUresult copy_locked(uintptr_t dst, enum side dst_side, uintptr_t src, enum side src_side, size_t bytes,
                            CUstream stream)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = cusim_check_stream(stream)) != CUDA_SUCCESS)
        return r;
    dst_side = settle_side(dst, dst_side);
    src_side = settle_side(src, src_side);
    if (bytes > 0) {
        unsigned char *to, *from;
        if ((r = locate(dst, dst_side, bytes, &to)) != CUDA_SUCCESS)
            return r;
        if ((r = locate(src, src_side, bytes, &from)) != CUDA_SUCCESS)
            return r;
        memmove(to, from, bytes);
    }
    const struct direction_counters *counters = &direction_table[src_side][dst_side];
    (*counters->calls)++;
    if (counters->bytes)
        *counters->bytes += bytes;
    return CUDA_SUCCESS;
}

#define H(p) ((uintptr_t)(p))

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    CUSIM_LOCKED(copy_locked(dst, SIDE_UNIFIED, src, SIDE_UNIFIED, ByteCount, NULL));
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(dst, SIDE_UNIFIED, src, SIDE_UNIFIED, ByteCount, hStream));
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, H(srcHost), SIDE_HOST, ByteCount, NULL));
}

CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, unsigned int ByteCount)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, H(srcHost), SIDE_HOST, ByteCount, NULL));
}

CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    CUSIM_LOCKED(copy_locked(H(dstHost), SIDE_HOST, srcDevice, SIDE_DEVICE, ByteCount, NULL));
}

CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, unsigned int ByteCount)
{
    CUSIM_LOCKED(copy_locked(H(dstHost), SIDE_HOST, srcDevice, SIDE_DEVICE, ByteCount, NULL));
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount, NULL));
}

CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, unsigned int ByteCount)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount, NULL));
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, H(srcHost), SIDE_HOST, ByteCount, hStream));
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, unsigned int ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, H(srcHost), SIDE_HOST, ByteCount, hStream));
}

CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(H(dstHost), SIDE_HOST, srcDevice, SIDE_DEVICE, ByteCount, hStream));
}

CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, unsigned int ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(H(dstHost), SIDE_HOST, srcDevice, SIDE_DEVICE, ByteCount, hStream));
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount, hStream));
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, unsigned int ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount, hStream));
}
