/*
 * Type analysis: for every value, and for every byte offset of the memory a
 * pointer points into, whether it holds a float (of which width), an
 * integer, a pointer, or is unknown (kinds and joins in typeanalysis.h).
 *
 * Model.  Every pointer value (and every integer that carries one) has an
 * address: an abstract memory object and a byte offset in it.  Objects are
 * born at allocas, arguments, globals, allocation calls, loaded pointers and
 * integers turned into pointers; GEPs and integer arithmetic move the
 * offset.  A variable index of stride S makes the object periodic with
 * period S (an array of S-byte elements): offsets are then kept modulo S,
 * and strides that disagree take their gcd.  A period smaller than an
 * element collapses the object to one summary kind.
 *
 * Facts come from LLVM types (loads, stores, globals' value types), from
 * how integers are used (ptrtoint/inttoptr, GEP indices, multiplication,
 * shifts, int<->float conversions), from the argument types the rule tables
 * give known calls (allocation, the memcpy family, the CUDA driver and
 * runtime transfer and allocation APIs) and flow both ways through
 * loads/stores, PHIs, selects, copies (memcpy, cuMemcpy*, cudaMemcpy*: the
 * two sides' layouts are exchanged) and calls to functions with bodies
 * (parameters and arguments, returns and results), until nothing changes.
 *
 * It is context-insensitive (one fact per callee, joined over call sites)
 * and follows one level of pointers (a pointer loaded from memory starts a
 * new object): both only lose precision, and lost precision means
 * "unknown", which the engine treats conservatively.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/typeanalysis.h"

/* MAX_CALL_DEPTH: callees are analyzed with the function up to this many
 * calls away from it; one farther is treated as a call to a function with
 * no body (nothing learned: "unknown", which the engine treats
 * conservatively).  Without the bound every derivative of a chain of N
 * calls would analyze the rest of the chain: N^2 work in all (issue 10). */
enum { MAX_ROUNDS = 64, MAX_TYPE_ENTRIES = 1024, MAX_DEPTH = 32,
       MAX_CALL_DEPTH = 16 };

typedef struct tfact {
  unsigned char kind; /* ad_tkind */
  unsigned short bits; /* float width */
} tfact;

typedef struct tentry {
  long long off;
  unsigned long long size;
  tfact f;
} tentry;

typedef struct tobj {
  tentry *e;
  size_t n, cap;
  unsigned long long period; /* 0: not periodic */
  int collapsed;             /* one summary fact for every byte */
  tfact summary;
} tobj;

typedef struct tval {
  tfact f;   /* integers only; other types take their kind from the type */
  int obj;   /* -1: no known address */
  long long off;
} tval;

struct ad_types {
  const ad_engine *e;
  LLVMTargetDataRef td;
  int own_td;
  ad_map index; /* value -> 1 + index into vals */
  tval *vals;
  size_t nvals, capvals;
  tobj *objs;
  size_t nobjs, capobjs;
  ad_map fnset; /* functions analyzed together -> 1 + calls from the root */
  LLVMValueRef *fns;
  size_t nfns, capfns;
  int changed, oom;
};

/* ---- the lattice ---- */

static tfact fact(ad_tkind k, unsigned bits) {
  tfact f = {(unsigned char)k, (unsigned short)bits};
  return f;
}

static tfact join(tfact a, tfact b) {
  if (a.kind == AD_T_UNKNOWN)
    return b;
  if (b.kind == AD_T_UNKNOWN || (a.kind == b.kind && a.bits == b.bits))
    return a;
  if (a.kind == AD_T_CONFLICT || b.kind == AD_T_CONFLICT)
    return fact(AD_T_CONFLICT, 0);
  if ((a.kind == AD_T_POINTER && b.kind == AD_T_INTEGER) ||
      (a.kind == AD_T_INTEGER && b.kind == AD_T_POINTER))
    return fact(AD_T_POINTER, 0);
  return fact(AD_T_CONFLICT, 0);
}

static int same(tfact a, tfact b) { return a.kind == b.kind && a.bits == b.bits; }

const char *ad_tkind_name(ad_tkind k, unsigned bits) {
  switch (k) {
  case AD_T_INTEGER:
    return "integer";
  case AD_T_POINTER:
    return "pointer";
  case AD_T_CONFLICT:
    return "conflict";
  case AD_T_FLOAT:
    switch (bits) {
    case 16:
      return "float16";
    case 32:
      return "float32";
    case 64:
      return "float64";
    case 80:
      return "float80";
    case 128:
      return "float128";
    default:
      return "float";
    }
  default:
    return "unknown";
  }
}

