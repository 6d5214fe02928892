/* state.c: the simulator's process-wide state: the lock, the initialized
 * flag, the counters, and the cudasim.h queries. Everything is torn down
 * when the library is unloaded, so a dlclose/dlopen cycle starts afresh. */
#include "cusim.h"

#include <pthread.h>
#include <string.h>

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static bool initialized;
struct cudasim_counters cusim_counters;

void cusim_lock(void)
{
    pthread_mutex_lock(&state_lock);
}

void cusim_unlock(void)
{
    pthread_mutex_unlock(&state_lock);
}

CUresult cusim_result(CUresult r)
{
    if (r != CUDA_SUCCESS)
        cusim_counters.errors++;
    return r;
}

CUresult cusim_require_init(void)
{
    return initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

void cusim_mark_initialized(void)
{
    initialized = true;
}

void cudasim_get_counters(struct cudasim_counters *out)
{
    if (!out)
        return;
    cusim_lock();
    *out = cusim_counters;
    cusim_unlock();
}

void cudasim_reset_counters(void)
{
    cusim_lock();
    struct cudasim_counters kept = {
        .live_allocations = cusim_counters.live_allocations,
        .live_bytes = cusim_counters.live_bytes,
    };
    cusim_counters = kept;
    cusim_unlock();
}

int cudasim_is_device_pointer(unsigned long long addr)
{
    cusim_lock();
    unsigned char *view;
    int live = cusim_arena_view((CUdeviceptr)addr, 1, &view) == CUDA_SUCCESS;
    cusim_unlock();
    return live;
}

void cusim_bridge_count_error(void)
{
    cusim_lock();
    cusim_counters.errors++;
    cusim_unlock();
}

int cusim_bridge_is_device_range(unsigned long long addr, unsigned long long bytes)
{
    cusim_lock();
    int device = cusim_arena_overlaps((uintptr_t)addr, (size_t)bytes);
    cusim_unlock();
    return device;
}

int cusim_bridge_is_managed_range(unsigned long long addr, unsigned long long bytes)
{
    cusim_lock();
    int managed = cusim_arena_is_managed((uintptr_t)addr, (size_t)bytes);
    cusim_unlock();
    return managed;
}

__attribute__((destructor)) static void cusim_unload(void)
{
    cusim_lock();
    cusim_streams_clear();
    cusim_contexts_clear();
    cusim_queue_clear();
    cusim_host_blocks_clear();
    cusim_arena_close();
    memset(&cusim_counters, 0, sizeof cusim_counters);
    initialized = false;
    cusim_unlock();
}
