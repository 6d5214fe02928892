/* Driver API allocations of every kind reverse mode shadows: managed
 * memory (cuMemAllocManaged), pitched memory (cuMemAllocPitch: rows at the
 * pitch the call returned), pinned host memory (cuMemAllocHost, its shadow
 * freed by cuMemFreeHost), a device memset of float memory (its shadow
 * zeroed in reverse), a unified cuMemcpy.  x is 2 rows of W. */
#include <stdint.h>
#include <stdlib.h>

#include <cuda.h>
#include <cudasim.h>

#include "rev_cuda_setup.h"

#define W 3
#define H 2
#define N (W * H)
#define D sizeof(double)

double f(double *x, long w, long h) {
  CUdeviceptr p, m;
  size_t pitch;
  cuMemAllocPitch(&p, &pitch, (size_t)w * D, (size_t)h, 8);
  cuMemAllocManaged(&m, (size_t)(w * h) * D, CU_MEM_ATTACH_GLOBAL);
  cuMemsetD8(m, 0, (size_t)(w * h) * D);
  for (long r = 0; r < h; r++)
    cuMemcpyHtoD(p + (size_t)r * pitch, x + r * w, (size_t)w * D);
  /* the rows swapped into managed memory, one element short each */
  for (long r = 0; r < h; r++)
    cuMemcpyDtoD(m + (size_t)((h - 1 - r) * w) * D, p + (size_t)r * pitch + D,
                 (size_t)(w - 1) * D);
  double s = 0;
  double *y;
  cuMemAllocHost((void **)&y, (size_t)(w * h) * D);
  cuMemcpyDtoH(y, m, (size_t)(w * h) * D);
  for (long i = 0; i < w * h; i++)
    s += y[i] * y[i] * (double)(i + 1) + y[i] * x[i];
  /* x[0] <- y[1]^2 through unified addressing (a host destination) */
  y[1] = y[1] * y[1];
  cuMemcpy((CUdeviceptr)(uintptr_t)x, (CUdeviceptr)(uintptr_t)(y + 1), D);
  s += x[0] * x[1];
  cuMemFree(p);
  cuMemFree(m);
  cuMemFreeHost(y);
  return s;
}

RCS_ARRAY_RUN(run, N, f(x, W, H))

static void request(double *x, double *dx) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)W,
                    enzyme_const, (long)H);
}

int main(void) {
  if (cuda_driver_context())
    return 100;
  static const double x0[N] = {0.5, -1.25, 2.0, 0.75, -0.5, 1.5};
  rcs_check_gradient("driver_alloc_kinds", run, x0, N, request, NULL, NULL);
  return rcc_result("driver_alloc_kinds");
}
