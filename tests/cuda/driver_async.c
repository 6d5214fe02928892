/* Stream-ordered allocation and transfers: cuMemAllocAsync, the _v2
 * async copies, an inactive source on the stream (its shadow region is
 * zeroed with cuMemsetD8Async), cuMemFreeAsync, then a synchronize.
 *   d = [x, c] (c constant);  y = d;  f = sum_i y_i y_{n+i} = sum x_i c_i
 *   df/dx_j = c_j  */
#include <stdlib.h>

#include <cuda.h>

#include "cuda_check.h"

double f(const double *x, const double *c, CUstream s, long n) {
  size_t bytes = (size_t)n * sizeof(double);
  CUdeviceptr d;
  cuMemAllocAsync(&d, 2 * bytes, s);
  cuMemcpyHtoDAsync(d, x, bytes, s);
  cuMemcpyHtoDAsync(d + bytes, c, bytes, s);
  double *y = malloc(2 * bytes);
  cuMemcpyDtoHAsync(y, d, 2 * bytes, s);
  cuMemFreeAsync(d, s);
  cuStreamSynchronize(s);
  double r = 0;
  for (long i = 0; i < n; i++)
    r += y[i] * y[n + i];
  free(y);
  return r;
}

#define N 4
int main(void) {
  CUstream s;
  if (cuda_driver_context() || cuStreamCreate(&s, 0))
    return 100;
  double x[N] = {1, 2, 3, 4}, c[N] = {0.5, -1, 2, 0.25}, d[N];
  expect("f", 0, f(x, c, s, N), 0.5 - 2 + 6 + 1);
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      d[i] = i == j;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, d, enzyme_const, c,
                                enzyme_const, s, enzyme_const, (long)N);
    expect("df/dx", j, t, c[j]);
  }
  cuStreamDestroy(s);
  return finish("driver_async");
}
