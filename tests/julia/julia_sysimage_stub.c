/*
 * Stands in for a Julia system image in tests/julia/sysimage_decl.ll: it
 * defines a specialization under Julia's mangled name, which the test's IR
 * only declares (tagged "enzyme_math"="log"), as a module compiled against
 * the system image would.  tanjit sees no body, so the tag must supply the
 * derivative.
 *
 * It also stands in for Julia's runtime in tests/julia/gc_objects.ll: the
 * GC entry points of unlowered IR (julia.get_pgcstack, julia.gc_alloc_obj),
 * under those names, with malloc as the collector.
 */
#include <math.h>
#include <stdlib.h>

double julia_log_123(double x);

double julia_log_123(double x) { return log(x); }

static char fake_pgcstack[64];

void *julia_get_pgcstack(void) __asm__("julia.get_pgcstack");
void *julia_gc_alloc_obj(void *ptls, size_t size, void *type)
    __asm__("julia.gc_alloc_obj");

void *julia_get_pgcstack(void) { return fake_pgcstack; }

/* Never freed: a test's handful of objects, as a collector would own them. */
void *julia_gc_alloc_obj(void *ptls, size_t size, void *type) {
  (void)ptls, (void)type;
  return malloc(size ? size : 1);
}