static unsigned long long gcd(unsigned long long a, unsigned long long b) {
  while (b) {
    unsigned long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* ---- storage ---- */

static int is_int_type(LLVMTypeRef ty) {
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
    tval *g = realloc(t->vals, ncap * sizeof *g);
    if (!g) {
      t->oom = 1;
      return -1;
    }
    t->vals = g;
    t->capvals = ncap;
  }
  tval *nv = &t->vals[t->nvals];
  nv->f = fact(AD_T_UNKNOWN, 0);
  nv->obj = -1;
  nv->off = 0;
  if (ad_map_put(&t->index, v, (void *)(uintptr_t)(t->nvals + 1)) != 0) {
    t->oom = 1;
    return -1;
  }
  return (int)t->nvals++;
}

static const tval *vget(const ad_types *t, LLVMValueRef v) {
  void *p = ad_map_get(&t->index, v);
  return p ? &t->vals[(uintptr_t)p - 1] : NULL;
}

static int new_obj(ad_types *t) {
  if (t->nobjs == t->capobjs) {
    size_t ncap = t->capobjs ? 2 * t->capobjs : 64;
    tobj *g = realloc(t->objs, ncap * sizeof *g);
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
static void note(ad_types *t, LLVMValueRef v, tfact f) {
  if (f.kind == AD_T_UNKNOWN || !v || LLVMIsConstant(v) ||
      !is_int_type(LLVMTypeOf(v)))
    return;
  int i = vindex(t, v, 1);
  if (i < 0)
    return;
  tfact j = join(t->vals[i].f, f);
  if (!same(j, t->vals[i].f)) {
    t->vals[i].f = j;
    t->changed = 1;
  }
}

static unsigned float_bits(LLVMTypeRef ty) {
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind)
    ty = LLVMGetElementType(ty);
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
  default:
    return 128;
  }
}

static tfact value_fact(const ad_types *t, LLVMValueRef v) {
  LLVMTypeRef ty = LLVMTypeOf(v);
  if (ad_type_is_float(ty))
    return fact(AD_T_FLOAT, float_bits(ty));
  if (ad_type_is_pointerish(ty))
    return fact(AD_T_POINTER, 0);
  if (!is_int_type(ty))
    return fact(AD_T_UNKNOWN, 0);
  const tval *tv = vget(t, v);
  return tv ? tv->f : fact(AD_T_UNKNOWN, 0);
}

/* ---- object layouts ---- */

static long long norm(const tobj *o, long long off) {
  if (!o->period)
    return off;
  long long p = (long long)o->period, r = off % p;
  return r < 0 ? r + p : r;
}

static void collapse(ad_types *t, tobj *o) {
  for (size_t i = 0; i < o->n; i++)
    o->summary = join(o->summary, o->e[i].f);
  o->n = 0;
  o->collapsed = 1;
  t->changed = 1;
}

static void mem_note(ad_types *t, int obj, long long off,
                     unsigned long long size, tfact f) {
  if (obj < 0 || f.kind == AD_T_UNKNOWN || size == 0)
    return;
  tobj *o = &t->objs[obj];
  if (o->collapsed) {
    tfact j = join(o->summary, f);
    if (!same(j, o->summary)) {
      o->summary = j;
      t->changed = 1;
    }
    return;
  }
  if (o->period && size > o->period) {
    collapse(t, o);
    mem_note(t, obj, off, size, f);
    return;
  }
  off = norm(o, off);
  for (size_t i = 0; i < o->n; i++)
    if (o->e[i].off == off && o->e[i].size == size) {
      tfact j = join(o->e[i].f, f);
      if (!same(j, o->e[i].f)) {
        o->e[i].f = j;
        t->changed = 1;
      }
      return;
    }
  if (o->n >= MAX_TYPE_ENTRIES * 4)
    return; /* enough: further bytes stay unknown */
  if (o->n == o->cap) {
    size_t ncap = o->cap ? 2 * o->cap : 8;
    tentry *g = realloc(o->e, ncap * sizeof *g);
    if (!g) {
      t->oom = 1;
      return;
    }
    o->e = g;
    o->cap = ncap;
  }
  o->e[o->n].off = off;
  o->e[o->n].size = size;
  o->e[o->n].f = f;
  o->n++;
  t->changed = 1;
}

/* The fact of bytes [off, off+size): an exact entry, else the join of the
 * overlapping ones.  `raw` keeps a conflict; otherwise a conflict reads as
 * unknown, so a value is never blamed for its neighbours' bytes. */
static tfact mem_get(const ad_types *t, int obj, long long off,
                     unsigned long long size, int raw) {
  if (obj < 0)
    return fact(AD_T_UNKNOWN, 0);
  const tobj *o = &t->objs[obj];
  tfact f = fact(AD_T_UNKNOWN, 0);
  if (o->collapsed)
    f = o->summary;
  else {
    off = norm(o, off);
    int exact = 0;
    for (size_t i = 0; i < o->n; i++) {
      const tentry *e = &o->e[i];
      if (e->off == off && e->size == size) {
        f = e->f;
        exact = 1;
        break;
      }
    }
    for (size_t i = 0; i < o->n && !exact; i++) {
      const tentry *e = &o->e[i];
      long long eo = e->off;
      if (o->period && eo + (long long)e->size <= off)
        eo += (long long)o->period; /* an entry of the next element */
      if (eo < off + (long long)size && off < eo + (long long)e->size)
        f = join(f, e->f);
    }
  }
  if (!raw && f.kind == AD_T_CONFLICT)
    return fact(AD_T_UNKNOWN, 0);
  return f;
}

static void set_period(ad_types *t, int obj, unsigned long long p) {
  if (obj < 0 || p == 0)
    return;
  tobj *o = &t->objs[obj];
  if (o->collapsed)
    return;
  unsigned long long np = o->period ? gcd(o->period, p) : p;
  if (np == o->period)
    return;
  t->changed = 1;
  for (size_t i = 0; i < o->n; i++)
    if (o->e[i].size > np) {
      collapse(t, o);
      return;
    }
  /* Renormalize: entries that land on the same bytes join. */
  size_t n = o->n;
  tentry *old = o->e;
  o->e = NULL;
  o->n = o->cap = 0;
  o->period = np;
  for (size_t i = 0; i < n; i++)
    mem_note(t, obj, old[i].off, old[i].size, old[i].f);
  free(old);
}

/* The byte layout of type `ty` at (obj, off); integer members get `ifact`. */
static void record_type(ad_types *t, int obj, long long off, LLVMTypeRef ty,
                        tfact ifact, int depth, int *budget) {
  if (depth > MAX_DEPTH || --*budget < 0)
    return;
  switch (LLVMGetTypeKind(ty)) {
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(ty);
    for (unsigned i = 0; i < n; i++)
      record_type(t, obj, off + (long long)LLVMOffsetOfElement(t->td, ty, i),
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
    for (unsigned long long i = 0; i < n && *budget > 0; i++)
      record_type(t, obj, off + (long long)(i * es), el, ifact, depth + 1,
                  budget);
    return;
  }
  case LLVMPointerTypeKind:
    mem_note(t, obj, off, LLVMStoreSizeOfType(t->td, ty),
             fact(AD_T_POINTER, 0));
    return;
  case LLVMIntegerTypeKind: {
    tfact f = ifact;
    /* an integer narrower than a pointer never holds one */
    if (f.kind == AD_T_UNKNOWN &&
        LLVMSizeOfTypeInBits(t->td, ty) < 8 * LLVMPointerSize(t->td))
      f = fact(AD_T_INTEGER, 0);
    mem_note(t, obj, off, LLVMStoreSizeOfType(t->td, ty), f);
    return;
  }
  default:
    if (ad_type_is_float_scalar(ty))
      mem_note(t, obj, off, LLVMStoreSizeOfType(t->td, ty),
               fact(AD_T_FLOAT, float_bits(ty)));
    return;
  }
}

/* Exchanges the facts of two views of the same bytes: (a, aoff) and
 * (b, boff), over `len` bytes (len < 0: to the end / every period). */
static void exchange_one(ad_types *t, int from, long long foff, int to,
                         long long toff, long long len) {
  if (from < 0 || to < 0 || from == to)
    return;
  tobj *f = &t->objs[from];
  if (f->collapsed) {
    if (f->summary.kind != AD_T_CONFLICT && f->summary.kind != AD_T_UNKNOWN &&
        t->objs[to].period == 0 && !t->objs[to].collapsed && len < 0)
      set_period(t, to, 1); /* collapses `to` too */
    return;
  }
  if (f->period && (len < 0 || (unsigned long long)len > f->period))
    set_period(t, to, f->period);
  size_t n = f->n;
  for (size_t i = 0; i < n; i++) {
    tentry e = t->objs[from].e[i]; /* mem_note may move the array */
    long long rel = e.off - norm(&t->objs[from], foff);
    if (t->objs[from].period) {
      long long p = (long long)t->objs[from].period;
      rel = ((rel % p) + p) % p;
    } else if (rel < 0) {
      continue;
    }
    if (len >= 0 && rel + (long long)e.size > len)
      continue;
    mem_note(t, to, toff + rel, e.size, e.f);
  }
}

static void exchange(ad_types *t, int a, long long aoff, int b, long long boff,
                     long long len) {
  exchange_one(t, a, aoff, b, boff, len);
  exchange_one(t, b, boff, a, aoff, len);
}

/* ---- addresses ---- */

/* v = stride * X + c for some unknown integer X (stride 0: v is c). */
static void linear(LLVMValueRef v, unsigned long long *stride, long long *c,
                   int depth) {
  *stride = 1;
  *c = 0;
  if (LLVMIsAConstantInt(v)) {
    *stride = 0;
    *c = LLVMConstIntGetSExtValue(v);
    return;
  }
  if (depth > 12 || !LLVMIsAInstruction(v))
    return;
  unsigned long long s0, s1;
  long long c0, c1;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMAdd:
  case LLVMSub:
    linear(LLVMGetOperand(v, 0), &s0, &c0, depth + 1);
    linear(LLVMGetOperand(v, 1), &s1, &c1, depth + 1);
    *stride = gcd(s0, s1);
    *c = LLVMGetInstructionOpcode(v) == LLVMAdd ? c0 + c1 : c0 - c1;
    return;
  case LLVMOr:
    if (!LLVMGetIsDisjoint(v))
      return;
    linear(LLVMGetOperand(v, 0), &s0, &c0, depth + 1);
    linear(LLVMGetOperand(v, 1), &s1, &c1, depth + 1);
    *stride = gcd(s0, s1);
    *c = c0 + c1;
    return;
  case LLVMShl:
  case LLVMMul: {
    LLVMValueRef k = LLVMGetOperand(v, 1), x = LLVMGetOperand(v, 0);
    if (!LLVMIsAConstantInt(k) && LLVMGetInstructionOpcode(v) == LLVMMul) {
      k = LLVMGetOperand(v, 0);
      x = LLVMGetOperand(v, 1);
    }
    if (!LLVMIsAConstantInt(k))
      return;
    long long m = LLVMConstIntGetSExtValue(k);
    if (LLVMGetInstructionOpcode(v) == LLVMShl)
      m = m >= 0 && m < 62 ? 1LL << m : 0;
    if (m <= 0)
      return;
    linear(x, &s0, &c0, depth + 1);
    *stride = s0 * (unsigned long long)m;
    *c = c0 * m;
    return;
  }
  case LLVMSExt:
  case LLVMZExt:
  case LLVMTrunc:
    linear(LLVMGetOperand(v, 0), stride, c, depth + 1);
    return;
  default:
    return;
  }
}

