/* cudart_memory.c: runtime allocation, copy and memset, forwarded to the
 * driver API.
 *
 * cudaMemcpy checks its cudaMemcpyKind against the addresses: a kind out of
 * range is cudaErrorInvalidMemcpyDirection; a kind that contradicts the
 * addresses (a device address where it names host memory, or the reverse)
 * is cudaErrorInvalidValue; cudaMemcpyDefault takes the direction from the
 * addresses. Managed memory is both, so it matches any kind. The copy
 * itself is the driver's unified cuMemcpy, which validates the ranges and
 * counts the transfer.
 *
 * As in NVIDIA's runtime: cudaMalloc of 0 bytes gives NULL and succeeds,
 * cudaFree(NULL) and cudaFreeHost(NULL) do nothing; cudaMallocManaged of 0
 * bytes is cudaErrorInvalidValue. cudaMallocPitch is the driver's
 * cuMemAllocPitch (a zero width or height is cudaErrorInvalidValue). */
#include "cudart.h"

#include <stdbool.h>
#include <stdint.h>

enum operand { OPERAND_HOST, OPERAND_DEVICE, OPERAND_ANY };

struct kind_rule {
    enum operand dst;
    enum operand src;
};

/* Indexed by cudaMemcpyKind. */
static const struct kind_rule kind_rules[] = {
    [cudaMemcpyHostToHost] = {OPERAND_HOST, OPERAND_HOST},
    [cudaMemcpyHostToDevice] = {OPERAND_DEVICE, OPERAND_HOST},
    [cudaMemcpyDeviceToHost] = {OPERAND_HOST, OPERAND_DEVICE},
    [cudaMemcpyDeviceToDevice] = {OPERAND_DEVICE, OPERAND_DEVICE},
    [cudaMemcpyDefault] = {OPERAND_ANY, OPERAND_ANY},
};

static bool operand_matches(const void *ptr, enum operand expected)
{
    if (expected == OPERAND_ANY || cusim_bridge_is_managed_range((unsigned long long)(uintptr_t)ptr, 1))
        return true;
    bool device = cusim_bridge_is_device_range((unsigned long long)(uintptr_t)ptr, 1) != 0;
    return device == (expected == OPERAND_DEVICE);
}

static cudaError_t check_kind(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind >= sizeof kind_rules / sizeof kind_rules[0])
        return cudaErrorInvalidMemcpyDirection;
    if (count == 0)
        return cudaSuccess;
    const struct kind_rule *rule = &kind_rules[kind];
    if (!operand_matches(dst, rule->dst) || !operand_matches(src, rule->src))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

static CUdeviceptr as_address(const void *ptr)
{
    return (CUdeviceptr)(uintptr_t)ptr;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    if (!devPtr)
        return cudart_fail(cudaErrorInvalidValue);
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    CUdeviceptr address = 0;
    CUresult r = cuMemAlloc_v2(&address, size);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)address;
    return cudart_driver(r);
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    if (!devPtr)
        return cudart_fail(cudaErrorInvalidValue);
    if (size == 0) {
        *devPtr = NULL;
        return cudart_driver(cuStreamQuery(hStream));
    }
    CUdeviceptr address = 0;
    CUresult r = cuMemAllocAsync(&address, size, hStream);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)address;
    return cudart_driver(r);
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    if (!devPtr)
        return cudart_fail(cudaErrorInvalidValue);
    CUdeviceptr address = 0;
    CUresult r = cuMemAllocManaged(&address, size, flags);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)address;
    return cudart_driver(r);
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    if (!devPtr)
        return cudart_fail(cudaErrorInvalidValue);
    CUdeviceptr address = 0;
    /* the widest element: the runtime has no element size to pass */
    CUresult r = cuMemAllocPitch_v2(&address, pitch, width, height, 16);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)address;
    return cudart_driver(r);
}

cudaError_t cudaFree(void *devPtr)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess || devPtr == NULL)
        return err;
    return cudart_driver(cuMemFree_v2(as_address(devPtr)));
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    if (devPtr == NULL)
        return cudart_driver(cuStreamQuery(hStream));
    return cudart_driver(cuMemFreeAsync(as_address(devPtr), hStream));
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    if (!ptr)
        return cudart_fail(cudaErrorInvalidValue);
    if (size == 0) {
        *ptr = NULL;
        return cudaSuccess;
    }
    return cudart_driver(cuMemAllocHost_v2(ptr, size));
}

cudaError_t cudaFreeHost(void *ptr)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess || ptr == NULL)
        return err;
    return cudart_driver(cuMemFreeHost(ptr));
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    if ((err = check_kind(dst, src, count, kind)) != cudaSuccess)
        return cudart_fail(err);
    return cudart_driver(cuMemcpy(as_address(dst), as_address(src), count));
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    if ((err = check_kind(dst, src, count, kind)) != cudaSuccess)
        return cudart_fail(err);
    return cudart_driver(cuMemcpyAsync(as_address(dst), as_address(src), count, stream));
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    return cudart_driver(cuMemsetD8_v2(as_address(devPtr), (unsigned char)value, count));
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    return cudart_driver(cuMemsetD8Async(as_address(devPtr), (unsigned char)value, count, stream));
}
