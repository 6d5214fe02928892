/*
 * Type analysis: the memory model.  Every pointer value (and every integer
 * that carries one) has an address: an abstract memory object and a byte
 * offset in it (type_transfer.c says where objects are born).  An object's
 * entries map byte ranges to kinds; a periodic object keeps offsets modulo
 * its period, and one whose period is smaller than an element collapses to
 * one summary kind.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "ad/analysis/type_model.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"

/* ---- storage ---- */

int ta_is_int_type(LLVMTypeRef ty) {
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind)
    ty = LLVMGetElementType(ty);
  return LLVMGetTypeKind(ty) == LLVMIntegerTypeKind;
}

static int vindex(ad_types *t, LLVMValueRef v, int create) {
  void *p = ad_map_get(&t->index, v);
  if (p)
    return (int)((uintptr_t)p - 1);
  if (!create)
    return -1;
  if (t->nvals == t->capvals) {
    size_t ncap = t->capvals ? 2 * t->capvals : 256;
    tval *g = tj_realloc(t->vals, ncap * sizeof *g);
    if (!g) {
      t->oom = 1;
      return -1;
    }
    t->vals = g;
    t->capvals = ncap;
  }
  tval *nv = &t->vals[t->nvals];
  nv->f = ta_fact(AD_T_UNKNOWN, 0);
  nv->obj = -1;
  nv->off = 0;
  if (ad_map_put(&t->index, v, (void *)(uintptr_t)(t->nvals + 1)) != 0) {
    t->oom = 1;
    return -1;
  }
  return (int)t->nvals++;
}

const tval *ta_vget(const ad_types *t, LLVMValueRef v) {
  void *p = ad_map_get(&t->index, v);
  return p ? &t->vals[(uintptr_t)p - 1] : NULL;
}

static int new_obj(ad_types *t) {
  if (t->nobjs == t->capobjs) {
    size_t ncap = t->capobjs ? 2 * t->capobjs : 64;
    tobj *g = tj_realloc(t->objs, ncap * sizeof *g);
    if (!g) {
      t->oom = 1;
      return -1;
    }
    t->objs = g;
    t->capobjs = ncap;
  }
  memset(&t->objs[t->nobjs], 0, sizeof t->objs[0]);
  return (int)t->nobjs++;
}

/* A fact about integer value v itself (other types are fixed by type). */
void ta_note(ad_types *t, LLVMValueRef v, tfact f) {
  if (f.kind == AD_T_UNKNOWN || !v || LLVMIsConstant(v) ||
      !ta_is_int_type(LLVMTypeOf(v)))
    return;
  int i = vindex(t, v, 1);
  if (i < 0)
    return;
  tfact j = ta_join(t->vals[i].f, f);
  if (!ta_same(j, t->vals[i].f)) {
    t->vals[i].f = j;
    t->changed = 1;
  }
}

unsigned ta_scalar_float_bits(LLVMTypeRef ty) {
  switch (LLVMGetTypeKind(ty)) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
    return 16;
  case LLVMFloatTypeKind:
    return 32;
  case LLVMDoubleTypeKind:
    return 64;
  case LLVMX86_FP80TypeKind:
    return 80;
  case LLVMFP128TypeKind:
  case LLVMPPC_FP128TypeKind:
    return 128;
  default:
    return 0;
  }
}

/* A float scalar's or float vector's element width (callers pass floats). */
static unsigned float_bits(LLVMTypeRef ty) {
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind)
    ty = LLVMGetElementType(ty);
  return ta_scalar_float_bits(ty);
}

tfact ta_value_fact(const ad_types *t, LLVMValueRef v) {
  LLVMTypeRef ty = LLVMTypeOf(v);
  if (ad_type_is_float(ty))
    return ta_fact(AD_T_FLOAT, float_bits(ty));
  if (ad_type_is_pointerish(ty))
    return ta_fact(AD_T_POINTER, 0);
  if (!ta_is_int_type(ty))
    return ta_fact(AD_T_UNKNOWN, 0);
  const tval *tv = ta_vget(t, v);
  return tv ? tv->f : ta_fact(AD_T_UNKNOWN, 0);
}

/* ---- object layouts ---- */

long long ta_norm(const tobj *o, long long off) {
  if (!o->period)
    return off;
  long long p = (long long)o->period, r = off % p;
  return r < 0 ? r + p : r;
}

static void collapse(ad_types *t, tobj *o) {
  for (size_t i = 0; i < o->n; i++)
    o->summary = ta_join(o->summary, o->e[i].f);
  o->n = 0;
  o->collapsed = 1;
  t->changed = 1;
}

/* The entry index of an object with many entries: a linear search per
 * note made the analysis quadratic in an object's entries (odeint's -O0
 * stepper: 95% of a load's time in this search). */
enum { INDEX_FROM = 32 };

