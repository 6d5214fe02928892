/* cusim_bridge.h: the few libcuda.so.1 internals that libcudart.so.12 uses,
 * so both APIs share one state (one error count, one view of the device
 * address range). Exported from libcuda.so.1 but not part of cudasim.h. */
#ifndef CUSIM_BRIDGE_H
#define CUSIM_BRIDGE_H

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Counts one failed call that never reached the driver API. Takes the lock. */
void cusim_bridge_count_error(void);

/* 1 when [addr, addr+bytes) touches the device reservation (a device address,
 * live or not), 0 when it is wholly host memory. Takes the lock. */
int cusim_bridge_is_device_range(unsigned long long addr, unsigned long long bytes);

/* 1 when [addr, addr+bytes) lies inside one live managed allocation (memory
 * both sides may name), else 0. Takes the lock. */
int cusim_bridge_is_managed_range(unsigned long long addr, unsigned long long bytes);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* CUSIM_BRIDGE_H */
