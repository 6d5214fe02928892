/* Device handles as uint64_t (CUdeviceptr-style), the way a CUDA host
 * program keeps them: stored in struct fields and in an array, offset by
 * integer arithmetic, passed to an (inlined) helper that takes the handle
 * as an integer, and only turned into a pointer where it is dereferenced.
 * (A helper kept out of line needs src/ad/fwd/call.c to pass shadows for active
 * integer arguments; see the type-analysis notes in bench/README.md.)  Each
 * integer that is a pointer needs a shadow integer; the counts stored next
 * to them must not get one. */
#include <stdint.h>

#include "enzyme.h"
#include "tangent_check.h"

typedef uint64_t devptr;

struct buffers {
  devptr in;    /* handle of the input */
  uint64_t len; /* element count: an integer, never a pointer */
  devptr out;   /* handle of the output */
};

__attribute__((always_inline)) static inline double load_at(devptr h, uint64_t i) {
  return *(const double *)(uintptr_t)(h + i * sizeof(double));
}

void scale_square(struct buffers *b, double a) {
  devptr slots[2] = {b->in, b->out};
  for (uint64_t i = 0; i < b->len; i++) {
    double v = load_at(slots[0], i);
    double *o = (double *)(uintptr_t)(slots[1] + i * sizeof(double));
    *o = a * v * v;
  }
}

void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

#define N 5
int main(void) {
  double x[N] = {1, -2, 0.5, 3, 1.5}, dx[N] = {0.5, 1, -1, 0.25, 2};
  double y[N] = {0}, dy[N] = {0};
  struct buffers b = {(devptr)(uintptr_t)x, N, (devptr)(uintptr_t)y};
  /* the shadow struct holds the shadow handles; its count is not read */
  struct buffers db = {(devptr)(uintptr_t)dx, 0, (devptr)(uintptr_t)dy};
  const double a = 1.5, da = -0.5;
  __enzyme_fwddiff_void((void *)scale_square, enzyme_dup, &b, &db, a, da);
  for (int i = 0; i < N; i++) {
    check_primal_out("y", y[i], a * x[i] * x[i]);
    check_tangent("dy", dy[i], da * x[i] * x[i] + 2.0L * a * x[i] * dx[i]);
  }
  return tc_finish("device_handle_struct");
}
