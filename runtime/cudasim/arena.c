/* arena.c: simulated device memory.
 *
 * One memfd is the "device DRAM". It is mapped twice:
 *   - the device view, PROT_NONE: the addresses handed out as CUdeviceptr
 *     live here, so host code that dereferences one faults (SIGSEGV), as it
 *     would on a GPU;
 *   - the access view, read/write: the simulator reaches the bytes of device
 *     address A at access_base + (A - device_base).
 * Allocations are carved first-fit from the range and kept in a table sorted
 * by offset; each starts on a 256-byte boundary (CUDA's guarantee) or a
 * coarser one the caller asks for. Freed whole pages are punched out of the
 * memfd so memory returns to the system.
 *
 * Managed (unified) memory is host-addressable at the very address handed
 * out, as on a GPU with unified memory: it takes whole pages of the range,
 * which are made read/write in the device view while it lives and go back
 * to PROT_NONE when it is freed. Whole pages, so that no other allocation
 * shares a page whose protection changes. */
#include "cusim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ARENA_BYTES ((size_t)1 << 30)
#define ALLOCATION_ALIGNMENT ((size_t)256)

struct allocation {
    size_t offset;
    size_t bytes; /* as requested: copies are checked against this */
    size_t span;  /* bytes rounded up to the alignment: what it occupies */
    bool managed; /* its pages are host-accessible in the device view */
};

static struct {
    unsigned char *device_base; /* PROT_NONE */
    unsigned char *access_base; /* read/write, same memfd */
    int fd;
    size_t bytes;
    size_t page;
    size_t used;
    struct allocation *table;
    size_t count;
    size_t capacity;
} arena = {.fd = -1};

static size_t round_up(size_t value, size_t alignment)
{
    return (value + alignment - 1) / alignment * alignment;
}

