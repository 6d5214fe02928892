/* device.c: cuInit and the device queries. The simulator has exactly one
 * device, ordinal 0, whose memory is the arena. cuInit opens the arena;
 * every other driver call except the error-string and version queries
 * fails with CUDA_ERROR_NOT_INITIALIZED until it has run. */
#include "cusim.h"

#include <string.h>

#define DEVICE_NAME "cudasim virtual device"
#define DRIVER_VERSION 12000

static CUresult check_device(CUdevice dev)
{
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult init_locked(unsigned int flags)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = cusim_arena_open();
    if (r == CUDA_SUCCESS)
        cusim_mark_initialized();
    return r;
}

CUresult cuInit(unsigned int Flags)
{
    CUSIM_LOCKED(init_locked(Flags));
}

static CUresult driver_version_locked(int *version)
{
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    *version = DRIVER_VERSION;
    return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *driverVersion)
{
    CUSIM_LOCKED(driver_version_locked(driverVersion));
}

static CUresult device_get_locked(CUdevice *device, int ordinal)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    CUSIM_LOCKED(device_get_locked(device, ordinal));
}

static CUresult device_count_locked(int *count)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count)
{
    CUSIM_LOCKED(device_count_locked(count));
}

static CUresult device_name_locked(char *name, int len, CUdevice dev)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = check_device(dev)) != CUDA_SUCCESS)
        return r;
    size_t room = (size_t)len - 1;
    size_t n = strlen(DEVICE_NAME) < room ? strlen(DEVICE_NAME) : room;
    memcpy(name, DEVICE_NAME, n);
    name[n] = '\0';
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUSIM_LOCKED(device_name_locked(name, len, dev));
}

static CUresult total_mem_locked(size_t *bytes, CUdevice dev)
{
    CUresult r = cusim_require_init();
    if (r != CUDA_SUCCESS)
        return r;
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = check_device(dev)) != CUDA_SUCCESS)
        return r;
    *bytes = cusim_arena_capacity();
    return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUSIM_LOCKED(total_mem_locked(bytes, dev));
}

/* The 32-bit query saturates: the arena is 1 GiB, so it never has to. */
static CUresult total_mem_32_locked(unsigned int *bytes, CUdevice dev)
{
    size_t total = 0;
    CUresult r = total_mem_locked(bytes ? &total : NULL, dev);
    if (r == CUDA_SUCCESS)
        *bytes = total > 0xffffffffu ? 0xffffffffu : (unsigned int)total;
    return r;
}

CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
    CUSIM_LOCKED(total_mem_32_locked(bytes, dev));
}
