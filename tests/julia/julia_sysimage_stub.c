/*
 * Stands in for a Julia system image in tests/julia/sysimage_decl.ll: it
 * defines a specialization under Julia's mangled name, which the test's IR
 * only declares (tagged "enzyme_math"="log"), as a module compiled against
 * the system image would.  tanjit sees no body, so the tag must supply the
 * derivative.
 *
 * It also stands in for Julia's runtime in tests/julia/gc_objects.ll: the
 * GC entry points of unlowered IR (julia.get_pgcstack, julia.gc_alloc_obj),
 * under those names, with a static arena as the collector.
 */
#include <math.h>
#include <stddef.h>

double julia_log_123(double x);

double julia_log_123(double x) { return log(x); }

static char fake_pgcstack[64];

void *julia_get_pgcstack(void) __asm__("julia.get_pgcstack");
void *julia_gc_alloc_obj(void *ptls, size_t size, void *type)
    __asm__("julia.gc_alloc_obj");

void *julia_get_pgcstack(void) { return fake_pgcstack; }

/* A bump allocator over a static arena stands in for the collector: the
 * objects are never freed explicitly, as under a GC, and nothing leaks. */
static _Alignas(16) unsigned char arena[1 << 16];
static size_t arena_used;

void *julia_gc_alloc_obj(void *ptls, size_t size, void *type) {
  (void)ptls, (void)type;
  size = (size + 15) & ~(size_t)15;
  if (size > sizeof arena - arena_used)
    return NULL;
  void *p = arena + arena_used;
  arena_used += size;
  return p;
}