static size_t entry_hash(long long off, unsigned long long size,
                         size_t cap) {
  unsigned long long h = (unsigned long long)off * 0x9e3779b97f4a7c15ull ^
                         (size + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
  return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static void index_put(tobj *o, size_t i) {
  size_t h = entry_hash(o->e[i].off, o->e[i].size, o->ixcap);
  while (o->ix[h])
    h = (h + 1) & (o->ixcap - 1);
  o->ix[h] = i + 1;
}

/* Brings the index up to o->e (0), or -1 when there is none (too few
 * entries, out of memory: the linear search then). */
static int index_sync(tobj *o) {
  if (o->n < INDEX_FROM) {
    /* every reset of e (collapse, a new period) passes here before the
     * entries are noted again: the index is rebuilt from scratch */
    o->indexed = 0;
    return -1;
  }
  if (o->indexed == 0 || o->indexed > o->n || 2 * o->n > o->ixcap) {
    size_t cap = o->ixcap ? o->ixcap : 64;
    while (2 * o->n > cap)
      cap *= 2;
    size_t *g = tj_realloc(o->ix, cap * sizeof *g);
    if (!g)
      return -1;
    memset(g, 0, cap * sizeof *g);
    o->ix = g;
    o->ixcap = cap;
    o->indexed = 0;
  }
  for (; o->indexed < o->n; o->indexed++)
    index_put(o, o->indexed);
  return 0;
}

/* The entry of obj at exactly [off, off+size), or -1. */
static long long find_entry(tobj *o, long long off, unsigned long long size) {
  if (index_sync(o) != 0) {
    for (size_t i = 0; i < o->n; i++)
      if (o->e[i].off == off && o->e[i].size == size)
        return (long long)i;
    return -1;
  }
  for (size_t h = entry_hash(off, size, o->ixcap); o->ix[h];
       h = (h + 1) & (o->ixcap - 1)) {
    size_t i = o->ix[h] - 1;
    if (o->e[i].off == off && o->e[i].size == size)
      return (long long)i;
  }
  return -1;
}

/* Joins f into *slot; whether it changed (then the analysis goes on). */
static int join_into(ad_types *t, tfact *slot, tfact f) {
  tfact j = ta_join(*slot, f);
  if (ta_same(j, *slot))
    return 0;
  *slot = j;
  t->changed = 1;
  return 1;
}

/* Joins f into bytes [off, off+size) of obj; whether anything changed. */
static int note_one(ad_types *t, int obj, long long off,
                    unsigned long long size, tfact f) {
  tobj *o = &t->objs[obj];
  if (o->collapsed)
    return join_into(t, &o->summary, f);
  if (o->period && size > o->period) {
    collapse(t, o);
    return note_one(t, obj, off, size, f);
  }
  off = ta_norm(o, off);
  long long at = find_entry(o, off, size);
  if (at >= 0)
    return join_into(t, &o->e[at].f, f);
  if (o->n >= MAX_TYPE_ENTRIES * 4)
    return 0; /* enough: further bytes stay unknown */
  if (o->n == o->cap) {
    size_t ncap = o->cap ? 2 * o->cap : 8;
    tentry *g = tj_realloc(o->e, ncap * sizeof *g);
    if (!g) {
      t->oom = 1;
      return 0;
    }
    o->e = g;
    o->cap = ncap;
  }
  o->e[o->n].off = off;
  o->e[o->n].size = size;
  o->e[o->n].f = f;
  o->n++;
  t->changed = 1;
  return 1;
}

static void note_fact(ad_types *t, int obj, long long off,
                      unsigned long long size, tfact f, size_t skip);

/* A new fact about bytes inside an element of one of obj's regions is a
 * fact about the same bytes of every element of it (all but `skip`, the
 * region that just replicated it).  Bytes that straddle two elements say
 * nothing about the others. */
static void replicate(ad_types *t, int obj, long long off,
                      unsigned long long size, tfact f, size_t skip) {
  if (t->objs[obj].collapsed || t->note_depth > 8)
    return;
  off = ta_norm(&t->objs[obj], off);
  t->note_depth++;
  for (size_t k = 0; k < t->objs[obj].nr; k++) {
    if (k == skip)
      continue;
    tregion r = t->objs[obj].r[k];
    long long rel = off - r.start;
    if (rel < 0 || (unsigned long long)rel >= r.es * r.count)
      continue;
    unsigned long long at = (unsigned long long)rel / r.es;
    unsigned long long inner = (unsigned long long)rel % r.es;
    if (inner + size > r.es)
      continue;
    for (unsigned long long j = 0; j < r.count; j++)
      if (j != at)
        note_fact(t, obj, r.start + (long long)(j * r.es + inner), size, f, k);
  }
  t->note_depth--;
}

static void note_fact(ad_types *t, int obj, long long off,
                      unsigned long long size, tfact f, size_t skip) {
  if (note_one(t, obj, off, size, f))
    replicate(t, obj, off, size, f, skip);
}

void ta_mem_note(ad_types *t, int obj, long long off, unsigned long long size,
                 tfact f) {
  if (obj < 0 || f.kind == AD_T_UNKNOWN || size == 0)
    return;
  note_fact(t, obj, off, size, f, (size_t)-1);
}

void ta_add_region(ad_types *t, int obj, long long start,
                   unsigned long long es, unsigned long long count) {
  if (obj < 0 || es == 0 || count < 2 || count > MAX_REGION_COUNT)
    return;
  tobj *o = &t->objs[obj];
  if (o->collapsed)
    return;
  start = ta_norm(o, start);
  if (o->period && (unsigned long long)start + es * count > o->period)
    return; /* the region is no longer inside one period */
  for (size_t k = 0; k < o->nr; k++)
    if (o->r[k].start == start && o->r[k].es == es && o->r[k].count == count)
      return;
  if (o->nr == o->capr) {
    size_t ncap = o->capr ? 2 * o->capr : 4;
    tregion *g = tj_realloc(o->r, ncap * sizeof *g);
    if (!g) {
      t->oom = 1;
      return;
    }
    o->r = g;
    o->capr = ncap;
  }
  o->r[o->nr].start = start;
  o->r[o->nr].es = es;
  o->r[o->nr].count = count;
  o->nr++;
  t->changed = 1;
  /* what is already known of one element is known of each */
  size_t n = o->n;
  for (size_t i = 0; i < n && !t->objs[obj].collapsed; i++) {
    tentry e = t->objs[obj].e[i];
    replicate(t, obj, e.off, e.size, e.f, (size_t)-1);
  }
}

/* ---- pointer slots ---- */

LLVMValueRef ta_slot_rep(const ad_types *t, int obj, long long off) {
  if (obj < 0 || t->objs[obj].collapsed)
    return NULL;
  const tobj *o = &t->objs[obj];
  off = ta_norm(o, off);
  for (size_t k = 0; k < o->ns; k++)
    if (o->s[k].off == off)
      return o->s[k].rep;
  return NULL;
}

/* Adds slot (obj, off) with representative v; 0 if it has one already. */
static int add_slot(ad_types *t, int obj, long long off, LLVMValueRef v) {
  tobj *o = &t->objs[obj];
  if (o->collapsed || ta_slot_rep(t, obj, off))
    return 0;
  if (o->ns == o->caps) {
    size_t ncap = o->caps ? 2 * o->caps : 4;
    tslot *g = tj_realloc(o->s, ncap * sizeof *g);
    if (!g) {
      t->oom = 1;
      return 0;
    }
    o->s = g;
    o->caps = ncap;
  }
  o->s[o->ns].off = ta_norm(o, off);
  o->s[o->ns].rep = v;
  o->ns++;
  t->changed = 1;
  return 1;
}

/* v is stored to, or loaded from, the slot at (obj, off). */
void ta_slot_note(ad_types *t, int obj, long long off, LLVMValueRef v) {
  if (obj < 0)
    return;
  LLVMValueRef rep = ta_slot_rep(t, obj, off);
  if (!rep)
    add_slot(t, obj, off, v);
  else if (rep != v)
    ta_unify(t, v, rep);
}

static void defer_unify(ad_types *t, LLVMValueRef a, LLVMValueRef b) {
  for (size_t i = 0; i < t->npending; i += 2)
    if ((t->pending[i] == a && t->pending[i + 1] == b) ||
        (t->pending[i] == b && t->pending[i + 1] == a))
      return;
  if (t->npending >= 2 * MAX_TYPE_ENTRIES)
    return; /* enough: those slots stay apart (less known, never wrong) */
  if (t->npending + 2 > t->cappending) {
    size_t ncap = t->cappending ? 2 * t->cappending : 32;
    LLVMValueRef *g = tj_realloc(t->pending, ncap * sizeof *g);
    if (!g) {
      t->oom = 1;
      return;
    }
    t->pending = g;
    t->cappending = ncap;
  }
  t->pending[t->npending++] = a;
  t->pending[t->npending++] = b;
}

void ta_run_pending(ad_types *t) {
  LLVMValueRef *p = t->pending;
  size_t n = t->npending;
  t->pending = NULL;
  t->npending = t->cappending = 0;
  for (size_t i = 0; i + 1 < n && !t->oom; i += 2)
    ta_unify(t, p[i], p[i + 1]);
  free(p);
}

/* The join of every entry overlapping bytes [off, off+size) of o (off
 * normalized), an entry of the next element included. */
static tfact overlapping_join(const tobj *o, long long off,
                              unsigned long long size) {
  tfact f = ta_fact(AD_T_UNKNOWN, 0);
  for (size_t i = 0; i < o->n; i++) {
    const tentry *e = &o->e[i];
    long long eo = e->off;
    if (o->period && eo + (long long)e->size <= off)
      eo += (long long)o->period; /* an entry of the next element */
    if (eo < off + (long long)size && off < eo + (long long)e->size)
      f = ta_join(f, e->f);
  }
  return f;
}

/* The fact of bytes [off, off+size): an exact entry, else the join of the
 * overlapping ones.  `raw` keeps a conflict; otherwise a conflict reads as
 * unknown, so a value is never blamed for its neighbours' bytes. */
tfact ta_mem_get(const ad_types *t, int obj, long long off,
                 unsigned long long size, int raw) {
  if (obj < 0)
    return ta_fact(AD_T_UNKNOWN, 0);
  const tobj *o = &t->objs[obj];
  tfact f = ta_fact(AD_T_UNKNOWN, 0);
  if (o->collapsed)
    f = o->summary;
  else {
    off = ta_norm(o, off);
    int exact = 0;
    for (size_t i = 0; i < o->n; i++) {
      const tentry *e = &o->e[i];
      if (e->off == off && e->size == size) {
        f = e->f;
        exact = 1;
        break;
      }
    }
    if (!exact)
      f = overlapping_join(o, off, size);
  }
  if (!raw && f.kind == AD_T_CONFLICT)
    return ta_fact(AD_T_UNKNOWN, 0);
  return f;
}

tfact ta_mem_get_all(const ad_types *t, int obj, long long off,
                     unsigned long long size) {
  if (obj < 0)
    return ta_fact(AD_T_UNKNOWN, 0);
  const tobj *o = &t->objs[obj];
  return o->collapsed ? o->summary : overlapping_join(o, ta_norm(o, off), size);
}

void ta_set_period(ad_types *t, int obj, unsigned long long p) {
  if (obj < 0 || p == 0)
    return;
  tobj *o = &t->objs[obj];
  if (o->collapsed)
    return;
  unsigned long long np = o->period ? ta_gcd(o->period, p) : p;
  if (np == o->period)
    return;
  t->changed = 1;
  for (size_t i = 0; i < o->n; i++)
    if (o->e[i].size > np) {
      collapse(t, o);
      return;
    }
  /* Renormalize: entries that land on the same bytes join; regions and
   * slots that still fit in one period stay. */
  size_t n = o->n;
  tentry *old = o->e;
  o->e = NULL;
  o->n = o->cap = 0;
  o->period = np;
  size_t kept = 0;
  for (size_t k = 0; k < o->nr; k++) {
    tregion r = o->r[k];
    r.start = ta_norm(o, r.start);
    if ((unsigned long long)r.start + r.es * r.count <= np)
      o->r[kept++] = r;
  }
  o->nr = kept;
  kept = 0;
  for (size_t k = 0; k < o->ns; k++) {
    long long at = ta_norm(o, o->s[k].off);
    size_t dup = 0;
    while (dup < kept && o->s[dup].off != at)
      dup++;
    if (dup < kept) {
      defer_unify(t, o->s[dup].rep, o->s[k].rep);
      continue;
    }
    o->s[kept].off = at;
    o->s[kept++].rep = o->s[k].rep;
  }
  o->ns = kept;
  for (size_t i = 0; i < n; i++)
    ta_mem_note(t, obj, old[i].off, old[i].size, old[i].f);
  free(old);
}

/* The byte layout of type `ty` at (obj, off); integer members get `ifact`. */
void ta_record_type(ad_types *t, int obj, long long off, LLVMTypeRef ty,
                    tfact ifact, int depth, int *budget) {
  if (depth > MAX_DEPTH || --*budget < 0)
    return;
  switch (LLVMGetTypeKind(ty)) {
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(ty);
    for (unsigned i = 0; i < n; i++)
      ta_record_type(t, obj, off + (long long)LLVMOffsetOfElement(t->td, ty, i),
                     LLVMStructGetTypeAtIndex(ty, i), ifact, depth + 1, budget);
    return;
  }
  case LLVMArrayTypeKind:
  case LLVMVectorTypeKind: {
    LLVMTypeRef el = LLVMGetElementType(ty);
    unsigned long long n = LLVMGetTypeKind(ty) == LLVMArrayTypeKind
                               ? LLVMGetArrayLength2(ty)
                               : LLVMGetVectorSize(ty);
    unsigned long long es = LLVMABISizeOfType(t->td, el);
    for (unsigned long long i = 0; i<n && * budget> 0; i++)
      ta_record_type(t, obj, off + (long long)(i * es), el, ifact, depth + 1,
                     budget);
    return;
  }
  case LLVMPointerTypeKind:
    ta_mem_note(t, obj, off, LLVMStoreSizeOfType(t->td, ty),
                ta_fact(AD_T_POINTER, 0));
    return;
  case LLVMIntegerTypeKind: {
    tfact f = ifact;
    /* an integer narrower than a pointer never holds one */
    if (f.kind == AD_T_UNKNOWN &&
        LLVMSizeOfTypeInBits(t->td, ty) < 8 * LLVMPointerSize(t->td))
      f = ta_fact(AD_T_INTEGER, 0);
    ta_mem_note(t, obj, off, LLVMStoreSizeOfType(t->td, ty), f);
    return;
  }
  default:
    if (ad_type_is_float_scalar(ty))
      ta_mem_note(t, obj, off, LLVMStoreSizeOfType(t->td, ty),
                  ta_fact(AD_T_FLOAT, float_bits(ty)));
    return;
  }
}

/* Where bytes [off, off+size) of object o lie relative to a view of it
 * from `from` on, `len` bytes long (len < 0: to the end / every period);
 * 0 when outside the view. */
static int view_rel(const tobj *o, long long from, long long off,
                    unsigned long long size, long long len, long long *rel) {
  *rel = off - ta_norm(o, from);
  if (o->period) {
    long long p = (long long)o->period;
    *rel = ((*rel % p) + p) % p;
  } else if (*rel < 0) {
    return 0;
  }
  return len < 0 || *rel + (long long)size <= len;
}

/* Exchanges the facts of two views of the same bytes: (a, aoff) and
 * (b, boff), over `len` bytes (len < 0: to the end / every period):
 * entries, regions and pointer slots. */
static void exchange_one(ad_types *t, int from, long long foff, int to,
                         long long toff, long long len) {
  if (from < 0 || to < 0 || from == to)
    return;
  tobj *f = &t->objs[from];
  if (f->collapsed) {
    if (f->summary.kind != AD_T_CONFLICT && f->summary.kind != AD_T_UNKNOWN &&
        t->objs[to].period == 0 && !t->objs[to].collapsed && len < 0)
      ta_set_period(t, to, 1); /* collapses `to` too */
    return;
  }
  /* An array seen inside `to` from an interior offset (libstdc++'s
   * hashtable points its bucket array at its own one-bucket member) is a
   * member of it, not its whole layout: as for a GEP stepping from inside
   * an object (type_transfer.c), no period for `to`; its elements share
   * the facts of the first.  Made periodic, every object unified with the
   * hashtable (its nodes, their keys) lost its layout to one conflict. */
  if (f->period && (len < 0 || (unsigned long long)len > f->period) &&
      (t->objs[to].period || ta_norm(&t->objs[to], toff) == 0))
    ta_set_period(t, to, f->period);
  long long rel;
  size_t n = f->n;
  for (size_t i = 0; i < n; i++) {
    tentry e = t->objs[from].e[i]; /* mem_note may move the array */
    if (view_rel(&t->objs[from], foff, e.off, e.size, len, &rel))
      ta_mem_note(t, to, toff + rel, e.size, e.f);
  }
  n = t->objs[from].nr;
  for (size_t k = 0; k < n; k++) {
    tregion r = t->objs[from].r[k];
    if (view_rel(&t->objs[from], foff, r.start, r.es * r.count, len, &rel))
      ta_add_region(t, to, toff + rel, r.es, r.count);
  }
  n = t->objs[from].ns;
  for (size_t k = 0; k < n; k++) {
    tslot sl = t->objs[from].s[k];
    if (!view_rel(&t->objs[from], foff, sl.off, LLVMPointerSize(t->td), len,
                  &rel))
      continue;
    LLVMValueRef rep = ta_slot_rep(t, to, toff + rel);
    if (!rep)
      add_slot(t, to, toff + rel, sl.rep);
    else if (rep != sl.rep)
      defer_unify(t, rep, sl.rep);
  }
}

void ta_exchange(ad_types *t, int a, long long aoff, int b, long long boff,
                 long long len) {
  exchange_one(t, a, aoff, b, boff, len);
  exchange_one(t, b, boff, a, aoff, len);
}

/* ---- addresses ---- */

/* Offsets wrap as a GEP's address arithmetic does (modulo 2^64): a
 * hostile or wrong module's huge indices must not overflow signed
 * arithmetic here. */
static long long wrap_add(long long a, long long b) {
  return (long long)((unsigned long long)a + (unsigned long long)b);
}
static long long wrap_mul(long long a, long long b) {
  return (long long)((unsigned long long)a * (unsigned long long)b);
}

/* v = stride * X + c for some unknown integer X (stride 0: v is c).
 *
 * Besides v's own arithmetic, three things say what v is a multiple of:
 * - a PHI's recurrence (an index stepping by 8 from 0: `phi [0, %e],
 *   [%idx.next, %loop]`, `%idx.next = add %idx, 8`): its values are its
 *   starts and its steps apart, so the gcd of the steps and of the starts'
 *   differences is a stride, from the first start (clang -O1 walks a
 *   std::vector<double>'s buffer so: `gep i8, %buf, %idx`);
 * - an exact division of v or an exact shift right (`ashr exact %d, 3`:
 *   libstdc++'s element count of a byte distance): LLVM makes the result
 *   poison unless v is a multiple of the divisor;
 * - a difference of two addresses in one object: its offsets apart, plus
 *   whole periods when the object repeats (the byte distance between two
 *   elements of one array, `end - begin`).
 * Without them a byte distance had stride 1: `gep i8, %begin, %d` then
 * made the object periodic by one byte, and its doubles collapsed. */
enum { MAX_LINEAR_DEPTH = 12, MAX_LINEAR_PHIS = 4, MAX_LINEAR_MULTIPLE = 1 << 16 };

typedef struct linear_ctx {
  const ad_types *t; /* may be NULL: no addresses known */
  /* the PHIs whose recurrence is being followed: met again inside one,
   * a value says nothing (no second lap around the loop) */
  LLVMValueRef phis[MAX_LINEAR_PHIS];
  int nphis;
  int opaque; /* a value met that says nothing of itself (an argument, a
                 load): a stride 1 then means none known */
} linear_ctx;

static void linear(linear_ctx *x, LLVMValueRef v, unsigned long long *stride,
                   long long *c, int depth);

/* The least multiple m > 1 that an exact division or shift of v says v
 * is (the lcm of those), or 0. */
static unsigned long long exact_multiple(LLVMValueRef v) {
  unsigned long long m = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsABinaryOperator(user) || LLVMGetOperand(user, 0) != v)
      continue;
    LLVMOpcode op = LLVMGetInstructionOpcode(user);
    LLVMValueRef k = LLVMGetOperand(user, 1);
    if ((op != LLVMAShr && op != LLVMLShr && op != LLVMSDiv &&
         op != LLVMUDiv) ||
        !LLVMIsAConstantInt(k) || !LLVMGetExact(user))
      continue;
    unsigned long long kv = LLVMConstIntGetZExtValue(k), d;
    if (op == LLVMAShr || op == LLVMLShr)
      d = kv < 16 ? 1ull << kv : 0;
    else
      d = kv <= MAX_LINEAR_MULTIPLE ? kv : 0;
    if (d < 2)
      continue;
    unsigned long long l = m ? m / ta_gcd(m, d) * d : d;
    if (l <= MAX_LINEAR_MULTIPLE)
      m = l;
  }
  return m;
}