/* Byte offset of a GEP (instruction or constant expression) from its base:
 * constant part *c, variable part a multiple of *stride (0: none).  A
 * variable index past the first one moves within an array member of a
 * known aggregate ({int n; double x[3]} indexed as x[i]): the repetition is
 * that member's, not the whole object's, so *stride stays 0 for it and
 * the elements share the facts of the constant part's element. */
static void gep_offset(ad_types *t, LLVMValueRef gep,
                       unsigned long long *stride, long long *c) {
  LLVMTypeRef ty = LLVMGetGEPSourceElementType(gep);
  unsigned n = (unsigned)LLVMGetNumOperands(gep);
  *stride = 0;
  *c = 0;
  for (unsigned i = 1; i < n; i++) {
    LLVMValueRef idx = LLVMGetOperand(gep, i);
    if (i > 1 && LLVMGetTypeKind(ty) == LLVMStructTypeKind) {
      if (!LLVMIsAConstantInt(idx)) {
        *stride = 1; /* a vector-splat field index: any offset */
        return;
      }
      unsigned field = (unsigned)LLVMConstIntGetZExtValue(idx);
      *c += (long long)LLVMOffsetOfElement(t->td, ty, field);
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
    linear(idx, &s, &k, 0);
    /* x[i + k] stays inside x: an unrolled loop's constant k counts
     * within the member, not past its end into the next field */
    if (s && count)
      k = ((k % (long long)count) + (long long)count) % (long long)count;
    *c += k * (long long)es;
    if (s && i == 1)
      *stride = gcd(*stride, s * es);
    note(t, idx, fact(AD_T_INTEGER, 0));
  }
}

static int root(ad_types *t, LLVMValueRef v);

/* The address of v, computing it for constants, arguments and globals;
 * 0 when unknown (yet). */
static int addr(ad_types *t, LLVMValueRef v, int *obj, long long *off,
                int depth) {
  const tval *tv = vget(t, v);
  if (tv && tv->obj >= 0) {
    *obj = tv->obj;
    *off = tv->off;
    return 1;
  }
  if (depth > MAX_DEPTH)
    return 0;
  if (LLVMIsAGlobalValue(v) || LLVMIsAArgument(v)) {
    *obj = root(t, v);
    *off = 0;
    return *obj >= 0;
  }
  if (!LLVMIsAConstantExpr(v))
    return 0;
  int known = 0;
  switch (LLVMGetConstOpcode(v)) {
  case LLVMGetElementPtr: {
    if (!addr(t, LLVMGetOperand(v, 0), obj, off, depth + 1))
      return 0;
    unsigned long long s;
    long long c;
    gep_offset(t, v, &s, &c);
    set_period(t, *obj, s);
    *off += c;
    known = 1;
    break;
  }
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
    known = addr(t, LLVMGetOperand(v, 0), obj, off, depth + 1);
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

static void set_addr(ad_types *t, LLVMValueRef v, int obj, long long off) {
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
    if (d && norm(&t->objs[obj], d) != 0)
      set_period(t, obj, (unsigned long long)(d < 0 ? -d : d));
  } else {
    exchange(t, tv->obj, tv->off, obj, off, -1);
  }
}

/* A fresh object for v (kept if v has one). */
static int root(ad_types *t, LLVMValueRef v) {
  const tval *tv = vget(t, v);
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
    record_type(t, obj, 0, LLVMGlobalGetValueType(v), fact(AD_T_UNKNOWN, 0), 0,
                &budget);
  }
  return obj;
}

/* Two values that are the same thing (a PHI and an incoming value, a
 * parameter and an argument, a call and a returned value). */
static void unify(ad_types *t, LLVMValueRef a, LLVMValueRef b) {
  if (is_int_type(LLVMTypeOf(a))) {
    tfact j = join(value_fact(t, a), value_fact(t, b));
    note(t, a, j);
    note(t, b, j);
  }
  int oa, ob;
  long long fa, fb;
  int ka = addr(t, a, &oa, &fa, 0), kb = addr(t, b, &ob, &fb, 0);
  if (kb)
    set_addr(t, a, ob, fb);
  if (ka)
    set_addr(t, b, oa, fa);
}

/* A load or store of `ty` (value v, may be NULL) at pointer p. */
static void access(ad_types *t, LLVMValueRef p, LLVMValueRef v,
                   LLVMTypeRef ty) {
  int obj;
  long long off;
  if (!addr(t, p, &obj, &off, 0))
    obj = root(t, p), off = 0;
  if (obj < 0)
    return;
  if (v && LLVMGetTypeKind(ty) == LLVMIntegerTypeKind) {
    unsigned long long size = LLVMStoreSizeOfType(t->td, ty);
    /* A narrow integer moved through memory may be float bits (a float
     * copied as i32): without evidence it stays unknown. */
    note(t, v, mem_get(t, obj, off, size, 0));
    mem_note(t, obj, off, size, value_fact(t, v));
    return;
  }
  int budget = MAX_TYPE_ENTRIES;
  record_type(t, obj, off, ty, fact(AD_T_UNKNOWN, 0), 0, &budget);
}

/* ---- calls ---- */

/*
 * What a call's arguments are comes from the rule tables (ad_typed_rule in
 * engine.h: the memory and CUDA families), so a call the rules handle is
 * never one this analysis knows nothing about.  Below, in the same letters,
 * calls whose rules carry no argument types (libm's out-parameters, whose
 * rules are rules_math.c's) or that have no rule.
 */
static const struct {
  const char *name, *args;
} untabled_calls[] = {
    /* libm with out-parameters */
    {"frexp", "-I"}, {"frexpf", "-I"}, {"frexpl", "-I"},
    {"modf", "-F"}, {"modff", "-F"}, {"modfl", "-F"},
    {"sincos", "-FF"}, {"sincosf", "-FF"}, {"sincosl", "-FF"},
    {"lgamma_r", "-I"}, {"remquo", "--I"},
};

typedef struct call_types {
  const char *args; /* NULL: nothing known */
  int allocates;    /* the result is a fresh object */
} call_types;

static call_types call_types_of(const char *name) {
  call_types ct = {NULL, 0};
  const ad_typed_rule *r = ad_memory_typed_lookup(name);
  if (!r)
    r = ad_cuda_typed_lookup(name);
  if (r) {
    ct.args = r->arg_types;
    ct.allocates = r->rule.returns_allocation;
    return ct;
  }
  for (size_t i = 0; i < sizeof untabled_calls / sizeof *untabled_calls; i++)
    if (ad_name_matches(name, untabled_calls[i].name)) {
      ct.args = untabled_calls[i].args;
      break;
    }
  return ct;
}

/* The argument a letter of `args` marks, or -1 (also past nargs). */
static int arg_marked(const char *args, char letter, unsigned nargs) {
  const char *at = strchr(args, letter);
  return at && (unsigned)(at - args) < nargs ? (int)(at - args) : -1;
}

/* Adds fn, `depth` calls away from the root (functions are visited in the
 * order added, breadth first, so a function's first depth is its least). */
static void add_function(ad_types *t, LLVMValueRef fn, size_t depth) {
  if (ad_map_get(&t->fnset, fn))
    return;
  if (t->nfns == t->capfns) {
    size_t ncap = t->capfns ? 2 * t->capfns : 16;
    LLVMValueRef *g = realloc(t->fns, ncap * sizeof *g);
    if (!g) {
      t->oom = 1;
      return;
    }
    t->fns = g;
    t->capfns = ncap;
  }
  if (ad_map_put(&t->fnset, fn, (void *)(uintptr_t)(depth + 1)) != 0) {
    t->oom = 1;
    return;
  }
  t->fns[t->nfns++] = fn;
  t->changed = 1;
}

static void visit_call(ad_types *t, LLVMValueRef call) {
  unsigned nargs = LLVMGetNumArgOperands(call);
  LLVMValueRef fn = ad_called_function(call);
  char buf[256];
  const char *name = ad_call_rule_name(t->e, call, buf, sizeof buf);
  call_types ct = {NULL, 0};
  if (name)
    ct = call_types_of(name);
  const char *sig = ct.args;
  size_t nsig = sig ? strlen(sig) : 0;
  for (unsigned k = 0; k < nargs; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    char letter = k < nsig ? sig[k] : 0;
    int obj;
    long long off;
    switch (letter) {
    case 'p':
    case 'd':
    case 's':
      note(t, a, fact(AD_T_POINTER, 0));
      break;
    case 'i':
    case 'n':
      note(t, a, fact(AD_T_INTEGER, 0));
      break;
    case 'P':
    case 'I':
    case 'Z':
    case 'F':
      if (!addr(t, a, &obj, &off, 0))
        obj = root(t, a), off = 0;
      if (letter == 'P')
        mem_note(t, obj, off, LLVMPointerSize(t->td), fact(AD_T_POINTER, 0));
      else if (letter == 'I')
        mem_note(t, obj, off, 4, fact(AD_T_INTEGER, 0));
      else if (letter == 'Z')
        mem_note(t, obj, off, LLVMPointerSize(t->td), fact(AD_T_INTEGER, 0));
      else if (ad_type_is_float(LLVMTypeOf(call))) {
        int budget = 4;
        record_type(t, obj, off, LLVMTypeOf(call), fact(AD_T_UNKNOWN, 0), 0,
                    &budget);
      }
      break;
    default:
      /* an external without a signature: integers narrower than a pointer
       * are integers (a wider one may be a handle) */
      if (!sig && fn && LLVMCountBasicBlocks(fn) == 0 &&
          is_int_type(LLVMTypeOf(a)) &&
          LLVMSizeOfTypeInBits(t->td, LLVMTypeOf(a)) <
              8 * LLVMPointerSize(t->td))
        note(t, a, fact(AD_T_INTEGER, 0));
      break;
    }
  }
  int kd = sig ? arg_marked(sig, 'd', nargs) : -1;
  int ks = sig ? arg_marked(sig, 's', nargs) : -1;
  int kn = sig ? arg_marked(sig, 'n', nargs) : -1;
  if (kd >= 0 && ks >= 0 && kn >= 0) {
    LLVMValueRef d = LLVMGetOperand(call, (unsigned)kd);
    LLVMValueRef s = LLVMGetOperand(call, (unsigned)ks);
    LLVMValueRef n = LLVMGetOperand(call, (unsigned)kn);
    int od, os;
    long long fd, fs;
    if (!addr(t, d, &od, &fd, 0))
      od = root(t, d), fd = 0;
    if (!addr(t, s, &os, &fs, 0))
      os = root(t, s), fs = 0;
    long long len = LLVMIsAConstantInt(n) ? LLVMConstIntGetSExtValue(n) : -1;
    exchange(t, os, fs, od, fd, len);
  }
  size_t depth = (size_t)(uintptr_t)ad_map_get(
      &t->fnset, LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)));
  if (ct.allocates) {
    root(t, call);
  } else if (fn && LLVMCountBasicBlocks(fn) > 0 &&
             LLVMCountParams(fn) == nargs &&
             !LLVMIsFunctionVarArg(LLVMGlobalGetValueType(fn)) &&
             (ad_map_get(&t->fnset, fn) || depth < MAX_CALL_DEPTH)) {
    add_function(t, fn, depth);
    for (unsigned k = 0; k < nargs; k++)
      unify(t, LLVMGetParam(fn, k), LLVMGetOperand(call, k));
    if (LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind)
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
           bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
        if (term && LLVMGetInstructionOpcode(term) == LLVMRet &&
            LLVMGetNumOperands(term) == 1)
          unify(t, call, LLVMGetOperand(term, 0));
      }
  } else if (ad_type_is_pointerish(LLVMTypeOf(call))) {
    root(t, call);
  }
}

