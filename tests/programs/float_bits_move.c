/* Floats carried as their bits through integers, by data movement only (a
 * memcpy to uint64_t, a union, an integer array holding the bits, a
 * choice between two floats' bits, a memcpy between a double array and a
 * uint64_t one, sign-bit masks), and one written back into x as bits: the
 * integers carry the float's tangent.  Forward counterpart of
 * tests/rev/float_bits.c. */
#include "enzyme.h"
#include "tangent_check.h"

#include "../common/float_bits_subject.h"

#define N 5
static const double x0[N] = {0.5, -1.25, 1.5, 0.75, -2.0};
static const double dir[N] = {1.0, -0.5, 0.25, 2.0, 0.75};

static double along(double t, void *ctx) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i] + t * dir[i];
  double r = float_bits(x, N);
  return ctx ? x[0] : r;
}

int main(void) {
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i], dx[i] = dir[i];
  double t = __enzyme_fwddiff((void *)float_bits, enzyme_dup, x, dx,
                              enzyme_const, N);
  check_tangent_fd("result", t, fd_derivative(along, NULL));
  check_tangent_fd("x[0] written as bits", dx[0], fd_derivative(along, x));
  return tc_finish("float_bits_move");
}
