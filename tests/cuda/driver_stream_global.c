/* A stream kept in a mutable global (CUDA.jl keeps the task's stream in
 * global state), created by main before any derivative is requested: f
 * loads it and passes it to the async copies.  A stream is a handle (the
 * rows' 'h'), so the pointer loaded from the global needs no shadow and
 * the global is not active; before, every derivative trapped on its null
 * shadow.  Forward at width 1 and 2, and reverse.
 *   f(x) = sum_i (i+1) x_i^2        df/dx_j = 2 (j+1) x_j
 * Transfers per call of f: 1 alloc, 1 HtoD, 1 DtoH; a forward derivative
 * repeats each once per lane and zeroes each lane's shadow allocation. */
#include <stdlib.h>

#include <cuda.h>

#include "cuda_check.h"

extern int enzyme_width;
typedef struct {
  double d[2];
} tangent2;
tangent2 __enzyme_fwddiff2(void *, ...) asm("__enzyme_fwddiff");
void __enzyme_autodiff(void *, ...);

static CUstream stream;

double f(const double *x, long n) {
  size_t bytes = (size_t)n * sizeof(double);
  CUdeviceptr d;
  cuMemAlloc(&d, bytes);
  cuMemcpyHtoDAsync(d, x, bytes, stream);
  double *y = malloc(bytes);
  cuMemcpyDtoHAsync(y, d, bytes, stream);
  cuStreamSynchronize(stream);
  cuMemFree(d);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += (double)(i + 1) * y[i] * y[i];
  free(y);
  return s;
}

#define N 3
int main(void) {
  if (cuda_driver_context() || cuStreamCreate(&stream, 0))
    return 100;
  double x[N] = {1.5, -0.5, 2.0}, d[N], d2[N];
  expect("f", 0, f(x, N), 2.25 + 0.5 + 12.0);
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < N; i++)
      d[i] = i == j;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, d, enzyme_const,
                                (long)N);
    expect("df/dx", j, t, 2.0 * (j + 1) * x[j]);
  }
  /* lane 0 along e_0, lane 1 along (1, 1, 1) */
  for (int i = 0; i < N; i++)
    d[i] = i == 0, d2[i] = 1.0;
  tangent2 t2 = __enzyme_fwddiff2((void *)f, enzyme_width, 2, enzyme_dup, x,
                                  d, d2, enzyme_const, (long)N);
  expect("lane 0", 0, t2.d[0], 2.0 * x[0]);
  expect("lane 1", 0, t2.d[1], 2.0 * x[0] + 4.0 * x[1] + 6.0 * x[2]);
  for (int i = 0; i < N; i++)
    d[i] = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, (long)N);
  for (int j = 0; j < N; j++)
    expect("gradient", j, d[j], 2.0 * (j + 1) * x[j]);
  cuStreamDestroy(stream);
  return finish("driver_stream_global");
}
