/* Several device buffers, device-to-device copies, copies at offsets, a
 * unified cuMemcpy into host memory, and an inactive source (the request
 * makes one input constant, so its transfer zeroes the shadow region).
 *   a = x;  b = [x, z] (z copied at offset n, x device-to-device);
 *   y = b;  q = b[1..n-1] through unified cuMemcpy
 *   f = sum_i y_i y_{n+i} + sum_{i<n-1} (i+1) q_i
 *   df/dx_j = z_j + j,   df/dz_j = x_j  */
#include <stdlib.h>

#include <cuda.h>

#include "cuda_check.h"

double f(const double *x, const double *z, long n) {
  size_t bytes = (size_t)n * sizeof(double);
  CUdeviceptr a, b;
  cuMemAlloc(&a, bytes);
  cuMemAlloc(&b, 2 * bytes);
  cuMemcpyHtoD(a, x, bytes);
  cuMemcpyHtoD(b + bytes, z, bytes);
  cuMemcpyDtoD(b, a, bytes);
  double *y = malloc(2 * bytes);
  double *q = malloc(bytes);
  cuMemcpyDtoH(y, b, 2 * bytes);
  cuMemcpy((CUdeviceptr)q, b + sizeof(double), bytes - sizeof(double));
  cuMemFree(a);
  cuMemFree(b);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += y[i] * y[n + i];
  for (long i = 0; i + 1 < n; i++)
    s += (double)(i + 1) * q[i];
  free(y);
  free(q);
  return s;
}

#define N 3
int main(void) {
  if (cuda_driver_context())
    return 100;
  double x[N] = {1.5, -2.0, 0.25}, z[N] = {3.0, 0.5, -4.0}, d[N];
  expect("f", 0, f(x, z, N), 1.5 * 3.0 - 2.0 * 0.5 - 0.25 * 4.0 - 2.0 + 2 * 0.25);
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      d[i] = i == j;
    double tx = __enzyme_fwddiff((void *)f, enzyme_dup, x, d, enzyme_const, z,
                                 enzyme_const, (long)N);
    expect("df/dx", j, tx, z[j] + j);
    double tz = __enzyme_fwddiff((void *)f, enzyme_const, x, enzyme_dup, z, d,
                                 enzyme_const, (long)N);
    expect("df/dz", j, tz, x[j]);
  }
  return finish("driver_copies");
}
