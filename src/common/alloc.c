/* tanjit's allocator: malloc and friends behind a countdown fault hook. */
#include "common/alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static atomic_ulong allocations;   /* counted since the hook was set */
static atomic_ulong fail_at;       /* 0: no fault */
static atomic_int fail_persistent;
static atomic_ulong faults;

/* 1 if this allocation is the one (or one of those) the test wants to
 * fail.  One relaxed load when no test set the hook. */
static int injected_failure(void) {
  unsigned long n = atomic_fetch_add_explicit(&allocations, 1,
                                              memory_order_relaxed) + 1;
  unsigned long at = atomic_load_explicit(&fail_at, memory_order_relaxed);
  if (at == 0 || n < at ||
      (n > at && !atomic_load_explicit(&fail_persistent, memory_order_relaxed)))
    return 0;
  atomic_fetch_add_explicit(&faults, 1, memory_order_relaxed);
  return 1;
}

void *tj_malloc(size_t n) { return injected_failure() ? NULL : malloc(n); }

void *tj_calloc(size_t count, size_t size) {
  return injected_failure() ? NULL : calloc(count, size);
}

/* A failed realloc leaves p allocated, as realloc does. */
void *tj_realloc(void *p, size_t n) {
  return injected_failure() ? NULL : realloc(p, n);
}

void tj_free(void *p) { free(p); }

void *tj_grow(void *p, size_t *cap, size_t need, size_t size, size_t first) {
  if (need <= *cap)
    return p;
  size_t n = *cap ? *cap : first;
  while (n < need) {
    if (n > SIZE_MAX / 2)
      return NULL;
    n *= 2;
  }
  if (size && n > SIZE_MAX / size)
    return NULL;
  void *g = tj_realloc(p, n * size);
  if (g)
    *cap = n;
  return g;
}

void tj_alloc_fail_at(unsigned long n, int persistent) {
  atomic_store(&fail_at, 0);
  atomic_store(&allocations, 0);
  atomic_store(&faults, 0);
  atomic_store(&fail_persistent, persistent != 0);
  atomic_store(&fail_at, n);
}

unsigned long tj_alloc_count(void) { return atomic_load(&allocations); }

unsigned long tj_alloc_faults(void) { return atomic_load(&faults); }
