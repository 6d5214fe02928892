/*
 * The set-up of every CUDA test program on the driver API (tests/cuda,
 * tests/rev_cuda): device 0's primary context made current.  Include
 * <cuda.h> first.
 */
#ifndef TANJIT_TESTS_CUDA_DRIVER_CONTEXT_H
#define TANJIT_TESTS_CUDA_DRIVER_CONTEXT_H

/* 0, or nonzero when a step fails. */
static __attribute__((unused)) int cuda_driver_context(void) {
  CUdevice dev;
  CUcontext ctx;
  return cuInit(0) || cuDeviceGet(&dev, 0) ||
         cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx);
}

#endif
