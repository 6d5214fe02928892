/* cudart_errors.c: runtime error codes: the per-thread last error, the
 * driver-to-runtime code mapping, and cudaGetErrorName/String. Both tables
 * are data, keyed by NVIDIA's numeric values. */
#include "cudart.h"

#include <stddef.h>

static _Thread_local cudaError_t thread_last_error = cudaSuccess;

struct code_mapping {
    CUresult driver;
    cudaError_t runtime;
};

static const struct code_mapping driver_to_runtime[] = {
    {CUDA_SUCCESS, cudaSuccess},
    {CUDA_ERROR_INVALID_VALUE, cudaErrorInvalidValue},
    {CUDA_ERROR_OUT_OF_MEMORY, cudaErrorMemoryAllocation},
    {CUDA_ERROR_NOT_INITIALIZED, cudaErrorInitializationError},
    {CUDA_ERROR_DEINITIALIZED, cudaErrorCudartUnloading},
    {CUDA_ERROR_NO_DEVICE, cudaErrorNoDevice},
    {CUDA_ERROR_INVALID_DEVICE, cudaErrorInvalidDevice},
    {CUDA_ERROR_INVALID_CONTEXT, cudaErrorDeviceUninitialized},
    {CUDA_ERROR_OPERATING_SYSTEM, cudaErrorOperatingSystem},
    {CUDA_ERROR_INVALID_HANDLE, cudaErrorInvalidResourceHandle},
    {CUDA_ERROR_ILLEGAL_STATE, cudaErrorIllegalState},
    {CUDA_ERROR_NOT_FOUND, cudaErrorSymbolNotFound},
    {CUDA_ERROR_NOT_READY, cudaErrorNotReady},
    {CUDA_ERROR_ILLEGAL_ADDRESS, cudaErrorIllegalAddress},
    {CUDA_ERROR_NOT_PERMITTED, cudaErrorNotPermitted},
    {CUDA_ERROR_NOT_SUPPORTED, cudaErrorNotSupported},
};

struct runtime_error_text {
    cudaError_t code;
    const char *name;
    const char *description;
};

static const struct runtime_error_text runtime_errors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized", "invalid device context"},
    {cudaErrorOperatingSystem, "cudaErrorOperatingSystem", "OS call failed or operation not supported on this OS"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorIllegalState, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

#define UNRECOGNIZED_ERROR "unrecognized error code"

cudaError_t cudart_from_driver(CUresult r)
{
    for (size_t i = 0; i < sizeof driver_to_runtime / sizeof driver_to_runtime[0]; ++i)
        if (driver_to_runtime[i].driver == r)
            return driver_to_runtime[i].runtime;
    return cudaErrorUnknown;
}

cudaError_t cudart_record(cudaError_t err)
{
    if (err != cudaSuccess)
        thread_last_error = err;
    return err;
}

cudaError_t cudart_fail(cudaError_t err)
{
    if (err != cudaSuccess)
        cusim_bridge_count_error();
    return cudart_record(err);
}

cudaError_t cudart_driver(CUresult r)
{
    return cudart_record(cudart_from_driver(r));
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t err = thread_last_error;
    thread_last_error = cudaSuccess;
    return err;
}

cudaError_t cudaPeekAtLastError(void)
{
    return thread_last_error;
}

static const struct runtime_error_text *find_runtime_error(cudaError_t code)
{
    for (size_t i = 0; i < sizeof runtime_errors / sizeof runtime_errors[0]; ++i)
        if (runtime_errors[i].code == code)
            return &runtime_errors[i];
    return NULL;
}

const char *cudaGetErrorString(cudaError_t error)
{
    const struct runtime_error_text *entry = find_runtime_error(error);
    return entry ? entry->description : UNRECOGNIZED_ERROR;
}

const char *cudaGetErrorName(cudaError_t error)
{
    const struct runtime_error_text *entry = find_runtime_error(error);
    return entry ? entry->name : UNRECOGNIZED_ERROR;
}