/* v = s X + c and v = m Y: both, as one stride and constant where they
 * agree (they always do for a real program; if not, s and c stay). */
static void meet_multiple(unsigned long long *s, long long *c,
                          unsigned long long m) {
  if (m < 2 || *s == 0)
    return;
  unsigned long long g = ta_gcd(*s, m);
  long long r = *c % (long long)g;
  if (r != 0 || *s > MAX_LINEAR_MULTIPLE)
    return;
  for (unsigned long long k = 0; k < m / g; k++) {
    long long at = wrap_add(*c, (long long)(k * *s));
    if (at % (long long)m == 0) {
      *s = *s / g * m;
      *c = at;
      return;
    }
  }
}

static int is_phi_followed(const linear_ctx *x, LLVMValueRef v) {
  for (int i = 0; i < x->nphis; i++)
    if (x->phis[i] == v)
      return 1;
  return 0;
}

/* Whether e is phi plus something (phi + s X + c), through adds, disjoint
 * ors, subtractions of a right operand and casts: one step of phi's
 * recurrence. */
static int step_of(linear_ctx *x, LLVMValueRef phi, LLVMValueRef e,
                   unsigned long long *s, long long *c, int depth) {
  if (e == phi) {
    *s = 0;
    *c = 0;
    return 1;
  }
  if (depth > MAX_LINEAR_DEPTH || !LLVMIsAInstruction(e))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(e);
  unsigned long long s0, s1;
  long long c0, c1;
  switch (op) {
  case LLVMAdd:
  case LLVMOr:
  case LLVMSub:
    if (op == LLVMOr && !LLVMGetIsDisjoint(e))
      return 0;
    for (unsigned side = 0; side < (op == LLVMSub ? 1u : 2u); side++) {
      if (!step_of(x, phi, LLVMGetOperand(e, side), &s0, &c0, depth + 1))
        continue;
      linear(x, LLVMGetOperand(e, 1 - side), &s1, &c1, depth + 1);
      *s = ta_gcd(s0, s1);
      *c = wrap_add(c0, op == LLVMSub ? wrap_mul(c1, -1) : c1);
      return 1;
    }
    return 0;
  case LLVMSExt:
  case LLVMZExt:
  case LLVMTrunc:
    return step_of(x, phi, LLVMGetOperand(e, 0), s, c, depth + 1);
  default:
    return 0;
  }
}