/* ---- instructions ---- */

/* Integer arithmetic that may move a pointer: p + k, p - k, p & mask. */
static void visit_int_arith(ad_types *t, LLVMValueRef inst, LLVMOpcode op) {
  LLVMValueRef a = LLVMGetOperand(inst, 0), b = LLVMGetOperand(inst, 1);
  tfact fa = value_fact(t, a), fb = value_fact(t, b);
  int pa = fa.kind == AD_T_POINTER, pb = fb.kind == AD_T_POINTER;
  if (fa.kind == AD_T_FLOAT || fb.kind == AD_T_FLOAT ||
      fa.kind == AD_T_CONFLICT || fb.kind == AD_T_CONFLICT) {
    /* integer operations on float bits */
    note(t, inst, fact(AD_T_CONFLICT, 0));
    return;
  }
  if (pa && pb) {
    note(t, inst, fact(AD_T_INTEGER, 0)); /* a difference of pointers */
    return;
  }
  if (pa || (pb && op != LLVMSub)) {
    note(t, inst, fact(AD_T_POINTER, 0));
    LLVMValueRef p = pa ? a : b, k = pa ? b : a;
    int obj;
    long long off;
    if (!addr(t, p, &obj, &off, 0))
      obj = root(t, p), off = 0;
    if (op == LLVMAdd || op == LLVMSub ||
        (op == LLVMOr && LLVMGetIsDisjoint(inst))) {
      unsigned long long s;
      long long c;
      linear(k, &s, &c, 0);
      set_period(t, obj, s);
      set_addr(t, inst, obj, op == LLVMSub ? off - c : off + c);
    } else {
      set_addr(t, inst, obj, off); /* masking keeps the allocation */
    }
    return;
  }
  tfact r = value_fact(t, inst);
  if (r.kind == AD_T_POINTER) {
    /* a pointer plus an integer: the other operand is the pointer */
    if (fa.kind == AD_T_UNKNOWN && !LLVMIsConstant(a) &&
        (fb.kind == AD_T_INTEGER || LLVMIsConstant(b)))
      note(t, a, r);
    else if (op != LLVMSub && fb.kind == AD_T_UNKNOWN && !LLVMIsConstant(b) &&
             (fa.kind == AD_T_INTEGER || LLVMIsConstant(a)))
      note(t, b, r);
  }
  if ((fa.kind == AD_T_INTEGER || LLVMIsConstant(a)) &&
      (fb.kind == AD_T_INTEGER || LLVMIsConstant(b)))
    note(t, inst, fact(AD_T_INTEGER, 0));
}

