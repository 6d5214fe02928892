/* Scratch memory from allocators reached through function pointers in a
 * mutable global (Enzyme's metamalloc shape): libc's malloc and a
 * program's own allocator.  The indirect call has no active argument,
 * but its result receives active data, so it needs a shadow: malloc's
 * (through its direct-call wrapper) or the allocator's own derivative's.
 * Before, the call was cloned as inactive and the first active store into
 * the block trapped. */
#include <stdlib.h>

#include "rev_check.h"

typedef void *(*alloc_fn)(unsigned long);

static void *zeroed(unsigned long bytes) { return calloc(1, bytes); }

struct {
  int count;
  alloc_fn alloc[2];
} allocators = {0, {malloc, zeroed}};

__attribute__((noinline)) static void *scratch(int which, unsigned long bytes) {
  return allocators.alloc[which](bytes);
}

static double indirect_alloc(double *x, int n) {
  double *t = scratch(0, n * sizeof(double));
  double *u = scratch(1, n * sizeof(double));
  for (int i = 0; i < n; i++) {
    t[i] = x[i] * x[i];
    u[i] = sin(t[i]) + x[(i + 1) % n];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * u[i];
  free(t);
  free(u);
  return s;
}
RC_ARRAY_TEST(indirect_alloc, 5, 0.5, -1.0, 1.5, 0.75, 2.0)
