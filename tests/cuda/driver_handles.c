/* Device handles (CUdeviceptr, a 64-bit integer) passed to helpers that do
 * the transfers, the way a frontend splits staging code into functions:
 * the helpers' derivatives take the handle's shadow (the shadow device
 * allocation, as an integer) and repeat each transfer on it.  One helper
 * returns a handle (an offset into the allocation) as an integer, and one
 * reads the handle from a struct passed by pointer.
 *   f(x) = sum_i (i+1) x_i^2        df/dx_j = 2 (j+1) x_j
 *   g(x) = sum_i x_i^3              dg/dx_j = 3 x_j^2
 * Transfers per call of f: 1 alloc, 1 HtoD, 2 DtoH; of g: 1 alloc, 1 HtoD,
 * 1 DtoH.  A derivative doubles each and zeroes the shadow allocation once
 * (test_cuda.c holds the counts). */
#include <stdint.h>
#include <stdlib.h>

#include <cuda.h>

#include "cuda_check.h"

__attribute__((noinline)) void stage(CUdeviceptr dst, const double *x,
                                     size_t n) {
  cuMemcpyHtoD(dst, x, n * sizeof(double));
}

__attribute__((noinline)) void fetch(double *y, CUdeviceptr src, size_t n) {
  cuMemcpyDtoH(y, src, n * sizeof(double));
}

/* the handle of element i: integer arithmetic on a device pointer */
__attribute__((noinline)) CUdeviceptr element(CUdeviceptr base, size_t i) {
  return base + i * sizeof(double);
}

struct device_view {
  CUdeviceptr data;
  size_t count;
};

__attribute__((noinline)) void fetch_view(double *y,
                                          const struct device_view *v) {
  cuMemcpyDtoH(y, v->data, v->count * sizeof(double));
}

double f(const double *x, long n) {
  size_t bytes = (size_t)n * sizeof(double);
  CUdeviceptr d;
  cuMemAlloc(&d, bytes);
  stage(d, x, (size_t)n);
  double *y = malloc(bytes);
  size_t half = (size_t)n / 2;
  fetch(y, d, half);
  fetch(y + half, element(d, half), (size_t)n - half);
  cuMemFree(d);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += (double)(i + 1) * y[i] * y[i];
  free(y);
  return s;
}

double g(const double *x, long n) {
  struct device_view v = {0, (size_t)n};
  cuMemAlloc(&v.data, v.count * sizeof(double));
  stage(v.data, x, v.count);
  double *y = malloc(v.count * sizeof(double));
  fetch_view(y, &v);
  cuMemFree(v.data);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += y[i] * y[i] * y[i];
  free(y);
  return s;
}

#define N 4
int main(void) {
  if (cuda_driver_context())
    return 100;
  double x[N] = {0.5, -1.25, 2.0, 3.0}, dx[N];
  expect("f", 0, f(x, N), 0.25 + 2 * 1.5625 + 3 * 4.0 + 4 * 9.0);
  expect("g", 0, g(x, N), 0.125 - 1.953125 + 8.0 + 27.0);
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      dx[i] = i == j;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const,
                                (long)N);
    expect("df/dx", j, t, 2.0 * (j + 1) * x[j]);
    t = __enzyme_fwddiff((void *)g, enzyme_dup, x, dx, enzyme_const, (long)N);
    expect("dg/dx", j, t, 3.0 * x[j] * x[j]);
  }
  return finish("driver_handles");
}