static void visit(ad_types *t, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  int obj;
  long long off;
  switch (ad_opcode_class(op)) {
  case AD_OP_INT_OFFSET:
    if (LLVMGetTypeKind(LLVMTypeOf(inst)) == LLVMIntegerTypeKind)
      visit_int_arith(t, inst, op);
    return;
  case AD_OP_INT_NUMBER:
    note(t, inst, fact(AD_T_INTEGER, 0));
    note(t, LLVMGetOperand(inst, 0), fact(AD_T_INTEGER, 0));
    note(t, LLVMGetOperand(inst, 1), fact(AD_T_INTEGER, 0));
    return;
  case AD_OP_COMPARE:
  case AD_OP_FLOAT_TO_INT:
    note(t, inst, fact(AD_T_INTEGER, 0));
    return;
  case AD_OP_INT_TO_FLOAT:
    note(t, LLVMGetOperand(inst, 0), fact(AD_T_INTEGER, 0));
    return;
  default:
    break;
  }
  switch (op) {
  case LLVMAlloca:
    root(t, inst);
    break;
  case LLVMLoad:
    access(t, LLVMGetOperand(inst, 0), inst, LLVMTypeOf(inst));
    if (ad_type_is_pointerish(LLVMTypeOf(inst)))
      root(t, inst);
    break;
  case LLVMStore:
    access(t, LLVMGetOperand(inst, 1), LLVMGetOperand(inst, 0),
           LLVMTypeOf(LLVMGetOperand(inst, 0)));
    break;
  case LLVMAtomicRMW:
    access(t, LLVMGetOperand(inst, 0), LLVMGetOperand(inst, 1),
           LLVMTypeOf(LLVMGetOperand(inst, 1)));
    unify(t, inst, LLVMGetOperand(inst, 1));
    break;
  case LLVMGetElementPtr: {
    LLVMValueRef base = LLVMGetOperand(inst, 0);
    unsigned long long s;
    long long c;
    if (LLVMGetTypeKind(LLVMTypeOf(base)) == LLVMVectorTypeKind)
      break;
    if (!addr(t, base, &obj, &off, 0))
      obj = root(t, base), off = 0;
    gep_offset(t, inst, &s, &c);
    /* Stepping from a pointer into the middle of an object (clang 20+
     * indexes x[i] of struct {int n; double x[3]} as a double GEP from &x)
     * walks a member, not the whole object: no period for it, and the
     * elements share the facts of the first. */
    if (obj < 0 || norm(&t->objs[obj], off) == 0)
      set_period(t, obj, s);
    set_addr(t, inst, obj, off + c);
    break;
  }
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMFreeze: {
    LLVMTypeRef from = LLVMTypeOf(LLVMGetOperand(inst, 0));
    LLVMTypeRef to = LLVMTypeOf(inst);
    if (ad_type_is_float(from) && is_int_type(to))
      note(t, inst, value_fact(t, LLVMGetOperand(inst, 0)));
    else if (is_int_type(from) && ad_type_is_float(to))
      note(t, LLVMGetOperand(inst, 0), value_fact(t, inst));
    else
      unify(t, inst, LLVMGetOperand(inst, 0));
    break;
  }
  case LLVMPtrToInt:
    note(t, inst, fact(AD_T_POINTER, 0));
    if (addr(t, LLVMGetOperand(inst, 0), &obj, &off, 0))
      set_addr(t, inst, obj, off);
    break;
  case LLVMIntToPtr:
    note(t, LLVMGetOperand(inst, 0), fact(AD_T_POINTER, 0));
    if (addr(t, LLVMGetOperand(inst, 0), &obj, &off, 0))
      set_addr(t, inst, obj, off);
    else if (vget(t, inst) == NULL || vget(t, inst)->obj < 0)
      root(t, inst);
    break;
  case LLVMTrunc:
    note(t, inst, fact(AD_T_INTEGER, 0));
    break;
  case LLVMZExt:
  case LLVMSExt:
    note(t, inst, fact(AD_T_INTEGER, 0));
    note(t, LLVMGetOperand(inst, 0), fact(AD_T_INTEGER, 0));
    break;
  case LLVMSelect:
    unify(t, inst, LLVMGetOperand(inst, 1));
    unify(t, inst, LLVMGetOperand(inst, 2));
    break;
  case LLVMPHI: {
    unsigned n = LLVMCountIncoming(inst);
    for (unsigned k = 0; k < n; k++)
      unify(t, inst, LLVMGetIncomingValue(inst, k));
    break;
  }
  case LLVMCall:
    visit_call(t, inst);
    break;
  default:
    break;
  }
}

