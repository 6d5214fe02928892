/* Runtime API, transfers of mixed bytes (rev_cuda_mixed.h's items) with
 * every kind: cudaMemcpy HostToDevice into cudaMalloc memory, Default
 * (unified addressing decides) into managed memory, DeviceToHost into a
 * host buffer, HostToHost into out; and the same on a stream with
 * cudaMemcpyAsync (HostToDevice at an offset of one item, DeviceToDevice,
 * DeviceToHost).  out = {in0..in4} from the first chain, then its items 1..
 * 4 replaced by the stream's {in0..in3}. */
#include <stdlib.h>

#include <cuda_runtime_api.h>
#include <cudasim.h>

#define RCM_STREAM cudaStream_t
#include "rev_cuda_mixed.h"

double f(const item *in, item *out, cudaStream_t s, long n) {
  size_t bytes = (size_t)n * sizeof(item);
  item *a, *m, *h = malloc(bytes);
  cudaMalloc((void **)&a, bytes);
  cudaMallocManaged((void **)&m, bytes, cudaMemAttachGlobal);
  cudaMemcpy(a, in, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(m, a, bytes, cudaMemcpyDefault);
  cudaMemcpy(h, m, bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(out, h, bytes, cudaMemcpyHostToHost);
  cudaMemcpyAsync(a + 1, in, bytes - sizeof(item), cudaMemcpyHostToDevice, s);
  cudaMemcpyAsync(m, a, bytes, cudaMemcpyDeviceToDevice, s);
  cudaMemcpyAsync(out + 1, m + 1, bytes - sizeof(item), cudaMemcpyDeviceToHost,
                  s);
  cudaStreamSynchronize(s);
  double r = rcm_loss(out, n);
  cudaFree(a);
  cudaFree(m);
  free(h);
  return r;
}

int main(void) {
  cudaStream_t s;
  if (cudaStreamCreate(&s))
    return 100;
  int rc = rcm_main("runtime_mixed", s);
  cudaStreamDestroy(s);
  return rc;
}
