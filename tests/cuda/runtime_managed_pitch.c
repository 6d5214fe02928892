/* The runtime API's managed and pitched allocations: host code writes
 * 3x into managed memory directly, a device-to-device copy moves it into
 * row 0 of a pitched allocation, x goes into row 1; y gets row 0 back,
 * and the sum reads row 1 back too.  Never-written memory (the upper half
 * of the managed allocation, the padding of row 0) weighs in: its shadow
 * must be zeroed, whatever the memory held before (main dirties it).
 *   y = 3x;  f = sum_i y_i x_i + c_i (m_{n+i} + pad_i) = 3 sum_i x_i^2 + ...
 *   df/dx_j = 6 x_j      dy_i/dx_j = 3 [i == j]
 * Each directional call: 4 allocations, 2 htod (x into row 1), 2 dtod,
 * 6 dtoh (y, row 1, the padding), 2 memsets (cudaMemset). */
#include <math.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"

double f(const double *x, double *y, const double *c, long n) {
  size_t width = (size_t)n * sizeof(double), pitch = 0;
  double *m;
  void *p;
  if (cudaMallocManaged((void **)&m, 2 * width, cudaMemAttachGlobal) != cudaSuccess)
    return NAN;
  if (cudaMallocPitch(&p, &pitch, width, 2) != cudaSuccess) {
    cudaFree(m);
    return NAN;
  }
  for (long i = 0; i < n; i++)
    m[i] = 3.0 * x[i];
  char *row1 = (char *)p + pitch;
  cudaMemcpy(p, m, width, cudaMemcpyDeviceToDevice);
  cudaMemcpy(row1, x, width, cudaMemcpyHostToDevice);
  cudaMemcpy(y, p, width, cudaMemcpyDeviceToHost);
  double *back = malloc(2 * width);
  cudaMemcpy(back, row1, width, cudaMemcpyDeviceToHost);
  cudaMemcpy(back + n, (char *)p + width, width, cudaMemcpyDeviceToHost);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += y[i] * back[i] + c[i] * (m[n + i] + back[n + i]);
  free(back);
  cudaFree(p);
  cudaFree(m);
  return s;
}

/* Leaves a byte pattern (0x41: doubles near 2.3e6) in device memory that
 * the next allocations reuse: chunks smaller than a page, so freeing them
 * gives no page back to the system (which would read zeros again). */
enum { DIRTY_CHUNKS = 32, DIRTY_BYTES = 2000 };
static void dirty_device_memory(void) {
  void *d[DIRTY_CHUNKS];
  for (int i = 0; i < DIRTY_CHUNKS; i++)
    if (cudaMalloc(&d[i], DIRTY_BYTES) || cudaMemset(d[i], 0x41, DIRTY_BYTES))
      d[i] = NULL;
  for (int i = 0; i < DIRTY_CHUNKS; i++)
    cudaFree(d[i]);
}

#define N 3
int main(void) {
  if (cudaSetDevice(0))
    return 100;
  double x[N] = {1.5, -0.5, 2.0}, c[N] = {1.0, 2.0, -1.0};
  double y[N], dy[N], dx[N];
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      dx[i] = i == j, dy[i] = -7.0;
    dirty_device_memory();
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy,
                                enzyme_const, c, enzyme_const, (long)N);
    expect("df/dx", j, t, 6.0 * x[j]);
    for (int i = 0; i < N; i++) {
      expect("y", i, y[i], 3.0 * x[i]);
      expect("dy/dx", N * j + i, dy[i], i == j ? 3.0 : 0.0);
    }
  }
  return finish("runtime_managed_pitch");
}
