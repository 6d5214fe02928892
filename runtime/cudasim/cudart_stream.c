/* cudart_stream.c: runtime streams, the driver's streams under another
 * name (cudaStream_t and CUstream are one type). */
#include "cudart.h"

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    return cudart_driver(cuStreamCreate(pStream, flags));
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    return cudaStreamCreateWithFlags(pStream, cudaStreamDefault);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    return cudart_driver(cuStreamDestroy_v2(stream));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    cudaError_t err = cudart_ensure_init();
    if (err != cudaSuccess)
        return err;
    return cudart_driver(cuStreamSynchronize(stream));
}
