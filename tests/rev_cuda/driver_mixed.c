/* Driver API, synchronous, transfers of mixed bytes: an array of structs
 * (a double, an int, padding, a pointer to active memory) staged through
 * device memory (HtoD, DtoD, DtoH) with a run-time length, so the layout
 * repeats per element.  The doubles' adjoints come back through the
 * reverse of each transfer, segment by segment; the pointers' shadows
 * travel with them in the augmented pass (the loss reads through the
 * copied pointers, so w's gradient needs them); the ints, which scale the
 * loss, get no adjoint.  out is seeded too: its doubles are overwritten,
 * so their seeds pass to in's and out's shadow ends zero there. */
#include <stdlib.h>

#include <cuda.h>
#include <cudasim.h>

#define RCM_STREAM CUstream
#include "rev_cuda_mixed.h"

double f(const item *in, item *out, CUstream s, long n) {
  (void)s; /* the synchronous calls */
  size_t bytes = (size_t)n * sizeof(item);
  CUdeviceptr a, b;
  cuMemAlloc(&a, bytes);
  cuMemAlloc(&b, bytes);
  cuMemcpyHtoD(a, in, bytes);
  cuMemcpyDtoD(b, a, bytes);
  cuMemcpyDtoH(out, b, bytes);
  double r = rcm_loss(out, n);
  cuMemFree(a);
  cuMemFree(b);
  return r;
}

int main(void) {
  if (cuda_driver_context())
    return 100;
  return rcm_main("driver_mixed", NULL);
}
