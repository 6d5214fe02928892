/* Forward mode through allocators reached by function pointers in a
 * mutable global (Enzyme's metamalloc shape, tests/rev/indirect_alloc.c in
 * reverse): the indirect call has no active argument, but its block
 * receives active data, so its result needs a shadow (malloc's, through
 * its direct-call wrapper, or the program's allocator's derivative's).
 * Before, the call was cloned as inactive and the tangents were stored
 * into the primal block itself. */
#include <stdlib.h>

#include "enzyme.h"
#include "tangent_check.h"

typedef void *(*alloc_fn)(unsigned long);

static void *zeroed(unsigned long bytes) { return calloc(1, bytes); }

struct {
  int count;
  alloc_fn alloc[2];
} allocators = {0, {malloc, zeroed}};

__attribute__((noinline)) static void *scratch(int which, unsigned long bytes) {
  return allocators.alloc[which](bytes);
}

static double through_scratch(double x) {
  double *t = scratch(0, 2 * sizeof(double));
  double *u = scratch(1, sizeof(double));
  t[0] = x * x;
  t[1] = sin(x);
  u[0] = t[0] * t[1] + x;
  double r = u[0] * t[1];
  free(t);
  free(u);
  return r;
}

/* (x^2 sin x + x) sin x */
static long double through_scratch_ld(long double x) {
  return (x * x * sinl(x) + x) * sinl(x);
}

int main(void) {
  double x = 0.8;
  long double h = 1e-7L;
  long double want =
      (through_scratch_ld(x + h) - through_scratch_ld(x - h)) / (2 * h);
  check_primal("through_scratch runs", through_scratch(x),
               (double)through_scratch_ld(x));
  check_tangent("malloc and an allocator through pointers in a global",
                __enzyme_fwddiff((void *)through_scratch, x, 1.0), want);
  return tc_finish("indirect_alloc_targets");
}
