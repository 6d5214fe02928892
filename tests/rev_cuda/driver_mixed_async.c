/* Driver API on a stream, transfers of mixed bytes (rev_cuda_mixed.h's
 * items) that overlap: in goes to a[1..n]; a device-to-device copy moves
 * a[1..n] down onto a[0..n-1] (destination below the source), one item
 * (a constant length: the layout does not repeat) goes from a[0] to a[n],
 * another copy moves a[0..n-1] up onto a[1..n] (destination above), and
 * out receives a[0..n-1] = {in0, in0, in1, in2, in3}: in0 twice, in4
 * dropped.  Under CUDASIM_DEFER_ASYNC nothing on the stream runs before a
 * synchronization, so a reverse that read a staging buffer too early
 * would give wrong numbers. */
#include <stdlib.h>

#include <cuda.h>
#include <cudasim.h>

#define RCM_STREAM CUstream
#include "rev_cuda_mixed.h"

#define I sizeof(item)

double f(const item *in, item *out, CUstream s, long n) {
  size_t bytes = (size_t)n * I;
  CUdeviceptr a;
  cuMemAlloc(&a, bytes + I);
  cuMemcpyHtoDAsync(a + I, in, bytes, s);
  cuMemcpyDtoDAsync(a, a + I, bytes, s);
  cuMemcpyDtoDAsync(a + bytes, a, I, s);
  cuMemcpyDtoDAsync(a + I, a, bytes, s);
  cuMemcpyDtoHAsync(out, a, bytes, s);
  cuStreamSynchronize(s);
  double r = rcm_loss(out, n);
  cuMemFree(a);
  return r;
}

int main(void) {
  CUstream s;
  if (cuda_driver_context() || cuStreamCreate(&s, 0))
    return 100;
  int rc = rcm_main("driver_mixed_async", s);
  cuStreamDestroy(s);
  return rc;
}
