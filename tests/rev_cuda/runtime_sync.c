/* Runtime API, synchronous: cudaMalloc and cudaMallocPitch, cudaMemcpy
 * with every kind (HostToDevice, DeviceToDevice at offsets, DeviceToHost,
 * HostToHost, Default, and one whose kind only run time knows), a
 * cudaMemset of float memory, cudaFree. */
#include <stdlib.h>

#include <cuda_runtime_api.h>
#include <cudasim.h>

#include "rev_cuda_setup.h"

#define N 5
#define D sizeof(double)

double f(double *x, long n, int kind_back) {
  size_t bytes = (size_t)n * D;
  double *a, *b;
  cudaMalloc((void **)&a, bytes);
  cudaMalloc((void **)&b, 2 * bytes);
  cudaMemcpy(a, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(b + 1, a, bytes, cudaMemcpyDeviceToDevice);   /* b[1..n] = x */
  cudaMemcpy(b + n + 1, a, (size_t)(n - 1) * D, cudaMemcpyDefault);
  /* a pitched row, set to zero, then b[n - 1] (= x[n - 2]) into it */
  double *p;
  size_t pitch;
  cudaMallocPitch((void **)&p, &pitch, 2 * D, 2);
  cudaMemset(p, 0, pitch * 2);
  cudaMemcpy((char *)p + pitch, b + n - 1, D, cudaMemcpyDeviceToDevice);
  cudaMemcpy(b + 1, (char *)p + pitch - D, 2 * D, cudaMemcpyDeviceToDevice);
  /* b[1] = 0 (the padding: zeroed), b[2] = x[n - 2] */
  double *y = malloc(2 * bytes), *z = malloc(2 * bytes);
  cudaMemcpy(y, b + 1, (size_t)(2 * n - 1) * D, cudaMemcpyDeviceToHost);
  cudaMemcpy(z, y, (size_t)(2 * n - 1) * D, cudaMemcpyHostToHost);
  double s = 0;
  for (long i = 0; i < 2 * n - 1; i++)
    s += z[i] * z[(i + 2) % (2 * n - 1)];
  /* x[0..1] <- a[2..3] * 1, through a kind the caller chose */
  cudaMemcpy(x, a + 2, 2 * D, (enum cudaMemcpyKind)kind_back);
  for (long i = 0; i < n; i++)
    s += x[i] * x[i] * (double)(i + 1);
  cudaFree(a);
  cudaFree(b);
  cudaFree(p);
  free(y);
  free(z);
  return s;
}

static int kind;

RCS_ARRAY_RUN(run, N, f(x, N, kind))

static void request(double *x, double *dx) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)N,
                    enzyme_const, kind);
}

int main(void) {
  static const int kinds[2] = {cudaMemcpyDeviceToHost, cudaMemcpyDefault};
  static const double x0[N] = {0.5, -1.25, 2.0, 0.75, -0.5};
  for (int k = 0; k < 2; k++) {
    kind = kinds[k];
    rcs_check_gradient(k ? "runtime_sync (kind Default)"
                         : "runtime_sync (kind DtoH)",
                       run, x0, N, request, NULL, NULL);
  }
  return rcc_result("runtime_sync");
}
