/* Runtime API on a stream: cudaMallocManaged and cudaMalloc, then
 * cudaMemcpyAsync at offsets in every direction the kinds name, with a
 * cudaStreamSynchronize before the host reads. */
#include <stdlib.h>

#include <cuda_runtime_api.h>
#include <cudasim.h>

#include "rev_cuda_setup.h"

#define N 4
#define D sizeof(double)

double f(double *x, cudaStream_t s, long n) {
  size_t bytes = (size_t)n * D;
  double *a, *m;
  cudaMalloc((void **)&a, bytes);
  cudaMallocManaged((void **)&m, 2 * bytes, cudaMemAttachGlobal);
  cudaMemcpyAsync(a, x, bytes, cudaMemcpyHostToDevice, s);
  cudaMemcpyAsync(m + 1, a, bytes, cudaMemcpyDeviceToDevice, s);
  cudaMemcpyAsync(m + n + 1, a + 1, (size_t)(n - 1) * D, cudaMemcpyDefault, s);
  double *y = malloc(2 * bytes);
  cudaMemcpyAsync(y, m + 1, (size_t)(2 * n - 1) * D, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  double r = 0;
  for (long i = 0; i + 1 < 2 * n - 1; i++)
    r += y[i] * y[i] * y[i + 1];
  cudaMemcpyAsync(a, y + 2, bytes, cudaMemcpyHostToDevice, s);
  cudaMemcpyAsync(x, a + 1, 2 * D, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  r += x[0] * x[1] + x[2];
  cudaFree(a);
  cudaFree(m);
  free(y);
  return r;
}

static cudaStream_t stream;

RCS_ARRAY_RUN(run, N, f(x, stream, N))

static void request(double *x, double *dx) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, stream,
                    enzyme_const, (long)N);
}

int main(void) {
  if (cudaStreamCreate(&stream))
    return 100;
  static const double x0[N] = {0.75, -1.5, 2.0, 1.25};
  rcs_check_gradient("runtime_async", run, x0, N, request, NULL, NULL);
  cudaStreamDestroy(stream);
  return rcc_result("runtime_async");
}
