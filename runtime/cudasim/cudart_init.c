/* cudart_init.c: the runtime's implicit initialization and its device
 * calls. The first runtime call initializes the driver (once per process);
 * a thread with no live current context gets the device's primary context,
 * retained for it, as NVIDIA's runtime does. Retaining per such thread
 * (not once per process) means driver-API code that releases the primary
 * context cannot leave the runtime without one. */
#include "cudart.h"

#include <pthread.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CUresult init_result = CUDA_ERROR_NOT_INITIALIZED;

static void initialize_driver(void)
{
    init_result = cuInit(0);
}

cudaError_t cudart_ensure_init(void)
{
    pthread_once(&init_once, initialize_driver);
    if (init_result != CUDA_SUCCESS)
        return cudart_record(cudaErrorInitializationError);
    CUcontext current = NULL;
    CUresult r = cuCtxGetCurrent(&current);
    if (r == CUDA_SUCCESS && current == NULL) {
        CUcontext primary = NULL;
        r = cuDevicePrimaryCtxRetain(&primary, 0);
        if (r == CUDA_SUCCESS)
            r = cuCtxSetCurrent(primary);
    }
    return cudart_driver(r);
}

cudaError_t cudaGetDeviceCount(int *count)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    return cudart_driver(cuDeviceGetCount(count));
}

cudaError_t cudaSetDevice(int device)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    return device == 0 ? cudaSuccess : cudart_fail(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDevice(int *device)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    if (!device)
        return cudart_fail(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    return cudart_driver(cuCtxSynchronize());
}