static void linear_phi(linear_ctx *x, LLVMValueRef phi,
                       unsigned long long *stride, long long *c, int depth) {
  if (x->nphis == MAX_LINEAR_PHIS) {
    x->opaque = 1;
    return; /* stride 1 */
  }
  x->phis[x->nphis++] = phi;
  unsigned long long g = 0, s;
  long long k, first = 0;
  int starts = 0;
  unsigned n = LLVMCountIncoming(phi);
  for (unsigned i = 0; i < n && g != 1; i++) {
    LLVMValueRef e = LLVMGetIncomingValue(phi, i);
    if (step_of(x, phi, e, &s, &k, depth + 1)) {
      g = ta_gcd(ta_gcd(g, s), k < 0 ? 0ull - (unsigned long long)k
                                     : (unsigned long long)k);
      continue;
    }
    linear(x, e, &s, &k, depth + 1);
    g = ta_gcd(g, s);
    if (!starts++)
      first = k;
    else
      g = ta_gcd(g, k > first ? (unsigned long long)k - (unsigned long long)first
                              : (unsigned long long)first - (unsigned long long)k);
  }
  x->nphis--;
  if (!starts) {
    x->opaque = 1;
    return; /* stride 1 */
  }
  if (g == 1)
    return;
  *stride = g;
  *c = first;
}

