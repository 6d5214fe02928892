/* The runtime API: cudaMalloc, cudaMemcpy of every direction, with the
 * cudaMemcpyKind replayed unchanged; an inactive source on a stream (its
 * shadow is zeroed with cudaMemsetAsync) and one copied with
 * cudaMemcpyDefault (zeroed through a zeroed host buffer copied the same
 * way); cudaFree.
 *   a = [x, c];  b = a (device to device);  b[n..] = c again (Default);
 *   y = b;  f = sum_i y_i y_{n+i} = sum x_i c_i     df/dx_j = c_j  */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "cuda_check.h"

double f(const double *x, const double *c, cudaStream_t s, long n) {
  size_t bytes = (size_t)n * sizeof(double);
  double *a, *b;
  cudaMalloc((void **)&a, 2 * bytes);
  cudaMemcpy(a, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpyAsync(a + n, c, bytes, cudaMemcpyHostToDevice, s);
  cudaStreamSynchronize(s);
  cudaMalloc((void **)&b, 2 * bytes);
  cudaMemcpy(b, a, 2 * bytes, cudaMemcpyDeviceToDevice);
  cudaMemcpy(b + n, c, bytes, cudaMemcpyDefault);
  double *y = malloc(2 * bytes);
  cudaMemcpy(y, b, 2 * bytes, cudaMemcpyDeviceToHost);
  cudaFree(a);
  cudaFree(b);
  double r = 0;
  for (long i = 0; i < n; i++)
    r += y[i] * y[n + i];
  free(y);
  return r;
}

#define N 4
int main(void) {
  cudaStream_t s;
  if (cudaSetDevice(0) || cudaStreamCreate(&s))
    return 100;
  double x[N] = {1, -2, 3, 0.5}, c[N] = {2, 0.25, -1, 4}, d[N];
  expect("f", 0, f(x, c, s, N), 2 - 0.5 - 3 + 2);
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      d[i] = i == j;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, d, enzyme_const, c,
                                enzyme_const, s, enzyme_const, (long)N);
    expect("df/dx", j, t, c[j]);
  }
  cudaStreamDestroy(s);
  return finish("runtime_api");
}