/* ---- entry points ---- */

void ad_types_free(ad_types *t) {
  if (!t)
    return;
  for (size_t i = 0; i < t->nobjs; i++)
    free(t->objs[i].e);
  free(t->objs);
  free(t->vals);
  free(t->fns);
  ad_map_free(&t->index);
  ad_map_free(&t->fnset);
  if (t->own_td)
    LLVMDisposeTargetData(t->td);
  free(t);
}

ad_types *ad_types_analyze(const ad_engine *e, LLVMModuleRef m,
                           LLVMTargetDataRef td, LLVMValueRef fn) {
  ad_types *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->e = e;
  ad_map_init(&t->index);
  ad_map_init(&t->fnset);
  if (td) {
    t->td = td;
  } else {
    t->td = LLVMCreateTargetData(LLVMGetDataLayoutStr(m));
    t->own_td = 1;
  }
  add_function(t, fn, 0);
  for (unsigned i = 0; i < LLVMCountParams(fn); i++)
    if (ad_type_is_pointerish(LLVMTypeOf(LLVMGetParam(fn, i))))
      root(t, LLVMGetParam(fn, i));
  for (int round = 0; round < MAX_ROUNDS && !t->oom; round++) {
    t->changed = 0;
    for (size_t f = 0; f < t->nfns && !t->oom; f++)
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(t->fns[f]); bb;
           bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
             i = LLVMGetNextInstruction(i))
          visit(t, i);
    if (!t->changed)
      break;
  }
  if (t->oom) {
    ad_types_free(t);
    return NULL;
  }
  return t;
}

