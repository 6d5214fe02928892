/* Device memory enough for a buffer but not for it and its shadow (the
 * simulator has 1 GiB): the derivative cannot be computed, so the
 * allocation's status reports out-of-memory to the program, which takes
 * its error path, instead of a silent zero tangent.  A small buffer in the
 * same function differentiates normally. */
#include <cuda.h>

#include "cuda_check.h"

static int saw_out_of_memory;

double f(const double *x, size_t bytes) {
  CUdeviceptr a;
  if (cuMemAlloc_v2(&a, bytes) != CUDA_SUCCESS) {
    saw_out_of_memory = 1;
    return 0.0;
  }
  cuMemcpyHtoD_v2(a, x, sizeof(double));
  double y;
  cuMemcpyDtoH_v2(&y, a, sizeof(double));
  cuMemFree_v2(a);
  return y * y;
}

int main(void) {
  if (cuda_driver_context())
    return 100;
  double x = 1.5, dx = 1.0;
  const size_t big = (size_t)640 << 20, small = 64;
  /* the primal alone fits */
  expect("primal fits", 0, f(&x, big), x * x);
  expect("no failure yet", 0, saw_out_of_memory, 0);
  expect("small buffer", 0,
         __enzyme_fwddiff((void *)f, enzyme_dup, &x, &dx, enzyme_const, small), 2 * x);
  expect("no failure with room", 0, saw_out_of_memory, 0);
  /* primal and shadow do not: the program sees the failure */
  expect("tangent on the error path", 0,
         __enzyme_fwddiff((void *)f, enzyme_dup, &x, &dx, enzyme_const, big), 0.0);
  expect("failure reported", 0, saw_out_of_memory, 1);
  return finish("shadow_out_of_memory");
}
