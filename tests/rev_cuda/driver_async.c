/* Driver API on a stream: cuMemAllocAsync, the async copies at offsets
 * (HtoD, DtoD, DtoH), a constant source on the stream, cuMemFreeAsync,
 * one synchronization before the host reads.  Under CUDASIM_DEFER_ASYNC
 * nothing on the stream runs before a synchronization, so a reverse that
 * read its scratch buffers without synchronizing would give wrong
 * numbers. */
#include <stdlib.h>

#include <cuda.h>
#include <cudasim.h>

#include "rev_cuda_setup.h"

#define N 4
#define D sizeof(double)

double f(double *x, const double *c, CUstream s, long n) {
  size_t bytes = (size_t)n * D;
  CUdeviceptr d, e;
  cuMemAllocAsync(&d, 2 * bytes, s);
  cuMemAlloc(&e, 2 * bytes);
  cuMemcpyHtoDAsync(d, x, bytes, s);
  cuMemcpyHtoDAsync(d + bytes, c, bytes, s);
  cuMemcpyDtoDAsync(e + D, d, 2 * bytes - D, s); /* e[1..] = [x, c[0..n-2]] */
  cuMemcpyDtoDAsync(e, d + bytes - D, D, s);     /* e[0] = x[n-1] */
  double *y = malloc(2 * bytes);
  cuMemcpyDtoHAsync(y, e, 2 * bytes, s);
  cuMemFreeAsync(d, s);
  cuStreamSynchronize(s);
  double r = 0;
  for (long i = 0; i < n; i++)
    r += y[i] * y[i + 1] * y[n + i];
  for (long i = 0; i < 2 * n; i++)
    y[i] = y[i] * y[i];
  cuMemcpyHtoDAsync(e, y, 2 * bytes, s);
  cuMemcpyDtoHAsync(x, e + D, bytes, s); /* x <- squares of [x[n-1], x[0..n-2]] */
  cuStreamSynchronize(s);
  for (long i = 0; i < n; i++)
    r += x[i] * (double)(i + 1);
  cuMemFree(e);
  free(y);
  return r;
}

static CUstream stream;
static const double c[N] = {0.5, -1, 2, 0.25};

RCS_ARRAY_RUN(run, N, f(x, c, stream, N))

static void request(double *x, double *dx) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, c,
                    enzyme_const, stream, enzyme_const, (long)N);
}

int main(void) {
  if (cuda_driver_context() || cuStreamCreate(&stream, 0))
    return 100;
  static const double x0[N] = {1, 2, -3, 0.5};
  rcs_check_gradient("driver_async", run, x0, N, request, NULL, NULL);
  cuStreamDestroy(stream);
  return rcc_result("driver_async");
}
