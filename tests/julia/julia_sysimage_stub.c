/*
 * Stands in for a Julia system image in tests/julia/sysimage_decl.ll: it
 * defines a specialization under Julia's mangled name, which the test's IR
 * only declares (tagged "enzyme_math"="log"), as a module compiled against
 * the system image would.  tanjit sees no body, so the tag must supply the
 * derivative.
 *
 * It also stands in for Julia's runtime in tests/julia/gc_objects.ll: the
 * GC entry points of unlowered IR (julia.get_pgcstack, julia.gc_alloc_obj),
 * under those names, with a static arena as the collector; and for
 * tests/julia/{,rev_}runtime_calls.ll libjulia's allocators after GC
 * lowering (ijl_gc_alloc_typed, ijl_gc_big_alloc, ijl_gc_pool_alloc), its
 * arrays (ijl_alloc_array_1d, jl_array_t as Julia 1.10 lays it out, the
 * data left holding garbage as Julia leaves isbits data uninitialized),
 * boxes (ijl_box_float64) and julia.write_barrier (it counts its calls).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Julia's error paths in tests/julia/noreturn_checks.ll and
 * rev_noreturn_checks.ll: a domain error's throw (two specializations,
 * as a system image has them) and the runtime's bounds error.  They never
 * return, as Julia's throw never does; the tests never take them. */
void j_throw_complex_domainerror_123(void *sym, double x);
void j_throw_complex_domainerror_456(void *sym, double x);
void ijl_bounds_error_ints(void *array, long *index, size_t n);

void j_throw_complex_domainerror_123(void *sym, double x) {
  (void)sym;
  fprintf(stderr, "DomainError with %g\n", x);
  abort();
}

void j_throw_complex_domainerror_456(void *sym, double x) {
  j_throw_complex_domainerror_123(sym, x);
}

void ijl_bounds_error_ints(void *array, long *index, size_t n) {
  (void)array;
  fprintf(stderr, "BoundsError at index %ld (%zu)\n", n ? index[0] : 0L, n);
  abort();
}

void *ijl_gc_alloc_typed(void *ptls, size_t size, void *type) {
  return julia_gc_alloc_obj(ptls, size, type);
}

void *ijl_gc_big_alloc(void *ptls, size_t size) {
  return julia_gc_alloc_obj(ptls, size, NULL);
}

void *ijl_gc_pool_alloc(void *ptls, int pool_offset, int osize) {
  (void)pool_offset;
  return julia_gc_alloc_obj(ptls, (size_t)osize, NULL);
}

/* jl_array_t of Julia 1.6 to 1.10 (the fields tanjit reads: data,
 * length, elsize) */
typedef struct {
  void *data;
  size_t length;
  uint16_t flags, elsize;
  uint32_t offset;
  size_t nrows, maxsize;
} jl_array_t;

/* Float64 elements whatever the type (the tests make no others) */
void *ijl_alloc_array_1d(void *type, size_t n) {
  (void)type;
  jl_array_t *a = julia_gc_alloc_obj(NULL, sizeof *a, NULL);
  if (!a)
    return NULL;
  a->data = julia_gc_alloc_obj(NULL, n * 8, NULL);
  if (!a->data)
    return NULL;
  memset(a->data, 0x5a, n * 8); /* uninitialized, as Julia's */
  a->length = a->nrows = a->maxsize = n;
  a->elsize = 8;
  a->flags = 0;
  a->offset = 0;
  return a;
}

void *ijl_box_float64(double x) {
  double *b = julia_gc_alloc_obj(NULL, sizeof x, NULL);
  if (b)
    *b = x;
  return b;
}

/* calls of julia.write_barrier (primal and mirrored), read by the tests */
long jl_write_barriers;
void julia_write_barrier(void *parent, ...) __asm__("julia.write_barrier");
void julia_write_barrier(void *parent, ...) {
  (void)parent;
  jl_write_barriers++;
}

/* A user library's cosine, reached in tests/julia/plt_enzyme_math.ll only
 * through Julia's lazy ccall GOT, whose call sites say "enzyme_math"="cos"
 * (no body tanjit could read, no rule by its own name). */
double tjstub_cos(double x);
double tjstub_cos(double x) { return cos(x); }
