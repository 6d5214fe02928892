/* Managed memory (cuMemAllocManaged) inside the differentiated function:
 * x is staged in with cuMemcpyHtoD, squared in place by host code through
 * the managed address itself, copied out to `out` with cuMemcpyDtoH and
 * read again directly by host code; cuMemFree releases it.  The upper half
 * of the allocation is never written: reading it weighs in its shadow,
 * which must be the zeroed shadow allocation, whatever the device memory
 * held before (main dirties it before every derivative).
 *   m = [x^2, ?];  out = x^2;  f = sum_i (i+1) m_i + c_i ?_i
 *   df/dx_j = 2 (j+1) x_j       dout_i/dx_j = 2 x_i [i == j]
 * Each directional call: 2 managed allocations, 2 htod, 2 dtoh, 1 memset;
 * the width-2 call: 3 allocations, 3 htod, 3 dtoh, 2 memsets. */
#include <math.h>
#include <stdint.h>

#include <cuda.h>

#include "cuda_check.h"

extern int enzyme_width;
typedef struct {
  double d[2];
} tangent2;
tangent2 __enzyme_fwddiff2(void *, ...) asm("__enzyme_fwddiff");

double f(const double *x, double *out, const double *c, long n) {
  size_t bytes = (size_t)n * sizeof(double);
  CUdeviceptr m;
  if (cuMemAllocManaged(&m, 2 * bytes, CU_MEM_ATTACH_GLOBAL) != CUDA_SUCCESS)
    return NAN;
  cuMemcpyHtoD(m, x, bytes);
  double *h = (double *)(uintptr_t)m;
  for (long i = 0; i < n; i++)
    h[i] = h[i] * h[i];
  cuMemcpyDtoH(out, m, bytes);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += (double)(i + 1) * h[i] + c[i] * h[n + i];
  cuMemFree(m);
  return s;
}

/* Leaves a byte pattern (0x41: doubles near 2.3e6) in device memory that
 * the next allocations reuse: chunks smaller than a page, so freeing them
 * gives no page back to the system (which would read zeros again).  On a
 * GPU this is merely a few allocations. */
enum { DIRTY_CHUNKS = 32, DIRTY_BYTES = 2000 };
static void dirty_device_memory(void) {
  CUdeviceptr d[DIRTY_CHUNKS];
  for (int i = 0; i < DIRTY_CHUNKS; i++)
    if (cuMemAlloc(&d[i], DIRTY_BYTES) || cuMemsetD8(d[i], 0x41, DIRTY_BYTES))
      d[i] = 0;
  for (int i = 0; i < DIRTY_CHUNKS; i++)
    if (d[i])
      cuMemFree(d[i]);
}

#define N 3
int main(void) {
  if (cuda_driver_context())
    return 100;
  double x[N] = {0.5, -1.5, 2.0}, c[N] = {1.0, -2.0, 0.5};
  double out[N], dout[N], dx[N], dx2[N], dout2[N];
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      dx[i] = i == j, dout[i] = -7.0;
    dirty_device_memory();
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup, out,
                                dout, enzyme_const, c, enzyme_const, (long)N);
    expect("df/dx", j, t, 2.0 * (j + 1) * x[j]);
    for (int i = 0; i < N; i++) {
      expect("out", i, out[i], x[i] * x[i]);
      expect("dout/dx", N * j + i, dout[i], i == j ? 2.0 * x[i] : 0.0);
    }
  }
  /* two directions at once: lane 0 along (1, 1, 1), lane 1 along x */
  for (int i = 0; i < N; i++)
    dx[i] = 1.0, dx2[i] = x[i], dout[i] = dout2[i] = -7.0;
  dirty_device_memory();
  tangent2 t = __enzyme_fwddiff2((void *)f, enzyme_width, 2, enzyme_dup, x, dx,
                                 dx2, enzyme_dup, out, dout, dout2, enzyme_const,
                                 c, enzyme_const, (long)N);
  double want0 = 0, want1 = 0;
  for (int i = 0; i < N; i++) {
    want0 += 2.0 * (i + 1) * x[i];
    want1 += 2.0 * (i + 1) * x[i] * x[i];
    expect("lane 0 dout", i, dout[i], 2.0 * x[i]);
    expect("lane 1 dout", i, dout2[i], 2.0 * x[i] * x[i]);
  }
  expect("lane 0", 0, t.d[0], want0);
  expect("lane 1", 0, t.d[1], want1);
  return finish("driver_managed");
}
