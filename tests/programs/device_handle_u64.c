/* A function that takes a "device handle" as uint64_t, the way CUDA code
 * passes a CUdeviceptr: pure host code here, the handle is a host pointer
 * cast to an integer, dereferenced after casting back. */
#include <stdint.h>

#include "enzyme.h"
#include "tangent_check.h"

typedef uint64_t device_ptr;

void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

/* y[i] = a * x[i] + y[i] on "device" buffers */
void axpy_on_device(device_ptr x_handle, device_ptr y_handle, double a, int n) {
  const double *x = (const double *)(uintptr_t)x_handle;
  double *y = (double *)(uintptr_t)y_handle;
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

#define N 4
int main(void) {
  double x[N] = {1, 2, 3, 4}, dx[N] = {0.5, 0, -1, 2};
  double y[N] = {10, 20, 30, 40}, dy[N] = {1, 1, 1, 1};
  const double a = 3.0, da = -0.5;
  __enzyme_fwddiff_void((void *)axpy_on_device, enzyme_dup, (device_ptr)x,
                        (device_ptr)dx, enzyme_dup, (device_ptr)y,
                        (device_ptr)dy, a, da, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    check_primal_out("y", y[i], a * x[i] + 10.0L * (i + 1));
    check_tangent("dy", dy[i], da * x[i] + a * dx[i] + 1.0L);
  }
  return tc_finish("device_handle_u64");
}
