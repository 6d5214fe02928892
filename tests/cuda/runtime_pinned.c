/* Pinned host staging (cudaMallocHost / cudaFreeHost): the shadow is pinned
 * host memory too, zeroed with a plain memset.  3 directions, each: 2 device
 * allocations, 2 htod, 2 dtoh, 1 memset (the device shadow zeroed). */
#include <stdlib.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "cuda_check.h"
double f(const double *x, long n) {
  double *a, *h;
  cudaMalloc((void **)&a, n * 8);
  cudaMallocHost((void **)&h, n * 8);
  cudaMemcpy(a, x, n * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(h, a, n * 8, cudaMemcpyDeviceToHost);
  double s = 0;
  for (long i = 0; i < n; i++) s += (i + 1) * h[i] * h[i];
  cudaFreeHost(h);
  cudaFree(a);
  return s;
}
#define N 3
int main(void) {
  if (cudaSetDevice(0)) return 100;
  double x[N] = {1.5, -2.0, 0.25}, d[N];
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++) d[i] = i == j;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, d, enzyme_const, (long)N);
    expect("pinned", j, t, 2 * (j + 1) * x[j]);
  }
  return finish("runtime_pinned");
}
