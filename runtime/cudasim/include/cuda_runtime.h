/* cuda_runtime.h: what C programs written for NVIDIA's toolkit include; in
 * the cudasim subset it is the runtime API plus the driver types. */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__

#include "cuda_runtime_api.h"

#endif /* __CUDA_RUNTIME_H__ */
