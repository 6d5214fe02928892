/* Helpers that allocate and return the buffer, as a pointer or as an
 * integer (uintptr_t): the caller fills it with active data and reads it
 * back, so the helper's derivative must return a shadow allocation. */
#include <stdint.h>
#include <stdlib.h>

#include "enzyme.h"
#include "tangent_check.h"

__attribute__((noinline)) double *make_buffer(int n) {
  return malloc((size_t)n * sizeof(double));
}
__attribute__((noinline)) uintptr_t make_handle(int n) {
  return (uintptr_t)malloc((size_t)n * sizeof(double));
}

/* sum_i (i+1) x_i^2 through a buffer from make_buffer */
double via_pointer(const double *x, int n) {
  double *b = make_buffer(n);
  for (int i = 0; i < n; i++)
    b[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1.0) * b[i];
  free(b);
  return s;
}

/* the same through make_handle */
double via_handle(const double *x, int n) {
  double *b = (double *)make_handle(n);
  for (int i = 0; i < n; i++)
    b[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1.0) * b[i];
  free(b);
  return s;
}

#define N 4
int main(void) {
  double x[N] = {0.5, -1.25, 2.0, 1.5}, dx[N] = {1.0, 0.5, -2.0, 0.25};
  long double want = 0;
  for (int i = 0; i < N; i++)
    want += 2.0L * (i + 1) * x[i] * dx[i];
  check_primal("via_pointer", via_pointer(x, N), 0.25 + 2 * 1.5625 + 12 + 9);
  check_tangent("via_pointer", __enzyme_fwddiff((void *)via_pointer, enzyme_dup,
                                                x, dx, enzyme_const, N),
                want);
  check_tangent("via_handle", __enzyme_fwddiff((void *)via_handle, enzyme_dup,
                                               x, dx, enzyme_const, N),
                want);
  return tc_finish("intptr_alloc_helper");
}
