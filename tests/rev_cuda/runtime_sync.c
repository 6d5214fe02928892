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

static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  long double r = f(x, N, kind);
  for (int i = 0; i < N; i++)
    r += seed_value(i) * (long double)x[i];
  return r;
}

int main(void) {
  static const int kinds[2] = {cudaMemcpyDeviceToHost, cudaMemcpyDefault};
  for (int k = 0; k < 2; k++) {
    kind = kinds[k];
    double x0[N] = {0.5, -1.25, 2.0, 0.75, -0.5}, x[N], dx[N];
    long double p[N];
    rcs_inputs(x0, x, p, dx, N);
    struct cudasim_counters before, after;
    cudasim_get_counters(&before);
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)N,
                      enzyme_const, kind);
    cudasim_get_counters(&after);
    rcc_check(k ? "runtime_sync (kind Default)" : "runtime_sync (kind DtoH)",
              run, p, dx, N);
    rcs_expect_clean(&before, &after);
  }
  return rcc_result("runtime_sync");
}
