/* cuda_runtime_api.h: the CUDA runtime API subset that cudasim's
 * libcudart.so.12 implements.
 *
 * A subset compatible with NVIDIA's cuda_runtime_api.h and driver_types.h:
 * the same names, signatures and numeric values (cudaError_t,
 * cudaMemcpyKind), so C programs written for real CUDA compile against it
 * unchanged as long as they stay inside the subset. The runtime initializes
 * itself on first use, as NVIDIA's does. */
#ifndef __CUDA_RUNTIME_API_H__
#define __CUDA_RUNTIME_API_H__

#include <stddef.h>

#define CUDART_VERSION 12000
#define CUDARTAPI

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && defined(__CUDA_API_PUSH_VISIBILITY_DEFAULT)
#pragma GCC visibility push(default)
#endif

/* NVIDIA's current numeric values (CUDA 10.1 and later). */
enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorCudartUnloading = 4,
    cudaErrorInvalidHostPointer = 16,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorDeviceUninitialized = 201,
    cudaErrorOperatingSystem = 304,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorIllegalState = 401,
    cudaErrorSymbolNotFound = 500,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorNotPermitted = 800,
    cudaErrorNotSupported = 801,
    cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

/* The same opaque type as the driver's CUstream, as in NVIDIA's headers. */
typedef struct CUstream_st *cudaStream_t;

#define cudaStreamLegacy      ((cudaStream_t)0x1)
#define cudaStreamPerThread   ((cudaStream_t)0x2)
#define cudaStreamDefault     0x00
#define cudaStreamNonBlocking 0x01

/* cudaMallocManaged flags */
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost   0x02
#define cudaMemAttachSingle 0x04

/* Errors. */
cudaError_t CUDARTAPI cudaGetLastError(void);
cudaError_t CUDARTAPI cudaPeekAtLastError(void);
const char *CUDARTAPI cudaGetErrorString(cudaError_t error);
const char *CUDARTAPI cudaGetErrorName(cudaError_t error);

/* Devices (the simulator has one, ordinal 0). */
cudaError_t CUDARTAPI cudaGetDeviceCount(int *count);
cudaError_t CUDARTAPI cudaSetDevice(int device);
cudaError_t CUDARTAPI cudaGetDevice(int *device);
cudaError_t CUDARTAPI cudaDeviceSynchronize(void);

/* Streams. */
cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *pStream);
cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream);
cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream);

/* Memory. */
cudaError_t CUDARTAPI cudaMalloc(void **devPtr, size_t size);
cudaError_t CUDARTAPI cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream);
cudaError_t CUDARTAPI cudaMallocManaged(void **devPtr, size_t size, unsigned int flags);
cudaError_t CUDARTAPI cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
cudaError_t CUDARTAPI cudaFree(void *devPtr);
cudaError_t CUDARTAPI cudaFreeAsync(void *devPtr, cudaStream_t hStream);
cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size);
cudaError_t CUDARTAPI cudaFreeHost(void *ptr);
cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                      cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemset(void *devPtr, int value, size_t count);
cudaError_t CUDARTAPI cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream);

#if defined(__GNUC__) && defined(__CUDA_API_PUSH_VISIBILITY_DEFAULT)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* __CUDA_RUNTIME_API_H__ */