/* a - b for two addresses (ptrtoint'ed pointers), or 0 when unknown: in
 * one object, their offsets apart (whole periods apart too, when it
 * repeats); in two that repeat, a multiple of the periods' gcd from
 * there, since a program subtracts only pointers into one array (the
 * context-insensitive analysis keeps a parameter's object apart from its
 * arguments', which share their facts). */
static int address_difference(const linear_ctx *x, LLVMValueRef a,
                              LLVMValueRef b, unsigned long long *stride,
                              long long *c) {
  if (!x->t)
    return 0;
  const tval *va = ta_vget(x->t, a), *vb = ta_vget(x->t, b);
  if (!va || !vb || va->obj < 0 || vb->obj < 0)
    return 0;
  const tobj *oa = &x->t->objs[va->obj], *ob = &x->t->objs[vb->obj];
  if (oa->collapsed || ob->collapsed ||
      (va->obj != vb->obj && (!oa->period || !ob->period)))
    return 0;
  *stride = va->obj == vb->obj ? oa->period : ta_gcd(oa->period, ob->period);
  *c = wrap_add(ta_norm(oa, va->off), wrap_mul(ta_norm(ob, vb->off), -1));
  return 1;
}

static void linear_of(linear_ctx *x, LLVMValueRef v,
                      unsigned long long *stride, long long *c, int depth) {
  if (depth > MAX_LINEAR_DEPTH || !LLVMIsAInstruction(v) ||
      is_phi_followed(x, v))
    goto opaque;
  unsigned long long s0, s1;
  long long c0, c1;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMSub:
    if (address_difference(x, LLVMGetOperand(v, 0), LLVMGetOperand(v, 1),
                           stride, c))
      return;
    /* fall through */
  case LLVMAdd:
    linear(x, LLVMGetOperand(v, 0), &s0, &c0, depth + 1);
    linear(x, LLVMGetOperand(v, 1), &s1, &c1, depth + 1);
    *stride = ta_gcd(s0, s1);
    *c = wrap_add(c0, LLVMGetInstructionOpcode(v) == LLVMAdd ? c1
                                                             : wrap_mul(c1, -1));
    return;
  case LLVMOr:
    if (!LLVMGetIsDisjoint(v))
      goto opaque;
    linear(x, LLVMGetOperand(v, 0), &s0, &c0, depth + 1);
    linear(x, LLVMGetOperand(v, 1), &s1, &c1, depth + 1);
    *stride = ta_gcd(s0, s1);
    *c = wrap_add(c0, c1);
    return;
  case LLVMShl:
  case LLVMMul: {
    LLVMValueRef k = LLVMGetOperand(v, 1), y = LLVMGetOperand(v, 0);
    if (!LLVMIsAConstantInt(k) && LLVMGetInstructionOpcode(v) == LLVMMul) {
      k = LLVMGetOperand(v, 0);
      y = LLVMGetOperand(v, 1);
    }
    if (!LLVMIsAConstantInt(k))
      goto opaque;
    long long m = LLVMConstIntGetSExtValue(k);
    if (LLVMGetInstructionOpcode(v) == LLVMShl)
      m = m >= 0 && m < 62 ? 1LL << m : 0;
    if (m <= 0)
      goto opaque;
    linear(x, y, &s0, &c0, depth + 1);
    *stride = s0 * (unsigned long long)m;
    *c = wrap_mul(c0, m);
    return;
  }
  case LLVMSExt:
  case LLVMZExt:
  case LLVMTrunc:
    linear(x, LLVMGetOperand(v, 0), stride, c, depth + 1);
    return;
  case LLVMPHI:
    linear_phi(x, v, stride, c, depth);
    return;
  default:
    break;
  }
