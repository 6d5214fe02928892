/* Enzyme ForwardMode/cudamemcpy.cpp, under the simulator: x is staged to
 * the device with cudaMalloc + cudaMemcpy (HostToDevice), back into a host
 * scratch buffer (DeviceToHost), and summed as squares.
 *   f(x) = sum_i x_i^2        f'(x) . dx = 2 x . dx
 * Enzyme's test emulates the device on the host with its own cudaMalloc /
 * cudaMemcpy and counts the transfers; here they are the simulator's
 * libcudart, and its counters show that every transfer is repeated on the
 * shadows: after one request (primal and tangent) two copies each way.
 * The harness (test_cuda.c) checks the totals: 2 requests of (2 alloc, 2
 * htod, 2 dtoh, 1 memset zeroing the shadow allocation). */
#include <stdlib.h>

#include <cuda_runtime_api.h>
#include <cudasim.h>

#include "cuda_check.h"

__attribute__((noinline)) double staged_sum(const double *x, size_t n) {
  void *dev;
  cudaMalloc(&dev, n * sizeof(double));
  cudaMemcpy(dev, x, n * sizeof(double), cudaMemcpyHostToDevice);

  double *scratch = malloc(n * sizeof(double));
  cudaMemcpy(scratch, dev, n * sizeof(double), cudaMemcpyDeviceToHost);

  double res = 0;
  for (size_t i = 0; i < n; i++)
    res += scratch[i] * scratch[i];

  free(scratch);
  cudaFree(dev);
  return res;
}

#define N 4
int main(void) {
  if (cudaSetDevice(0))
    return 100;
  double x[N] = {1.0, 2.0, 3.0, 4.0};
  double dx[N] = {1.0, 0.0, 0.0, 0.0};
  struct cudasim_counters before, after;

  /* d/dx sum(x_i^2) . dx = 2 (x . dx) = 2 */
  cudasim_get_counters(&before);
  double dres = __enzyme_fwddiff((void *)staged_sum, x, dx, (size_t)N);
  cudasim_get_counters(&after);
  expect("dres", 0, dres, 2.0);
  /* both the primal and the shadow are transferred each way */
  expect("htod copies", 0, (double)(after.htod - before.htod), 2.0);
  expect("dtoh copies", 0, (double)(after.dtoh - before.dtoh), 2.0);

  double dx2[N] = {0.0, 1.0, 1.0, 0.0};
  /* 2 (2 + 3) = 10 */
  double dres2 = __enzyme_fwddiff((void *)staged_sum, x, dx2, (size_t)N);
  expect("dres2", 0, dres2, 10.0);
  return finish("runtime_cudamemcpy");
}
