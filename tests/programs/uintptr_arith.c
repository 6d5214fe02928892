/* Pointers laundered through uintptr_t arithmetic (ptrtoint, add, and,
 * inttoptr): the derivative must see that the integer is a pointer to
 * active doubles and do the same arithmetic on the shadow. */
#include <stdint.h>

#include "enzyme.h"
#include "tangent_check.h"

double second_half_norm(double *x, int n) {
  uintptr_t base = (uintptr_t)x;
  uintptr_t half = base + (uintptr_t)(n / 2) * sizeof(double);
  double s = 0.0;
  for (int i = 0; i < n - n / 2; i++) {
    double *p = (double *)(half + (uintptr_t)i * sizeof(double));
    s += *p * *p;
  }
  /* Round-trip through masking with an all-ones mask: still x[0]. */
  double *first = (double *)(base & ~(uintptr_t)0);
  return s + 3.0 * *first;
}

/* The address itself is the argument, as an integer. */
double from_address(uintptr_t addr, int n) {
  const double *v = (const double *)addr;
  double p = 1.0;
  for (int i = 0; i < n; i++)
    p *= v[i];
  return p;
}

#define N 6
int main(void) {
  double x[N] = {1.0, 2.0, -1.5, 0.5, 3.0, -2.0};
  double dx[N] = {0.5, 1.0, 1.0, -2.0, 0.25, 1.0};
  long double want = 3.0L * dx[0];
  for (int i = N / 2; i < N; i++)
    want += 2.0L * x[i] * dx[i];
  check_tangent("ptr->int->ptr", __enzyme_fwddiff((void *)second_half_norm,
                                                  enzyme_dup, x, dx,
                                                  enzyme_const, N),
                want);
  long double prod = 1, dprod = 0;
  for (int i = 0; i < 4; i++)
    prod *= x[i];
  for (int i = 0; i < 4; i++)
    dprod += prod / x[i] * dx[i];
  check_tangent("uintptr argument",
                __enzyme_fwddiff((void *)from_address, enzyme_dup,
                                 (uintptr_t)x, (uintptr_t)dx, enzyme_const, 4),
                dprod);
  return tc_finish("uintptr_arith");
}