opaque:
  x->opaque = 1;
}

static void linear(linear_ctx *x, LLVMValueRef v, unsigned long long *stride,
                   long long *c, int depth) {
  *stride = 1;
  *c = 0;
  if (LLVMIsAConstantInt(v)) {
    *stride = 0;
    *c = LLVMConstIntGetSExtValue(v);
    return;
  }
  linear_of(x, v, stride, c, depth);
  if (!LLVMIsAConstant(v))
    meet_multiple(stride, c, exact_multiple(v));
}

int ta_linear(const ad_types *t, LLVMValueRef v, unsigned long long *stride,
              long long *c, int depth) {
  linear_ctx x = {t, {NULL}, 0, 0};
  linear(&x, v, stride, c, depth);
  return *stride != 1 || !x.opaque;
}

/* Byte offset of a GEP (instruction or constant expression) from its base:
 * constant part *c, variable part a multiple of *stride (0: none).  A
 * variable index past the first one moves within an array member of a
 * known aggregate ({int n; double x[3]} indexed as x[i]): the repetition is
 * that member's, not the whole object's, so *stride stays 0 for it; the
 * member is reported in members[] (may be NULL; *nmembers of them, start
 * relative to the base), whose elements then share one layout.  0 when
 * the first index is a byte offset whose stride is 1 for want of
 * knowledge (ta_linear's 0). */
