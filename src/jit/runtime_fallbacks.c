/*
 * Entry points a newer compiler calls that an older runtime library lacks,
 * defined here when nothing else defines them.
 *
 * A frontend's IR often comes from a newer clang than the runtime libraries
 * installed beside it (Debian 12 ships clang 19 with libomp 14).  Where the
 * newer call only adds work the older runtime never needed, the older
 * compiler's behaviour, not calling it, is a definition that does nothing;
 * binding the name to that keeps such a program running instead of failing
 * its link with "unresolved external".  Only entries whose absence is
 * exactly that are listed: a missing function with real work to do stays
 * an error.  Likewise a Julia codegen intrinsic that Julia's GC lowering
 * would have replaced by a cast: unlowered IR run here calls it, and no
 * runtime library defines it.
 */
#include <stdint.h>
#include <string.h>

#include "jit/jit.h"

/* clang 19 ends every dynamic or guided `omp for` with it (libomp 18+
 * releases the loop's dispatch buffer there); libomp before 18 recycles
 * the buffer in __kmpc_dispatch_next when the loop's chunks run out, and
 * clang before 18 called nothing here. */
static void omp_dispatch_deinit_noop(void *loc, int32_t gtid) {
  (void)loc;
  (void)gtid;
}

/* julia.pointer_from_objref(obj): the object's address, untracked; Julia's
 * late GC lowering makes it an addrspacecast (address spaces 10 and 11 are
 * the host's pointers).  The differentiation rule (rules/memory.c) needs
 * the call to stay a call until then. */
static void *julia_pointer_from_objref(void *obj) { return obj; }

/* julia.gc_loaded(root, p): p, which root keeps alive; calls the transform
 * did not lower (jit_lower_julia_gc_loaded) come here. */
static void *julia_gc_loaded(void *root, void *p) {
  (void)root;
  return p;
}

typedef void (*entry_point)(void);

static const struct {
  const char *name;
  entry_point definition;
} fallbacks[] = {
    {"__kmpc_dispatch_deinit", (entry_point)omp_dispatch_deinit_noop},
    {"julia.pointer_from_objref", (entry_point)julia_pointer_from_objref},
    {"julia.gc_loaded", (entry_point)julia_gc_loaded},
};

entry_point jit_runtime_fallback(const char *name) {
  for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++)
    if (strcmp(fallbacks[i].name, name) == 0)
      return fallbacks[i].definition;
  return NULL;
}
