/* cuMemAlloc into an out-slot picked at run time: the function's own slot,
 * or an enzyme_const one the caller passed (a Julia Ref passed Const).  The
 * shadow of a slot read from such a table may be the slot itself; then no
 * shadow allocation is made there (it would overwrite the primal's device
 * address, which would leak), the device memory is inactive, and the
 * tangent through it is zero, as under Enzyme's run-time activity.
 *   k = 0: own slot, freed inside: f = sum x_i^2, df = 2 sum x_i dx_i
 *   k = 1: const slot, kept for the caller: df = 0
 * No device memory is lost: free memory is the same before and after. */
#include <stdint.h>

#include <cuda.h>

#include "cuda_check.h"

#define N 3

double f(const double *x, CUdeviceptr *cst_slot, int k) {
  CUdeviceptr own = 0;
  CUdeviceptr *slots[2] = {&own, cst_slot};
  CUdeviceptr *slot = slots[k];
  if (cuMemAlloc(slot, N * sizeof(double)) != CUDA_SUCCESS)
    return NAN;
  CUdeviceptr d = *slot;
  double tmp[N];
  cuMemcpyHtoD(d, x, N * sizeof(double));
  cuMemcpyDtoH(tmp, d, N * sizeof(double));
  if (k == 0)
    cuMemFree(d);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += tmp[i] * tmp[i];
  return s;
}

int main(void) {
  CUcontext ctx;
  CUdevice dev;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate(&ctx, 0, dev))
    return 100;
  double x[N] = {1.5, -2, 0.25}, dx[N] = {1, 0.5, -2};
  size_t free0, free1, total;
  cuMemGetInfo(&free0, &total);
  for (int k = 0; k < 2; k++) {
    CUdeviceptr kept = 0;
    double want = 0;
    for (int i = 0; i < N; i++)
      want += 2 * x[i] * dx[i];
    expect("tangent", k,
           __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, &kept,
                            enzyme_const, k),
           k ? 0 : want);
    expect("const slot holds the primal allocation", k,
           k ? cuMemFree(kept) == CUDA_SUCCESS : kept == 0, 1);
  }
  cuMemGetInfo(&free1, &total);
  expect("device memory kept", 0, (double)free1, (double)free0);
  cuCtxDestroy(ctx);
  return finish("driver_const_slot");
}
