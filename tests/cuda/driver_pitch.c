/* Pitched device memory from the driver API, both entry points: the
 * size_t cuMemAllocPitch_v2 and the old cuMemAllocPitch with its 32-bit
 * pitch (declared under __CUDA_API_VERSION_INTERNAL, as in NVIDIA's
 * header; its shadow is zeroed with the 32-bit cuMemsetD8).  Each function
 * stages the ROWS rows of x at their pitch, copies the whole allocation
 * back, padding and a never-written last row included, and weighs those
 * unwritten bytes in too: their shadow must be the zeroed shadow
 * allocation, whatever the memory held before (main dirties it before
 * every derivative).
 *   f = g = sum_{r,i} (r+1) x_{r,i}^2 + 1/2 sum(unwritten doubles)
 *   df/dx_{r,i} = 2 (r+1) x_{r,i}
 * Each directional call of f or g: 2 allocations, 2 ROWS htod, 2 dtoh,
 * 1 memset. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <math.h>
#include <stdlib.h>

#include <cuda.h>

#include "cuda_check.h"

#define ROWS 2

static double weigh(const double *b, size_t stride, long n) {
  double s = 0;
  for (long r = 0; r <= ROWS; r++)
    for (size_t i = 0; i < stride; i++) {
      double v = b[(size_t)r * stride + i];
      s += r < ROWS && (long)i < n ? (double)(r + 1) * v * v : 0.5 * v;
    }
  return s;
}

double f(const double *x, long n) {
  size_t width = (size_t)n * sizeof(double), pitch = 0;
  CUdeviceptr d;
  if (cuMemAllocPitch_v2(&d, &pitch, width, ROWS + 1, sizeof(double)) != CUDA_SUCCESS)
    return NAN;
  for (long r = 0; r < ROWS; r++)
    cuMemcpyHtoD_v2(d + (size_t)r * pitch, x + r * n, width);
  double *b = malloc(pitch * (ROWS + 1));
  cuMemcpyDtoH_v2(b, d, pitch * (ROWS + 1));
  cuMemFree_v2(d);
  double s = weigh(b, pitch / sizeof(double), n);
  free(b);
  return s;
}

double g(const double *x, long n) {
  unsigned int width = (unsigned int)n * sizeof(double), pitch = 0;
  CUdeviceptr d;
  if (cuMemAllocPitch(&d, &pitch, width, ROWS + 1, 16) != CUDA_SUCCESS)
    return NAN;
  for (long r = 0; r < ROWS; r++)
    cuMemcpyHtoD(d + (CUdeviceptr)r * pitch, x + r * n, width);
  double *b = malloc((size_t)pitch * (ROWS + 1));
  cuMemcpyDtoH(b, d, pitch * (ROWS + 1));
  cuMemFree(d);
  double s = weigh(b, pitch / sizeof(double), n);
  free(b);
  return s;
}

/* Leaves a byte pattern (0x41: doubles near 2.3e6) in device memory that
 * the next allocations reuse: chunks smaller than a page, so freeing them
 * gives no page back to the system (which would read zeros again). */
enum { DIRTY_CHUNKS = 32, DIRTY_BYTES = 2000 };
static void dirty_device_memory(void) {
  CUdeviceptr d[DIRTY_CHUNKS];
  for (int i = 0; i < DIRTY_CHUNKS; i++)
    if (cuMemAlloc_v2(&d[i], DIRTY_BYTES) || cuMemsetD8_v2(d[i], 0x41, DIRTY_BYTES))
      d[i] = 0;
  for (int i = 0; i < DIRTY_CHUNKS; i++)
    if (d[i])
      cuMemFree_v2(d[i]);
}

#define N 2
int main(void) {
  if (cuda_driver_context())
    return 100;
  double x[ROWS * N] = {0.5, -1.5, 2.0, 0.25}, dx[ROWS * N];
  for (int j = 0; j < ROWS * N; j++) {
    for (int i = 0; i < ROWS * N; i++)
      dx[i] = i == j;
    dirty_device_memory();
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)N);
    expect("df/dx", j, t, 2.0 * (j / N + 1) * x[j]);
    dirty_device_memory();
    t = __enzyme_fwddiff((void *)g, enzyme_dup, x, dx, enzyme_const, (long)N);
    expect("dg/dx", j, t, 2.0 * (j / N + 1) * x[j]);
  }
  return finish("driver_pitch");
}