ad_tkind ad_types_kind(const ad_types *t, LLVMValueRef v, long long offset,
                       unsigned *bits) {
  tfact f;
  if (offset < 0) {
    f = value_fact(t, v);
  } else {
    const tval *tv = vget(t, v);
    f = tv && tv->obj >= 0 ? mem_get(t, tv->obj, tv->off + offset, 1, 1)
                           : fact(AD_T_UNKNOWN, 0);
  }
  if (bits)
    *bits = f.bits;
  return (ad_tkind)f.kind;
}

const char *ad_types_query(const ad_types *t, LLVMValueRef v,
                           long long offset) {
  unsigned bits = 0;
  ad_tkind k = ad_types_kind(t, v, offset, &bits);
  return ad_tkind_name(k, bits);
}

/* ---- copy layouts ---- */

static ad_byte_kind byte_kind(tfact f) {
  switch (f.kind) {
  case AD_T_FLOAT:
    return AD_BYTES_FLOAT;
  case AD_T_POINTER:
    return AD_BYTES_POINTER;
  case AD_T_INTEGER:
    return AD_BYTES_INTEGER;
  default:
    return AD_BYTES_UNKNOWN; /* unknown or conflict: the conservative copy */
  }
}

/* Segment list under construction: per byte kinds over [0, span). */
static int push_seg(ad_copy_layout *out, size_t *cap, unsigned long long off,
                    unsigned long long size, ad_byte_kind k) {
  if (size == 0)
    return 0;
  if (out->n && out->segs[out->n - 1].kind == k &&
      out->segs[out->n - 1].offset + out->segs[out->n - 1].size == off) {
    out->segs[out->n - 1].size += size;
    return 0;
  }
  if (out->n == *cap) {
    size_t ncap = *cap ? 2 * *cap : 8;
    ad_segment *g = realloc(out->segs, ncap * sizeof *g);
    if (!g)
      return -1;
    out->segs = g;
    *cap = ncap;
  }
  out->segs[out->n].offset = off;
  out->segs[out->n].size = size;
  out->segs[out->n].kind = k;
  out->n++;
  return 0;
}

