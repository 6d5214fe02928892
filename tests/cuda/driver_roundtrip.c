/* Driver API round trip inside the differentiated function: allocate,
 * host -> device, device -> host, free (cuda.h maps these to the _v2
 * entry points), then a weighted sum of squares on the host.
 *   f(x) = sum_i (i+1) x_i^2      df/dx_j = 2 (j+1) x_j  */
#include <stdlib.h>

#include <cuda.h>

#include "cuda_check.h"

double f(const double *x, long n) {
  size_t bytes = (size_t)n * sizeof(double);
  CUdeviceptr d;
  cuMemAlloc(&d, bytes);
  cuMemcpyHtoD(d, x, bytes);
  double *y = malloc(bytes);
  cuMemcpyDtoH(y, d, bytes);
  cuMemFree(d);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += (double)(i + 1) * y[i] * y[i];
  free(y);
  return s;
}

#define N 4
int main(void) {
  if (cuda_driver_context())
    return 100;
  double x[N] = {0.5, -1.25, 2.0, 3.0}, dx[N];
  expect("f", 0, f(x, N), 0.25 + 2 * 1.5625 + 3 * 4.0 + 4 * 9.0);
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      dx[i] = i == j;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)N);
    expect("df/dx", j, t, 2.0 * (j + 1) * x[j]);
  }
  return finish("driver_roundtrip");
}
