/* Exceptions out of a gradient whose augmented pass holds CUDA shadows
 * (C++ with exceptions on): f allocates device memory of two kinds and
 * pinned host memory (each gets a shadow from the API), stages x through
 * them, then a callee may throw.  The caller catches and retries: after
 * each exception the simulator has no more live allocations than before
 * (the gradient's guard freed every shadow aug made; the primal's own
 * buffers are freed by f's handler, which rethrows), and gradients before and after are
 * checked against finite differences. */
#include <stdint.h>
#include <stdlib.h>
#include <stdexcept>

#include <cuda.h>
#include <cudasim.h>

#include "rev_cuda_setup.h"

#define N 4
#define D sizeof(double)

__attribute__((noinline)) static double checked(double v) {
  if (v > 100)
    throw std::range_error("too big");
  return v * v;
}

double f(double *x, long n) {
  CUdeviceptr a, b;
  double *h;
  cuMemAlloc(&a, (size_t)n * D);
  cuMemAlloc_v2(&b, (size_t)n * D);
  cuMemAllocHost((void **)&h, (size_t)n * D);
  cuMemcpyHtoD(a, x, (size_t)n * D);
  cuMemcpyDtoD(b, a, (size_t)n * D);
  cuMemcpyDtoH(h, b, (size_t)n * D);
  double s = 0;
  try {
    for (long i = 0; i < n; i++)
      s += checked(h[i]) * x[(i + 1) % n];
  } catch (...) {
    /* the primal's own buffers; the shadows are the gradient's to free */
    cuMemFree(a);
    cuMemFree_v2(b);
    cuMemFreeHost(h);
    throw;
  }
  cuMemFree(a);
  cuMemFree_v2(b);
  cuMemFreeHost(h);
  return s;
}

RCS_ARRAY_RUN(run, N, f(x, N))

static void request(double *x, double *dx) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)N);
}

static void check_gradient(void) {
  static const double x0[N] = {0.5, -1.25, 2.0, 0.75};
  rcs_check_gradient("driver_throw_eh", run, x0, N, request, NULL, NULL);
}

int main(void) {
  if (cuda_driver_context())
    return 100;
  check_gradient();
  struct cudasim_counters before, after;
  cudasim_get_counters(&before);
  int caught = 0;
  for (int round = 0; round < 20; round++) {
    double x[N] = {0.5, -1.25, 2.0, 0.75}, dx[N] = {0, 0, 0, 0};
    x[round % N] = 500; /* checked throws there */
    try {
      __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)N);
    } catch (const std::range_error &) {
      caught++;
    }
  }
  cudasim_get_counters(&after);
  rcc_expect_equal("exceptions caught", 20, caught);
  rcs_expect_clean(&before, &after);
  check_gradient();
  return rcc_result("driver_throw_eh");
}