int ta_gep_offset(ad_types *t, LLVMValueRef gep, unsigned long long *stride,
                  long long *c, tregion *members, unsigned *nmembers) {
  LLVMTypeRef ty = LLVMGetGEPSourceElementType(gep);
  unsigned n = (unsigned)LLVMGetNumOperands(gep);
  int known = 1;
  *stride = 0;
  *c = 0;
  if (nmembers)
    *nmembers = 0;
  for (unsigned i = 1; i < n; i++) {
    LLVMValueRef idx = LLVMGetOperand(gep, i);
    if (i > 1 && LLVMGetTypeKind(ty) == LLVMStructTypeKind) {
      if (!LLVMIsAConstantInt(idx)) {
        *stride = 1; /* a vector-splat field index: any offset */
        return 1;
      }
      unsigned field = (unsigned)LLVMConstIntGetZExtValue(idx);
      *c = wrap_add(*c, (long long)LLVMOffsetOfElement(t->td, ty, field));
      ty = LLVMStructGetTypeAtIndex(ty, field);
      continue;
    }
    unsigned long long count = 0; /* elements of the array indexed, if known */
    if (i > 1) {
      if (LLVMGetTypeKind(ty) == LLVMArrayTypeKind)
        count = LLVMGetArrayLength2(ty);
      ty = LLVMGetElementType(ty);
    }
    unsigned long long es = LLVMABISizeOfType(t->td, ty);
    unsigned long long s;
    long long k;
    int stride_known = ta_linear(t, idx, &s, &k, 0);
    if (s && count && members && *nmembers < MAX_GEP_MEMBERS) {
      members[*nmembers].start = *c;
      members[*nmembers].es = es;
      members[*nmembers].count = count;
      ++*nmembers;
    }
    /* x[i + k] stays inside x: an unrolled loop's constant k counts
     * within the member, not past its end into the next field */
    if (s && count && count <= (unsigned long long)LLONG_MAX / 2)
      k = ((k % (long long)count) + (long long)count) % (long long)count;
    *c = wrap_add(*c, wrap_mul(k, (long long)es));
    if (s && i == 1) {
      *stride = ta_gcd(*stride, s * es);
      /* a byte offset of no known stride (an element's size is a
       * stride of its own) */
      known = stride_known || es != 1;
    }
    ta_note(t, idx, ta_fact(AD_T_INTEGER, 0));
  }
  return known;
}

/* The address of v, computing it for constants, arguments and globals;
 * 0 when unknown (yet). */
