/* The old driver entry points with 32-bit sizes (cuMemAlloc, cuMemcpyHtoD,
 * ...: `unsigned int` byte counts), as code built without cuda.h's _v2
 * mapping calls them.  Their shadow allocation and the zeroing for an
 * inactive source use cuMemsetD8, whose count is 32-bit too.
 *   d = [x, c];  y = d;  f = sum_i x_i^2 c_i     df/dx_j = 2 x_j c_j  */
#define __CUDA_API_VERSION_INTERNAL 1
#include <stdlib.h>

#include <cuda.h>

#include "cuda_check.h"

double f(const double *x, const double *c, int n) {
  unsigned bytes = (unsigned)n * sizeof(double);
  CUdeviceptr d;
  cuMemAlloc(&d, 2 * bytes);
  cuMemcpyHtoD(d, x, bytes);
  cuMemcpyHtoD(d + bytes, c, bytes);
  double *y = malloc(2 * bytes);
  cuMemcpyDtoH(y, d, 2 * bytes);
  cuMemFree(d);
  double r = 0;
  for (int i = 0; i < n; i++)
    r += y[i] * y[i] * y[n + i];
  free(y);
  return r;
}

#define N 3
int main(void) {
  if (cuda_driver_context())
    return 100;
  double x[N] = {1.5, -0.5, 2}, c[N] = {2, 3, -1}, d[N];
  expect("f", 0, f(x, c, N), 4.5 + 0.75 - 4);
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      d[i] = i == j;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, d, enzyme_const, c,
                                enzyme_const, N);
    expect("df/dx", j, t, 2 * x[j] * c[j]);
  }
  return finish("driver_v1");
}
