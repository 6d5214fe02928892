/* The runtime API's form of driver_stream_global.c: a cudaStream_t in a
 * mutable global, created by main, loaded by f and passed to
 * cudaMemcpyAsync (its stream a handle, the rows' 'h': no shadow needed).
 * Forward at width 1 and 2, and reverse.
 *   f(x) = sum_i x_i^3              df/dx_j = 3 x_j^2
 * Transfers per call of f: 1 alloc, 1 HtoD, 1 DtoH. */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"

extern int enzyme_width;
typedef struct {
  double d[2];
} tangent2;
tangent2 __enzyme_fwddiff2(void *, ...) asm("__enzyme_fwddiff");
void __enzyme_autodiff(void *, ...);

static cudaStream_t stream;

double f(const double *x, long n) {
  size_t bytes = (size_t)n * sizeof(double);
  double *a;
  cudaMalloc((void **)&a, bytes);
  cudaMemcpyAsync(a, x, bytes, cudaMemcpyHostToDevice, stream);
  double *y = malloc(bytes);
  cudaMemcpyAsync(y, a, bytes, cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  cudaFree(a);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += y[i] * y[i] * y[i];
  free(y);
  return s;
}

#define N 3
int main(void) {
  if (cudaSetDevice(0) || cudaStreamCreate(&stream))
    return 100;
  double x[N] = {1.5, -0.5, 2.0}, d[N], d2[N];
  expect("f", 0, f(x, N), 3.375 - 0.125 + 8.0);
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      d[i] = i == j;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, d, enzyme_const,
                                (long)N);
    expect("df/dx", j, t, 3.0 * x[j] * x[j]);
  }
  /* lane 0 along e_2, lane 1 along x */
  for (int i = 0; i < N; i++)
    d[i] = i == 2, d2[i] = x[i];
  tangent2 t2 = __enzyme_fwddiff2((void *)f, enzyme_width, 2, enzyme_dup, x,
                                  d, d2, enzyme_const, (long)N);
  expect("lane 0", 0, t2.d[0], 3.0 * x[2] * x[2]);
  expect("lane 1", 0, t2.d[1], 3.0 * (3.375 - 0.125 + 8.0));
  for (int i = 0; i < N; i++)
    d[i] = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, (long)N);
  for (int j = 0; j < N; j++)
    expect("gradient", j, d[j], 3.0 * x[j] * x[j]);
  cudaStreamDestroy(stream);
  return finish("runtime_stream_global");
}