int ta_addr(ad_types *t, LLVMValueRef v, int *obj, long long *off, int depth) {
  const tval *tv = ta_vget(t, v);
  if (tv && tv->obj >= 0) {
    *obj = tv->obj;
    *off = tv->off;
    return 1;
  }
  if (depth > MAX_DEPTH)
    return 0;
  if (LLVMIsAGlobalValue(v) || LLVMIsAArgument(v)) {
    *obj = ta_root(t, v);
    *off = 0;
    return *obj >= 0;
  }
  if (!LLVMIsAConstantExpr(v))
    return 0;
  int known = 0;
  switch (LLVMGetConstOpcode(v)) {
  case LLVMGetElementPtr: {
    if (!ta_addr(t, LLVMGetOperand(v, 0), obj, off, depth + 1))
      return 0;
    unsigned long long s;
    long long c;
    ta_gep_offset(t, v, &s, &c, NULL, NULL);
    ta_set_period(t, *obj, s);
    *off += c;
    known = 1;
    break;
  }
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
    known = ta_addr(t, LLVMGetOperand(v, 0), obj, off, depth + 1);
    break;
  default:
    break;
  }
  if (known) {
    /* remembered, so that queries (which do not compute) find it */
    int i = vindex(t, v, 1);
    if (i >= 0) {
      t->vals[i].obj = *obj;
      t->vals[i].off = *off;
    }
  }
  return known;
}

void ta_set_addr(ad_types *t, LLVMValueRef v, int obj, long long off) {
  if (obj < 0 || LLVMIsConstant(v))
    return;
  int i = vindex(t, v, 1);
  if (i < 0)
    return;
  tval *tv = &t->vals[i];
  if (tv->obj < 0) {
    tv->obj = obj;
    tv->off = off;
    t->changed = 1;
  } else if (tv->obj == obj) {
    long long d = off - tv->off;
    if (d && ta_norm(&t->objs[obj], d) != 0)
      ta_set_period(t, obj, (unsigned long long)(d < 0 ? -d : d));
  } else {
    ta_exchange(t, tv->obj, tv->off, obj, off, -1);
  }
}

/* A fresh object for v (kept if v has one). */
int ta_root(ad_types *t, LLVMValueRef v) {
  const tval *tv = ta_vget(t, v);
  if (tv && tv->obj >= 0)
    return tv->obj;
  int obj = new_obj(t);
  int i = vindex(t, v, 1);
  if (obj < 0 || i < 0)
    return -1;
  t->vals[i].obj = obj;
  t->vals[i].off = 0;
  t->changed = 1;
  if (LLVMIsAGlobalVariable(v)) {
    int budget = MAX_TYPE_ENTRIES;
    ta_record_type(t, obj, 0, LLVMGlobalGetValueType(v),
                   ta_fact(AD_T_UNKNOWN, 0), 0, &budget);
  }
  return obj;
}

/* Two values that are the same thing (a PHI and an incoming value, a
 * parameter and an argument, a call and a returned value). */
void ta_unify(ad_types *t, LLVMValueRef a, LLVMValueRef b) {
  if (ta_is_int_type(LLVMTypeOf(a))) {
    tfact j = ta_join(ta_value_fact(t, a), ta_value_fact(t, b));
    ta_note(t, a, j);
    ta_note(t, b, j);
  }
  int oa, ob;
  long long fa, fb;
  int ka = ta_addr(t, a, &oa, &fa, 0), kb = ta_addr(t, b, &ob, &fb, 0);
  if (kb)
    ta_set_addr(t, a, ob, fb);
  if (ka)
    ta_set_addr(t, b, oa, fa);
}

/* A load or store of `ty` (value v, may be NULL) at pointer p; a tape
 * record's (own_type: ad_is_tape_access) gives its bytes v's type and
 * takes nothing back from them, since the buffer's one object joins
 * every record pushed through it (ints, floats, pointers at offsets known
 * only at run time) and v was written and is read at its own type. */
void ta_access(ad_types *t, LLVMValueRef p, LLVMValueRef v, LLVMTypeRef ty,
               int own_type) {
  int obj;
  long long off;
  if (!ta_addr(t, p, &obj, &off, 0))
    obj = ta_root(t, p), off = 0;
  if (obj < 0)
    return;
  if (v && LLVMGetTypeKind(ty) == LLVMIntegerTypeKind) {
    unsigned long long size = LLVMStoreSizeOfType(t->td, ty);
    /* A narrow integer moved through memory may be float bits (a float
     * copied as i32): without evidence it stays unknown.  A byte constant
     * stored is not (no float is a byte wide, and bytes written as
     * constants carry no derivative): a character, a flag (std::string's
     * 'x' and its terminating '\0'). */
    if (!own_type)
      ta_note(t, v, ta_mem_get(t, obj, off, size, 0));
    tfact f = ta_value_fact(t, v);
    if (f.kind == AD_T_UNKNOWN && LLVMIsAConstantInt(v) && size == 1)
      f = ta_fact(AD_T_INTEGER, 0);
    ta_mem_note(t, obj, off, size, f);
    return;
  }
  if (v && LLVMGetTypeKind(ty) == LLVMVectorTypeKind &&
      LLVMGetTypeKind(LLVMGetElementType(ty)) == LLVMIntegerTypeKind) {
    /* lanes of integers (a vectorized copy moving float bits as <2 x
     * i64>): the value's one fact joins every lane's bytes */
    unsigned n = LLVMGetVectorSize(ty);
    unsigned long long size = LLVMStoreSizeOfType(t->td, LLVMGetElementType(ty));
    for (unsigned k = 0; k < n && k < 64; k++) {
      long long at = off + (long long)(k * size);
      if (!own_type)
        ta_note(t, v, ta_mem_get(t, obj, at, size, 0));
      ta_mem_note(t, obj, at, size, ta_value_fact(t, v));
    }
    return;
  }
  int budget = MAX_TYPE_ENTRIES;
  ta_record_type(t, obj, off, ty, ta_fact(AD_T_UNKNOWN, 0), 0, &budget);
}
