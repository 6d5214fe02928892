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
 * A host operand must also be mapped, readable, and for a destination
 * writable, over its whole length: each of its pages is probed without
 * touching it, through process_vm_readv/process_vm_writev on this process,
 * which fail with EFAULT where a plain access would fault (a wild pointer
 * returns CUDA_ERROR_INVALID_VALUE instead of crashing the simulator).  A
 * pointer into the wrong but mapped memory cannot be told apart.
 * A zero-length copy succeeds without looking at its addresses.  An async
 * copy runs at once, or under CUDASIM_DEFER_ASYNC=1 at the next wait for
 * its stream (queue.c); a synchronous one runs after all deferred work. */
#include "cusim.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

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

/* Whether every page of [addr, addr + bytes) can be read (and written back,
 * for a destination): one byte per page goes through the kernel, which
 * reports EFAULT for an unmapped or protected page instead of faulting.
 * The write-back stores the byte just read. */
static int host_range_accessible(uintptr_t addr, size_t bytes, int writable)
{
    enum { BATCH = 64 };
    long page_size = sysconf(_SC_PAGESIZE);
    uintptr_t page = (uintptr_t)(page_size > 0 ? page_size : 4096);
    uintptr_t first = addr & ~(page - 1), last = (addr + bytes - 1) & ~(page - 1);
    uintptr_t p = first;
    for (int done = 0; !done;) {
        unsigned char probe[BATCH];
        struct iovec remote[BATCH];
        int count = 0;
        while (count < BATCH && !done) {
            remote[count].iov_base = (void *)(p < addr ? addr : p);
            remote[count].iov_len = 1;
            count++;
            if (p == last)
                done = 1;
            else
                p += page;
        }
        struct iovec local = {probe, (size_t)count};
        /* where the calls are unavailable (seccomp: EPERM, ENOSYS), the
         * range cannot be judged and is taken as it is */
        ssize_t got = process_vm_readv(getpid(), &local, 1, remote, (unsigned long)count, 0);
        if (got != count)
            return got < 0 && errno != EFAULT;
        if (writable) {
            got = process_vm_writev(getpid(), &local, 1, remote, (unsigned long)count, 0);
            if (got != count)
                return got < 0 && errno != EFAULT;
        }
    }
    return 1;
}

static CUresult locate(uintptr_t addr, enum side side, size_t bytes, int writable, unsigned char **where)
{
    if (side == SIDE_DEVICE || cusim_arena_is_managed(addr, bytes))
        return cusim_arena_view((CUdeviceptr)addr, bytes, where);
    if (addr == 0 || addr + bytes < addr || cusim_arena_overlaps(addr, bytes) ||
        !host_range_accessible(addr, bytes, writable))
        return CUDA_ERROR_INVALID_VALUE;
    *where = (unsigned char *)addr;
    return CUDA_SUCCESS;
}

static CUresult copy_locked(uintptr_t dst, enum side dst_side, uintptr_t src, enum side src_side, size_t bytes,
                            CUstream stream, bool async)
{
    CUresult r = cusim_require_context();
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = cusim_check_stream(stream)) != CUDA_SUCCESS)
        return r;
    dst_side = settle_side(dst, dst_side);
    src_side = settle_side(src, src_side);
    if (bytes > 0) {
        unsigned char *to, *from;
        if ((r = locate(dst, dst_side, bytes, 1, &to)) != CUDA_SUCCESS)
            return r;
        if ((r = locate(src, src_side, bytes, 0, &from)) != CUDA_SUCCESS)
            return r;
        if (async && cusim_defer_async()) {
            if ((r = cusim_defer_copy(stream, to, from, bytes)) != CUDA_SUCCESS)
                return r;
        } else {
            if (!async) /* a synchronous copy waits for every stream */
                cusim_wait_all();
            memmove(to, from, bytes);
        }
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
    CUSIM_LOCKED(copy_locked(dst, SIDE_UNIFIED, src, SIDE_UNIFIED, ByteCount, NULL, false));
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(dst, SIDE_UNIFIED, src, SIDE_UNIFIED, ByteCount, hStream, true));
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, H(srcHost), SIDE_HOST, ByteCount, NULL, false));
}

CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, unsigned int ByteCount)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, H(srcHost), SIDE_HOST, ByteCount, NULL, false));
}

CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    CUSIM_LOCKED(copy_locked(H(dstHost), SIDE_HOST, srcDevice, SIDE_DEVICE, ByteCount, NULL, false));
}

CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, unsigned int ByteCount)
{
    CUSIM_LOCKED(copy_locked(H(dstHost), SIDE_HOST, srcDevice, SIDE_DEVICE, ByteCount, NULL, false));
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount, NULL, false));
}

CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, unsigned int ByteCount)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount, NULL, false));
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, H(srcHost), SIDE_HOST, ByteCount, hStream, true));
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, unsigned int ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, H(srcHost), SIDE_HOST, ByteCount, hStream, true));
}

CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(H(dstHost), SIDE_HOST, srcDevice, SIDE_DEVICE, ByteCount, hStream, true));
}

CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, unsigned int ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(H(dstHost), SIDE_HOST, srcDevice, SIDE_DEVICE, ByteCount, hStream, true));
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount, hStream, true));
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, unsigned int ByteCount, CUstream hStream)
{
    CUSIM_LOCKED(copy_locked(dstDevice, SIDE_DEVICE, srcDevice, SIDE_DEVICE, ByteCount, hStream, true));
}