/* The kind of copy-relative bytes [rel, rel+size) seen from one side. */
static tfact side_fact(const ad_types *t, int obj, long long base,
                       unsigned long long rel, unsigned long long size) {
  if (obj < 0)
    return fact(AD_T_UNKNOWN, 0);
  return mem_get(t, obj, base + (long long)rel, size, 1);
}

int ad_types_copy_layout(const ad_types *t, LLVMValueRef dst,
                         LLVMValueRef src, LLVMValueRef len,
                         ad_copy_layout *out) {
  const tval *vd = vget(t, dst), *vs = vget(t, src);
  int od = vd ? vd->obj : -1, os = vs ? vs->obj : -1;
  long long fd = vd ? vd->off : 0, fs = vs ? vs->off : 0;
  out->segs = NULL;
  out->n = 0;
  out->period = 0;
  size_t cap = 0;
  long long n = len && LLVMIsAConstantInt(len) ? LLVMConstIntGetSExtValue(len)
                                               : -1;
  unsigned long long period = 0;
  if (os >= 0 && t->objs[os].period)
    period = t->objs[os].period;
  if (od >= 0 && t->objs[od].period)
    period = period ? gcd(period, t->objs[od].period) : t->objs[od].period;
  tfact summary = fact(AD_T_UNKNOWN, 0); /* of collapsed sides */
  if (os >= 0 && t->objs[os].collapsed)
    summary = join(summary, t->objs[os].summary), period = 0;
  if (od >= 0 && t->objs[od].collapsed)
    summary = join(summary, t->objs[od].summary), period = 0;
  unsigned long long span;
  if (n >= 0 && (!period || (unsigned long long)n <= period))
    span = (unsigned long long)n, period = 0;
  else if (period)
    span = period;
  else
    span = 0; /* unknown length and no period: scan what the sides know */
  if (span == 0 && n < 0) {
    /* the extent both sides know about, from the copy's start */
    unsigned long long ext = 0;
    for (int side = 0; side < 2; side++) {
      int o = side ? os : od;
      long long b = side ? fs : fd;
      if (o < 0 || t->objs[o].collapsed)
        continue;
      for (size_t i = 0; i < t->objs[o].n; i++) {
        long long end = t->objs[o].e[i].off + (long long)t->objs[o].e[i].size -
                        b;
        if (end > (long long)ext)
          ext = (unsigned long long)end;
      }
    }
    span = ext;
  }
  /* Walk the span at the granularity of the entries (byte by byte would be
   * simplest; entries are at least a byte and spans are small). */
  unsigned long long pos = 0;
  while (pos < span && span <= (1ull << 16)) {
    tfact f = join(side_fact(t, os, fs, pos, 1), side_fact(t, od, fd, pos, 1));
    unsigned long long step = 1;
    /* extend over bytes of the same kind */
    while (pos + step < span) {
      tfact g =
          join(side_fact(t, os, fs, pos + step, 1), side_fact(t, od, fd, pos + step, 1));
      if (!same(g, f))
        break;
      step++;
    }
    if (push_seg(out, &cap, pos, step, byte_kind(f)) != 0)
      return -1;
    pos += step;
  }
  if (n < 0 && !period) {
    /* bytes past what is known */
    if (push_seg(out, &cap, pos, ~0ull - pos, byte_kind(summary)) != 0)
      return -1;
  } else if (pos < span) {
    if (push_seg(out, &cap, pos, span - pos, AD_BYTES_UNKNOWN) != 0)
      return -1;
  }
  if (out->n == 0 &&
      push_seg(out, &cap, 0, n >= 0 ? (unsigned long long)n : ~0ull,
               AD_BYTES_UNKNOWN) != 0)
    return -1;
  out->period = period;
  return 0;
}
