/* cudart.h: internals shared by the files of libcudart.so.12, the runtime
 * API simulator. It is a thin layer over the driver API of libcuda.so.1,
 * so both APIs see one device, one arena and one set of counters. */
#ifndef CUDART_H
#define CUDART_H

#define __CUDA_API_PUSH_VISIBILITY_DEFAULT 1

#include "cuda.h"
#include "cuda_runtime_api.h"
#include "cusim_bridge.h"

/* cudart_errors.c */
/* The runtime code for a driver result. */
cudaError_t cudart_from_driver(CUresult r);
/* Makes err the calling thread's last error when it is one; returns err.
 * For results that came from the driver (already counted there). */
cudaError_t cudart_record(cudaError_t err);
/* As cudart_record, for errors found here: also counts them. */
cudaError_t cudart_fail(cudaError_t err);
/* Records the runtime code for a driver result. */
cudaError_t cudart_driver(CUresult r);

/* cudart_init.c */
/* Initializes the driver once and makes the primary context current on the
 * calling thread when it has none, as NVIDIA's runtime does on first use. */
cudaError_t cudart_ensure_init(void);

#endif /* CUDART_H */
