/* A device allocation made by a helper returning the CUdeviceptr as an
 * integer, and a helper doing the transfer: the handle keeps its shadow
 * through both calls.  4 directions, each: 2 alloc, 2 htod, 2 dtoh, 1 memset
 * (the shadow allocation zeroed), 2 frees. */
#include <stdint.h>
#include <stdlib.h>
#include <cuda.h>
#include "cuda_check.h"
__attribute__((noinline)) CUdeviceptr device_alloc(size_t bytes) { CUdeviceptr d; cuMemAlloc(&d, bytes); return d; }
__attribute__((noinline)) void stage(CUdeviceptr dst, const double *x, size_t n) { cuMemcpyHtoD(dst, x, n * sizeof(double)); }
double f(const double *x, long n) {
  CUdeviceptr d = device_alloc(n * sizeof(double));
  stage(d, x, n);
  double *y = malloc(n * sizeof(double));
  cuMemcpyDtoH(y, d, n * sizeof(double));
  cuMemFree(d);
  double s = 0; for (long i = 0; i < n; i++) s += (i + 1) * y[i] * y[i];
  free(y); return s;
}
int main(void) {
  if (cuda_driver_context()) return 100;
  double x[4] = {0.5, -1.25, 2.0, 3.0}, dx[4];
  for (int j = 0; j < 4; j++) { for (int i = 0; i < 4; i++) dx[i] = i == j;
    expect("df", j, __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4L), 2.0 * (j + 1) * x[j]); }
  return finish("driver_alloc_helper");
}
