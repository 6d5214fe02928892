/*
 * A C program on the CUDA driver API, differentiated in forward mode as it
 * loads: the data of a softplus energy is staged through device memory
 * (allocate, host -> device, device -> device, device -> host, free), and
 * the derivative stages its tangents the same way, on shadow buffers.
 *
 *   E(x) = sum_i w_i log(1 + exp(x_i))      dE/dx_j = w_j / (1 + exp(-x_j))
 *
 * Run it under the GPU-less simulator (or drop -L on a machine with a GPU):
 *   tanjit run samples/cuda_driver/cuda_driver.c -L build/runtime/cudasim \
 *       --lib libcuda.so.1 -Xclang-arg -Iruntime/cudasim/include
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

double energy(const double *x, const double *w, long n) {
  size_t bytes = (size_t)n * sizeof(double);
  CUdeviceptr staged, copy;
  cuMemAlloc(&staged, bytes);
  cuMemAlloc(&copy, bytes);
  cuMemcpyHtoD(staged, x, bytes);
  cuMemcpyDtoD(copy, staged, bytes);
  double *y = malloc(bytes);
  cuMemcpyDtoH(y, copy, bytes);
  cuMemFree(staged);
  cuMemFree(copy);
  double e = 0;
  for (long i = 0; i < n; i++)
    e += w[i] * log1p(exp(y[i]));
  free(y);
  return e;
}

#define N 5
int main(void) {
  CUdevice dev;
  CUcontext ctx;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
      cuCtxSetCurrent(ctx)) {
    puts("CUDA initialisation failed");
    return 2;
  }
  double x[N] = {-1.5, -0.25, 0.0, 0.75, 2.0}, w[N] = {1, 2, 0.5, -1, 3};
  double dx[N];
  printf("E(x) = %.6f, x staged through device memory\n", energy(x, w, N));
  int bad = 0;
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      dx[i] = i == j;
    double t = __enzyme_fwddiff((void *)energy, enzyme_dup, x, dx,
                                enzyme_const, w, enzyme_const, (long)N);
    double want = w[j] / (1 + exp(-x[j]));
    int ok = fabs(t - want) <= 1e-12 * fmax(1, fabs(want));
    bad += !ok;
    printf("  dE/dx[%d] = %10.6f  (analytic %10.6f)%s\n", j, t, want,
           ok ? "" : "  MISMATCH");
  }
  puts(bad ? "FAILED" : "ok: tangents match the analytic values");
  return bad != 0;
}
