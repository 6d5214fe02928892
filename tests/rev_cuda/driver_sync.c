/* Driver API, synchronous: data staged through two device buffers at
 * offsets (HtoD, DtoD both ways round, DtoH), a nonlinear host step, the
 * result sent back and part of it copied into x itself (x is overwritten
 * in place: its seed is the adjoint of its final value).  Allocations and
 * frees inside the differentiated function. */
#include <stdlib.h>

#include <cuda.h>
#include <cudasim.h>

#include "rev_cuda_setup.h"

#define N 6
#define D sizeof(double)

double f(double *x, long n) {
  size_t bytes = (size_t)n * D;
  CUdeviceptr a, b;
  cuMemAlloc(&a, bytes);
  cuMemAlloc(&b, bytes);
  cuMemcpyHtoD(a, x, bytes);                       /* a = x */
  cuMemcpyDtoD(b, a + 2 * D, (size_t)(n - 2) * D); /* b[0..n-3] = x[2..] */
  cuMemcpyDtoD(b + (size_t)(n - 2) * D, a, 2 * D); /* b[n-2..] = x[0..1] */
  double *y = malloc(bytes);
  cuMemcpyDtoH(y, b, bytes);
  for (long i = 0; i < n; i++)
    y[i] = y[i] * x[i] + 0.5 * y[i] * y[i];
  cuMemcpyHtoD(a + D, y, 3 * D); /* a[1..3] = y[0..2] */
  cuMemcpyDtoH(x + 1, a, 2 * D); /* x[1..2] = {x0, y0} */
  double s = 0;
  for (long i = 0; i < n; i++)
    s += (double)(i + 1) * y[i] * x[i];
  cuMemFree(a);
  cuMemFree(b);
  free(y);
  return s;
}

RCS_ARRAY_RUN(run, N, f(x, N))

static void request(double *x, double *dx) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)N);
}

int main(void) {
  if (cuda_driver_context())
    return 100;
  static const double x0[N] = {0.5, -1.25, 2.0, 0.75, -0.5, 1.5};
  struct cudasim_counters before, after;
  rcs_check_gradient("driver_sync", run, x0, N, request, &before, &after);
  /* 2 primal and 2 shadow allocations */
  rcc_expect_equal("allocations", before.allocs + 4, after.allocs);
  return rcc_result("driver_sync");
}