CUresult cusim_arena_open(void)
{
    if (arena.device_base)
        return CUDA_SUCCESS;
    int fd = memfd_create("cudasim-device-memory", MFD_CLOEXEC);
    if (fd < 0)
        return CUDA_ERROR_OPERATING_SYSTEM;
    if (ftruncate(fd, (off_t)ARENA_BYTES) != 0) {
        close(fd);
        return CUDA_ERROR_OPERATING_SYSTEM;
    }
    void *device = mmap(NULL, ARENA_BYTES, PROT_NONE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (device == MAP_FAILED) {
        close(fd);
        return CUDA_ERROR_OPERATING_SYSTEM;
    }
    void *access = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (access == MAP_FAILED) {
        munmap(device, ARENA_BYTES);
        close(fd);
        return CUDA_ERROR_OPERATING_SYSTEM;
    }
    arena.device_base = device;
    arena.access_base = access;
    arena.fd = fd;
    arena.bytes = ARENA_BYTES;
    arena.page = (size_t)sysconf(_SC_PAGESIZE);
    arena.used = 0;
    return CUDA_SUCCESS;
}

void cusim_arena_close(void)
{
    if (arena.device_base) {
        munmap(arena.device_base, arena.bytes);
        munmap(arena.access_base, arena.bytes);
        close(arena.fd);
    }
    free(arena.table);
    memset(&arena, 0, sizeof arena);
    arena.fd = -1;
}

size_t cusim_arena_capacity(void)
{
    return arena.bytes;
}

size_t cusim_arena_used(void)
{
    return arena.used;
}

bool cusim_arena_overlaps(uintptr_t addr, size_t bytes)
{
    if (!arena.device_base)
        return false;
    uintptr_t begin = (uintptr_t)arena.device_base;
    uintptr_t end = begin + arena.bytes;
    uintptr_t last = bytes == 0 ? addr : addr + (bytes - 1);
    if (last < addr) /* wraps around: certainly reaches the range */
        return true;
    return addr < end && last >= begin;
}

/* Index of the allocation containing offset, or -1. */
static ptrdiff_t find_containing(size_t offset)
{
    size_t low = 0, high = arena.count;
    while (low < high) { /* first allocation that starts after offset */
        size_t mid = low + (high - low) / 2;
        if (arena.table[mid].offset <= offset)
            low = mid + 1;
        else
            high = mid;
    }
    if (low == 0)
        return -1;
    const struct allocation *candidate = &arena.table[low - 1];
    return offset < candidate->offset + candidate->bytes ? (ptrdiff_t)(low - 1) : -1;
}

static CUresult place(size_t bytes, size_t alignment, bool managed, CUdeviceptr *out)
{
    if (bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (bytes > arena.bytes)
        return CUDA_ERROR_OUT_OF_MEMORY;
    size_t span = round_up(bytes, alignment);
    size_t index = 0, start = 0, gap_start = 0;
    for (; index < arena.count; ++index) {
        start = round_up(gap_start, alignment);
        if (start <= arena.table[index].offset && arena.table[index].offset - start >= span)
            break;
        gap_start = arena.table[index].offset + arena.table[index].span;
    }
    if (index == arena.count) {
        start = round_up(gap_start, alignment);
        if (start > arena.bytes || arena.bytes - start < span)
            return CUDA_ERROR_OUT_OF_MEMORY;
    }
    /* Grow the table before changing any protection, so nothing has to be
     * undone when the table cannot grow. */
    if (arena.count == arena.capacity) {
        size_t capacity = arena.capacity ? arena.capacity * 2 : 64;
        struct allocation *table = realloc(arena.table, capacity * sizeof *table);
        if (!table)
            return CUDA_ERROR_OUT_OF_MEMORY;
        arena.table = table;
        arena.capacity = capacity;
    }
    /* Splitting the device view's mapping can hit the process's map limit. */
    if (managed && mprotect(arena.device_base + start, span, PROT_READ | PROT_WRITE) != 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memmove(&arena.table[index + 1], &arena.table[index], (arena.count - index) * sizeof *arena.table);
    arena.table[index] = (struct allocation){.offset = start, .bytes = bytes, .span = span, .managed = managed};
    arena.count++;
    arena.used += span;
    *out = (CUdeviceptr)(uintptr_t)(arena.device_base + start);
    return CUDA_SUCCESS;
}

CUresult cusim_arena_alloc(size_t bytes, size_t alignment, CUdeviceptr *out)
{
    return place(bytes, alignment > ALLOCATION_ALIGNMENT ? alignment : ALLOCATION_ALIGNMENT, false, out);
}

CUresult cusim_arena_alloc_managed(size_t bytes, CUdeviceptr *out)
{
    return place(bytes, arena.page > ALLOCATION_ALIGNMENT ? arena.page : ALLOCATION_ALIGNMENT, true, out);
}

/* Gives the whole pages of a freed span back to the system; the next
 * allocation there reads zeros. Failure only costs memory, so it is ignored. */
static void release_pages(size_t offset, size_t span)
{
    size_t page = arena.page;
    size_t begin = round_up(offset, page);
    size_t end = (offset + span) / page * page;
    if (end > begin)
        (void)fallocate(arena.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)begin, (off_t)(end - begin));
}

CUresult cusim_arena_free(CUdeviceptr addr, size_t *bytes)
{
    if (!cusim_arena_overlaps((uintptr_t)addr, 1))
        return CUDA_ERROR_INVALID_VALUE;
    size_t offset = (size_t)((uintptr_t)addr - (uintptr_t)arena.device_base);
    ptrdiff_t index = find_containing(offset);
    /* An interior pointer or a second free finds no allocation starting here. */
    if (index < 0 || arena.table[index].offset != offset)
        return CUDA_ERROR_INVALID_VALUE;
    struct allocation freed = arena.table[index];
    /* Host code must fault on freed managed memory as on any device address;
     * if the protection cannot be restored, the allocation stays live. */
    if (freed.managed && mprotect(arena.device_base + freed.offset, freed.span, PROT_NONE) != 0)
        return CUDA_ERROR_OPERATING_SYSTEM;
    memmove(&arena.table[index], &arena.table[index + 1], (arena.count - (size_t)index - 1) * sizeof *arena.table);
    arena.count--;
    arena.used -= freed.span;
    release_pages(freed.offset, freed.span);
    *bytes = freed.bytes;
    return CUDA_SUCCESS;
}

CUresult cusim_arena_view(CUdeviceptr addr, size_t bytes, unsigned char **view)
{
    if (!cusim_arena_overlaps((uintptr_t)addr, 1))
        return CUDA_ERROR_INVALID_VALUE;
    size_t offset = (size_t)((uintptr_t)addr - (uintptr_t)arena.device_base);
    ptrdiff_t index = find_containing(offset);
    if (index < 0)
        return CUDA_ERROR_INVALID_VALUE;
    const struct allocation *a = &arena.table[index];
    if (bytes > a->offset + a->bytes - offset) /* runs past the end of its allocation */
        return CUDA_ERROR_INVALID_VALUE;
    *view = arena.access_base + offset;
    return CUDA_SUCCESS;
}

bool cusim_arena_is_managed(uintptr_t addr, size_t bytes)
{
    if (!cusim_arena_overlaps(addr, 1))
        return false;
    size_t offset = (size_t)(addr - (uintptr_t)arena.device_base);
    ptrdiff_t index = find_containing(offset);
    if (index < 0 || !arena.table[index].managed)
        return false;
    const struct allocation *a = &arena.table[index];
    return bytes <= a->offset + a->bytes - offset;
}
