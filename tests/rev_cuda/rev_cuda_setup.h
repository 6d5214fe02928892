/*
 * The preamble the reverse-mode CUDA programs share (tests/rev_cuda): a
 * current context through the driver API, the inputs copied into the
 * primal buffer and the finite differences' point with the shadows seeded,
 * and the simulator's counters around the gradient (no device allocation
 * left behind, no CUDA call failed).
 */
#ifndef TANJIT_TESTS_REV_CUDA_SETUP_H
#define TANJIT_TESTS_REV_CUDA_SETUP_H

#include <cudasim.h>

#include "rev_cuda_check.h"

/* x and p from x0, dx seeded (seed_value). */
static RCC_UNUSED void rcs_inputs(const double *x0, double *x, long double *p,
                                  double *dx, int n) {
  for (int i = 0; i < n; i++)
    x[i] = x0[i], p[i] = x0[i];
  seed(dx, n);
}

/* After the gradient: the device allocations it made freed, no CUDA call
 * failed. */
static RCC_UNUSED void rcs_expect_clean(const struct cudasim_counters *before,
                                        const struct cudasim_counters *after) {
  rcc_expect_equal("live device allocations", before->live_allocations,
                   after->live_allocations);
  rcc_expect_equal("failed CUDA calls", before->errors, after->errors);
}

#ifdef CUDA_VERSION /* <cuda.h>: the driver API */
/* Device 0's primary context made current; nonzero when that fails. */
static RCC_UNUSED int rcs_driver_context(void) {
  CUdevice dev;
  CUcontext ctx;
  return cuInit(0) || cuDeviceGet(&dev, 0) ||
         cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx);
}
#endif

#endif
