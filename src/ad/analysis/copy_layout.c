/*
 * Type classification from LLVM types alone (which types can carry a
 * derivative, Enzyme's default activity for unmarked request arguments),
 * and the copy-layout query, which asks the byte-level type analysis
 * (type_transfer.c) about the function holding the copy.
 */
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "ad/analysis/type_model.h"
#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"

/* Whether l leaves bytes unknown that the callers may tell: not the holes
 * of the ends' declared types (padding, which no code reads; asked, the
 * wider analyses merge the copy's objects with others of other layouts,
 * and their conflicts replaced the declared members' kinds: Eigen's
 * Block copied by its CwiseBinaryOp's constructor at -O0). */
static int has_unknown_bytes(const ad_copy_layout *l) {
  for (size_t i = 0; i < l->n; i++)
    if (l->segs[i].kind == AD_BYTES_UNKNOWN && !l->segs[i].hole)
      return 1;
  return 0;
}

/* The end of segment g (~0ull: it runs to the end of the copy). */
static unsigned long long seg_end(const ad_segment *g) {
  return g->size == ~0ull || g->offset + g->size < g->offset
             ? ~0ull
             : g->offset + g->size;
}

/* The segment of l covering byte off, or NULL. */
static const ad_segment *seg_at(const ad_copy_layout *l,
                                unsigned long long off) {
  for (size_t i = 0; i < l->n; i++)
    if (l->segs[i].offset <= off && off < seg_end(&l->segs[i]))
      return &l->segs[i];
  return NULL;
}

/* The least boundary of a segment of l after `off` (~0ull: none). */
static unsigned long long next_boundary(const ad_copy_layout *l,
                                        unsigned long long off) {
  unsigned long long b = ~0ull;
  for (size_t i = 0; i < l->n; i++) {
    unsigned long long s = l->segs[i].offset, e = seg_end(&l->segs[i]);
    if (s > off && s < b)
      b = s;
    if (e > off && e < b)
      b = e;
  }
  return b;
}

/* `wide` with its unknown bytes taken from `paths` where that proves them
 * floats or pointers (ad_types_analyze_on_call_paths): into *out, which
 * is wide itself when the two do not repeat alike.  0, or -1. */
static int take_proven(const ad_copy_layout *wide, const ad_copy_layout *paths,
                       ad_copy_layout *out) {
  out->segs = NULL;
  out->n = 0;
  out->period = wide->period;
  if (wide->period != paths->period)
    return 0;
  size_t cap = 0;
  for (unsigned long long at = 0; at != ~0ull;) {
    unsigned long long end = next_boundary(wide, at);
    unsigned long long pend = next_boundary(paths, at);
    if (pend < end)
      end = pend;
    const ad_segment *w = seg_at(wide, at), *q = seg_at(paths, at);
    if (!w)
      break;
    ad_segment g = *w;
    if (g.kind == AD_BYTES_UNKNOWN && q &&
        (q->kind == AD_BYTES_FLOAT || q->kind == AD_BYTES_POINTER))
      g = *q;
    if (out->n == cap) {
      size_t ncap = cap ? 2 * cap : 8;
      ad_segment *grown = tj_realloc(out->segs, ncap * sizeof *grown);
      if (!grown) {
        free(out->segs);
        out->segs = NULL;
        return -1;
      }
      out->segs = grown;
      cap = ncap;
    }
    g.offset = at;
    g.size = end == ~0ull ? ~0ull - at : end - at;
    ad_segment *last = out->n ? &out->segs[out->n - 1] : NULL;
    if (last && last->kind == g.kind && last->bits == g.bits &&
        last->hole == g.hole && seg_end(last) == at && end != ~0ull)
      last->size += g.size;
    else
      out->segs[out->n++] = g;
    at = end;
  }
  return 0;
}

/* The analysis of the function being differentiated runs once, on its
 * first copy, and is kept in the context (fc->types) for the others. */
int ad_copy_layout_of(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef dst,
                      LLVMValueRef src, LLVMValueRef len, ad_copy_layout *out) {
  out->segs = NULL;
  out->n = 0;
  out->period = 0;
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  int cacheable = fn == fc->primal_fn;
  ad_types *t = cacheable ? fc->types : NULL;
  if (!t)
    t = ad_types_analyze(fc->mc->engine, fc->mc->mod, fc->mc->td, fn);
  if (cacheable)
    fc->types = t;
  int rc = t ? ad_types_copy_layout(t, dst, src, len, out) : -1;
  if (!cacheable)
    ad_types_free(t);
  /* what the callers say of fn's parameters, only where it is needed:
   * the near ones first, the far ones only if those leave bytes unknown,
   * then the far ones with their callees followed deeper */
  static const struct {
    unsigned levels, reach;
  } wider[] = {{AD_TYPES_NEAR_CALLERS, AD_TYPES_CALLER_REACH},
               {AD_TYPES_FAR_CALLERS, AD_TYPES_CALLER_REACH},
               {AD_TYPES_FAR_CALLERS, AD_TYPES_DEEP_CALLER_REACH}};
  for (size_t i = 0; i < sizeof wider / sizeof *wider; i++) {
    if (rc != 0 || !has_unknown_bytes(out))
      break;
    ad_types *wide = ad_types_analyze_in_callers_reaching(
        fc->mc->engine, fc->mc->mod, fc->mc->td, fn, wider[i].levels,
        wider[i].reach);
    ad_copy_layout better;
    if (!wide || ad_types_copy_layout(wide, dst, src, len, &better) != 0) {
      rc = -1;
    } else {
      ad_copy_layout_free(out);
      *out = better;
    }
    ad_types_free(wide);
  }
  /* the callers far up, on the call paths alone: what it proves floats or
   * pointers, where objects merged (types.h) */
  if (rc == 0 && has_unknown_bytes(out)) {
    ad_types *paths = ad_types_analyze_on_call_paths(
        fc->mc->engine, fc->mc->mod, fc->mc->td, fn, AD_TYPES_FAR_CALLERS);
    ad_copy_layout proven = {NULL, 0, 0}, merged;
    if (!paths || ad_types_copy_layout(paths, dst, src, len, &proven) != 0 ||
        take_proven(out, &proven, &merged) != 0) {
      rc = -1;
    } else if (merged.segs) {
      ad_copy_layout_free(out);
      *out = merged;
    }
    ad_copy_layout_free(&proven);
    ad_types_free(paths);
  }
  if (rc != 0) {
    ad_copy_layout_free(out);
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  return 0;
}

void ad_copy_layout_free(ad_copy_layout *l) {
  free(l->segs);
  l->segs = NULL;
  l->n = 0;
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
                    unsigned long long size, ad_byte_kind k, unsigned bits) {
  if (size == 0)
    return 0;
  if (k != AD_BYTES_FLOAT)
    bits = 0;
  if (out->n && out->segs[out->n - 1].kind == k &&
      out->segs[out->n - 1].bits == bits &&
      out->segs[out->n - 1].offset + out->segs[out->n - 1].size == off) {
    out->segs[out->n - 1].size += size;
    return 0;
  }
  if (out->n == *cap) {
    size_t ncap = *cap ? 2 * *cap : 8;
    ad_segment *g = tj_realloc(out->segs, ncap * sizeof *g);
    if (!g)
      return -1;
    out->segs = g;
    *cap = ncap;
  }
  out->segs[out->n].offset = off;
  out->segs[out->n].size = size;
  out->segs[out->n].kind = k;
  out->segs[out->n].bits = bits;
  out->segs[out->n].hole = 0;
  out->n++;
  return 0;
}

/* The kind of copy-relative bytes [rel, rel+size) seen from one side:
 * every fact about them joined (a byte an access reads as a char, inside
 * bytes another reads as a double, is no integer byte of the copy: were
 * it taken for one, the double's adjoint would not move). */
static tfact side_fact(const ad_types *t, int obj, long long base,
                       unsigned long long rel, unsigned long long size) {
  if (obj < 0)
    return ta_fact(AD_T_UNKNOWN, 0);
  return ta_mem_get_all(t, obj, base + (long long)rel, size);
}

/* ---- declared types: what the allocation says ----
 *
 * Bytes no access in the analyzed functions touches (a struct's pointer
 * member copied by value and never read: clang -O0's `q = *m`) still
 * have the type the memory was declared with, when an end of the copy is
 * a local variable, a global or a byval/sret argument itself. */

/* The type a struct or array GEP with constant indices, the first 0,
 * says its result points to (clang -O0's `&this->member`, whose base is a
 * pointer loaded from its slot), or NULL. */
static LLVMTypeRef gep_member_type(LLVMValueRef gep) {
  unsigned n = (unsigned)LLVMGetNumOperands(gep);
  LLVMTypeRef t = LLVMGetGEPSourceElementType(gep);
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (n < 3 || (k != LLVMStructTypeKind && k != LLVMArrayTypeKind))
    return NULL;
  LLVMValueRef first = LLVMGetOperand(gep, 1);
  if (!LLVMIsAConstantInt(first) || LLVMConstIntGetZExtValue(first) != 0)
    return NULL;
  for (unsigned i = 2; i < n && t; i++) {
    LLVMValueRef idx = LLVMGetOperand(gep, i);
    if (!LLVMIsAConstantInt(idx))
      return NULL;
    unsigned long long v = LLVMConstIntGetZExtValue(idx);
    switch (LLVMGetTypeKind(t)) {
    case LLVMStructTypeKind:
      t = v < LLVMCountStructElementTypes(t) ? LLVMStructGetTypeAtIndex(t, (unsigned)v)
                                             : NULL;
      break;
    case LLVMArrayTypeKind:
    case LLVMVectorTypeKind:
      t = LLVMGetElementType(t);
      break;
    default:
      t = NULL;
    }
  }
  return t;
}

/* The array a GEP with a run-time index lands in, when its base is a
 * stack or global array declared as such and it indexes that array's
 * elements (`&a[i]` at -O0: [N x T], 0, i; from -O1: T, i): memory there
 * is a whole number of elements up to the array's end, so a copy from it
 * repeats per element, as one over the array itself does. */
static LLVMTypeRef element_of_declared_array(LLVMValueRef gep) {
  LLVMValueRef base = LLVMGetOperand(gep, 0);
  LLVMTypeRef at = LLVMIsAAllocaInst(base)       ? LLVMGetAllocatedType(base)
                   : LLVMIsAGlobalVariable(base) ? LLVMGlobalGetValueType(base)
                                                 : NULL;
  if (!at || LLVMGetTypeKind(at) != LLVMArrayTypeKind)
    return NULL;
  LLVMTypeRef el = LLVMGetElementType(at), src = LLVMGetGEPSourceElementType(gep);
  unsigned n = (unsigned)LLVMGetNumOperands(gep);
  int array_form = src == at && n == 3 && LLVMIsAConstantInt(LLVMGetOperand(gep, 1)) &&
                   LLVMConstIntGetZExtValue(LLVMGetOperand(gep, 1)) == 0;
  int element_form = src == el && n == 2;
  if (!array_form && !element_form)
    return NULL;
  return LLVMIsAConstantInt(LLVMGetOperand(gep, n - 1)) ? NULL : at;
}

/* The struct an element GEP of an array of structs steps over (`&p[i]`
 * for a `struct rec *p`: T, i), or NULL: memory there starts with a whole
 * element, as clang -O0's `p[i] = q[i]` copies it. */
static LLVMTypeRef stepped_struct(LLVMValueRef gep) {
  LLVMTypeRef src = LLVMGetGEPSourceElementType(gep);
  if (LLVMGetNumOperands(gep) != 2 ||
      LLVMGetTypeKind(src) != LLVMStructTypeKind || !LLVMTypeIsSized(src))
    return NULL;
  return src;
}

/* The type memory `p` points to the start of was declared with, or NULL. */
static LLVMTypeRef declared_type(LLVMValueRef p) {
  LLVMTypeRef member = NULL; /* a GEP's, when nothing below it says more */
  for (int depth = 0; p && depth < 4; depth++) {
    if (LLVMIsAAllocaInst(p))
      return LLVMGetAllocatedType(p);
    if (LLVMIsAGlobalVariable(p))
      return LLVMGlobalGetValueType(p);
    if (LLVMIsAArgument(p)) {
      LLVMValueRef fn = LLVMGetParamParent(p);
      unsigned idx = 0;
      for (LLVMValueRef q = LLVMGetFirstParam(fn); q && q != p;
           q = LLVMGetNextParam(q))
        idx++;
      static const char *const attrs[] = {"byval", "sret"};
      for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        unsigned kind = LLVMGetEnumAttributeKindForName(attrs[i],
                                                        strlen(attrs[i]));
        LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(fn, idx + 1, kind);
        if (a)
          return LLVMGetTypeAttributeValue(a);
      }
      return member;
    }
    if (LLVMIsAGetElementPtrInst(p)) {
      if (!member)
        member = gep_member_type(p);
      if (!member)
        member = element_of_declared_array(p);
      if (!member)
        member = stepped_struct(p);
      /* an array's decay to its first element: `&a[0]`, offset 0 */
      for (unsigned i = 1; i < (unsigned)LLVMGetNumOperands(p); i++) {
        LLVMValueRef k = LLVMGetOperand(p, i);
        if (!LLVMIsAConstantInt(k) || LLVMConstIntGetZExtValue(k) != 0)
          return member;
      }
    } else if (!LLVMIsABitCastInst(p) && !LLVMIsAAddrSpaceCastInst(p)) {
      return member;
    }
    p = LLVMGetOperand(p, 0);
  }
  return member;
}

/* The fact of the scalar of `ty` covering byte `rel` (unknown in padding
 * or past the type). */
static tfact declared_fact(LLVMTargetDataRef td, LLVMTypeRef ty,
                           unsigned long long rel, int depth) {
  if (!ty || depth > 16 || !LLVMTypeIsSized(ty) ||
      rel >= LLVMABISizeOfType(td, ty))
    return ta_fact(AD_T_UNKNOWN, 0);
  switch (LLVMGetTypeKind(ty)) {
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(ty);
    for (unsigned i = n; i-- > 0;) {
      unsigned long long o = LLVMOffsetOfElement(td, ty, i);
      if (o <= rel)
        return declared_fact(td, LLVMStructGetTypeAtIndex(ty, i), rel - o,
                             depth + 1);
    }
    return ta_fact(AD_T_UNKNOWN, 0);
  }
  case LLVMArrayTypeKind:
  case LLVMVectorTypeKind: {
    LLVMTypeRef el = LLVMGetElementType(ty);
    unsigned long long es = LLVMABISizeOfType(td, el);
    return es ? declared_fact(td, el, rel % es, depth + 1)
              : ta_fact(AD_T_UNKNOWN, 0);
  }
  case LLVMPointerTypeKind:
    return ta_fact(AD_T_POINTER, 0);
  case LLVMIntegerTypeKind:
    if (rel >= LLVMStoreSizeOfType(td, ty))
      return ta_fact(AD_T_UNKNOWN, 0);
    /* one as wide as a pointer may hold one (types.h): its shadow is
     * copied, as a pointer's is */
    return LLVMSizeOfTypeInBits(td, ty) < 8 * LLVMPointerSize(td)
               ? ta_fact(AD_T_INTEGER, 0)
               : ta_fact(AD_T_POINTER, 0);
  default: {
    unsigned bits = ta_scalar_float_bits(ty);
    if (!bits || rel >= LLVMStoreSizeOfType(td, ty))
      return ta_fact(AD_T_UNKNOWN, 0);
    return ta_fact(AD_T_FLOAT, bits);
  }
  }
}

/* The element size of an array type (0: not an array). */
static unsigned long long declared_period(LLVMTargetDataRef td,
                                          LLVMTypeRef ty) {
  if (!ty || LLVMGetTypeKind(ty) != LLVMArrayTypeKind)
    return 0;
  LLVMTypeRef el = LLVMGetElementType(ty);
  return LLVMTypeIsSized(el) ? LLVMABISizeOfType(td, el) : 0;
}

/* Whether p points into a constant global with an initializer (through
 * casts and GEPs): memory whose bytes are that initializer's, always. */
static int into_constant_global(LLVMValueRef p) {
  for (int depth = 0; p && depth < 8; depth++) {
    if (LLVMIsAGlobalVariable(p))
      return LLVMIsGlobalConstant(p) && LLVMGetInitializer(p) != NULL;
    if (!LLVMIsAGetElementPtrInst(p) && !LLVMIsABitCastInst(p) &&
        !LLVMIsAAddrSpaceCastInst(p) &&
        !(LLVMIsAConstantExpr(p) &&
          (LLVMGetConstOpcode(p) == LLVMGetElementPtr ||
           LLVMGetConstOpcode(p) == LLVMBitCast ||
           LLVMGetConstOpcode(p) == LLVMAddrSpaceCast)))
      return 0;
    p = LLVMGetOperand(p, 0);
  }
  return 0;
}

/* What copy-relative byte `pos` holds: the analysis' facts of both ends
 * joined, or, when neither knows, what the ends were declared with.  One
 * declaration outranks the analysis: a constant global's initializer,
 * where it is a float (clang -O0 initializes `state_type x = {1.0}` by a
 * memcpy from one, into memory the context-insensitive analysis merged
 * with objects whose bytes are read as integers: a conflict).  Its bytes
 * are a float constant's whatever reads them, and a float byte of a copy
 * from memory without a shadow gets the safe treatment whatever it is:
 * the destination's shadow (a float's adjoint, an integer's shadow bits)
 * is zeroed. */
static tfact copy_byte_fact(const ad_types *t, int os, long long fs, int od,
                            long long fd, LLVMTypeRef sty, LLVMTypeRef dty,
                            int src_constant, unsigned long long pos) {
  if (src_constant) {
    tfact c = declared_fact(t->td, sty, pos, 0);
    if (c.kind == AD_T_FLOAT)
      return c;
  }
  tfact f = ta_join(side_fact(t, os, fs, pos, 1), side_fact(t, od, fd, pos, 1));
  if (f.kind != AD_T_UNKNOWN)
    return f;
  return ta_join(declared_fact(t->td, sty, pos, 0),
                 declared_fact(t->td, dty, pos, 0));
}

/* Enzyme's rule for a copy whose length is known only at run time: its
 * bytes are all of its first byte's kind.  tanjit keeps the segments the
 * analysis knows (a float segment is still done as floats, clipped to the
 * length at run time) and gives the first byte's kind only to the bytes
 * it knows nothing of, when that kind is an integer or a pointer (a
 * std::string's characters moved into a map node, whose double follows
 * them).  A first byte unknown or a float says nothing of the others. */
static void first_byte_rule(ad_copy_layout *l) {
  if (!l->n || l->segs[0].offset != 0 ||
      (l->segs[0].kind != AD_BYTES_INTEGER &&
       l->segs[0].kind != AD_BYTES_POINTER))
    return;
  ad_byte_kind k = l->segs[0].kind;
  size_t kept = 0;
  for (size_t i = 0; i < l->n; i++) {
    ad_segment s = l->segs[i];
    if (s.kind == AD_BYTES_UNKNOWN)
      s.kind = k;
    if (kept && l->segs[kept - 1].kind == s.kind && s.kind != AD_BYTES_FLOAT &&
        l->segs[kept - 1].offset + l->segs[kept - 1].size == s.offset) {
      unsigned long long end = s.size == ~0ull ? ~0ull : s.offset + s.size;
      l->segs[kept - 1].size =
          end == ~0ull ? ~0ull - l->segs[kept - 1].offset
                       : end - l->segs[kept - 1].offset;
      continue;
    }
    l->segs[kept++] = s;
  }
  l->n = kept;
}

/* Whether bytes [off, off + size) of a value of type ty laid out at byte
 * `at` overlap one of its members (a scalar, a vector, a pointer). */
static int overlaps_member(LLVMTargetDataRef td, LLVMTypeRef ty,
                           unsigned long long at, unsigned long long off,
                           unsigned long long size, int depth) {
  unsigned long long n = LLVMABISizeOfType(td, ty);
  if (off + size <= at || at + n <= off)
    return 0;
  LLVMTypeKind k = LLVMGetTypeKind(ty);
  if (depth > 16)
    return 1;
  if (k == LLVMStructTypeKind) {
    unsigned ne = LLVMCountStructElementTypes(ty);
    for (unsigned i = 0; i < ne; i++)
      if (overlaps_member(td, LLVMStructGetTypeAtIndex(ty, i),
                          at + LLVMOffsetOfElement(td, ty, i), off, size,
                          depth + 1))
        return 1;
    return 0;
  }
  if (k == LLVMArrayTypeKind) {
    LLVMTypeRef el = LLVMGetElementType(ty);
    unsigned long long es = LLVMABISizeOfType(td, el);
    if (!es)
      return 0;
    /* the elements the bytes touch: the first and the last suffice to
     * find a hole inside one element, as all are alike */
    unsigned long long first = off > at ? (off - at) / es : 0;
    unsigned long long last = (off + size - 1 - at) / es;
    unsigned long long count = LLVMGetArrayLength2(ty);
    for (unsigned long long e = first; e <= last && e < count; e++)
      if (overlaps_member(td, el, at + e * es, off, size, depth + 1))
        return 1;
    return 0;
  }
  /* a scalar: its store size, not its allocation (an x86_fp80's tail) */
  unsigned long long used = LLVMStoreSizeOfType(td, ty);
  return off < at + used && at < off + size;
}

/* Padding of a stack object's declared type (clang 22 at -O0 zeroes a
 * struct initializer's holes with an llvm.memset of their own): unknown
 * bytes no member of the alloca's type covers are integer bytes (their
 * shadow is moved or set as the primal's; no float lives there). */
static void holes_between_members(const ad_types *t, LLVMValueRef dst,
                                  long long fd, ad_copy_layout *l) {
  LLVMValueRef base =
      ad_strip_casts(dst, AD_STRIP_GEPS | AD_STRIP_INSTRUCTIONS);
  LLVMValueRef count =
      base && LLVMIsAAllocaInst(base) ? LLVMGetOperand(base, 0) : NULL;
  if (!count || !LLVMIsAConstantInt(count) ||
      LLVMConstIntGetZExtValue(count) != 1 || fd < 0)
    return;
  LLVMTypeRef ty = LLVMGetAllocatedType(base);
  if (LLVMGetTypeKind(ty) != LLVMStructTypeKind)
    return;
  for (size_t i = 0; i < l->n; i++) {
    ad_segment *s = &l->segs[i];
    if (s->kind == AD_BYTES_UNKNOWN && s->size != ~0ull && s->size &&
        !overlaps_member(t->td, ty, 0, (unsigned long long)fd + s->offset,
                         s->size, 0))
      s->kind = AD_BYTES_INTEGER;
  }
}

/* Whether bytes [off, off + size) of memory declared as ty lie in no
 * member of it: a struct's holes and its tail (up to its alignment), an
 * x86_fp80's 6 bytes past the 10 it stores.  `repeated`: the memory is ty
 * over and over (a copy's repeating element), offsets taken modulo its
 * size.  An array's elements are alike, so the bytes are looked for in
 * one; bytes that straddle two elements are not taken for a hole. */
static int in_declared_hole(LLVMTargetDataRef td, LLVMTypeRef ty,
                            unsigned long long off, unsigned long long size,
                            int repeated) {
  for (int depth = 0; ty && depth < 16; depth++) {
    if (!LLVMTypeIsSized(ty))
      return 0;
    unsigned long long n = LLVMABISizeOfType(td, ty);
    if (repeated && n)
      off %= n;
    if (!n || off + size > n)
      return 0;
    if (LLVMGetTypeKind(ty) != LLVMArrayTypeKind)
      return !overlaps_member(td, ty, 0, off, size, 0);
    ty = LLVMGetElementType(ty);
    repeated = 1;
  }
  return 0;
}

/* Whether segment s of a layout repeating every `period` bytes (0: once)
 * is a hole of memory declared as ty from the copy's start.  Repeated,
 * the segment is one at every repetition within ty's element (an array's
 * element or ty itself), which the period must divide or be a multiple
 * of; otherwise the two do not line up and nothing is said. */
static int segment_in_declared_hole(LLVMTargetDataRef td, LLVMTypeRef ty,
                                    const ad_segment *s,
                                    unsigned long long period) {
  if (!period)
    return in_declared_hole(td, ty, s->offset, s->size, 0);
  LLVMTypeRef unit = ty;
  for (int depth = 0; unit && LLVMGetTypeKind(unit) == LLVMArrayTypeKind &&
                      depth < 16;
       depth++)
    unit = LLVMGetElementType(unit);
  unsigned long long u =
      unit && LLVMTypeIsSized(unit) ? LLVMABISizeOfType(td, unit) : 0;
  if (!u || (period % u != 0 && u % period != 0))
    return 0;
  for (unsigned long long k = 0; k == 0 || k * period < u; k++)
    if (!in_declared_hole(td, unit, s->offset + k * period, s->size, 1))
      return 0;
  return 1;
}

/* Marks the unknown segments of l that the type each end of the copy
 * was declared with (one at least; both where both have one) puts in no
 * member: holes, padding whatever their size (ad_copy_segment_is_padding).
 * Without a declared type, padding is guessed from short holes alone, and
 * an int before a 16-byte aligned x86_fp80 leaves 12 bytes (`struct {long
 * double v; int k; long double w;}`: bytes 20 to 32), too many for the
 * guess.  Their kind stays unknown, so a copy's rule moves them as it
 * moved the short holes (a long double array's copy stays one copy of its
 * shadow, not one per element around each 6-byte tail). */
static void declared_holes(LLVMTargetDataRef td, LLVMTypeRef dty,
                           LLVMTypeRef sty, ad_copy_layout *l) {
  if (!dty && !sty)
    return;
  for (size_t i = 0; i < l->n; i++) {
    ad_segment *s = &l->segs[i];
    if (s->kind != AD_BYTES_UNKNOWN || !s->size || s->size == ~0ull ||
        (l->period && s->offset + s->size > l->period))
      continue;
    s->hole = (!dty || segment_in_declared_hole(td, dty, s, l->period)) &&
              (!sty || segment_in_declared_hole(td, sty, s, l->period));
  }
}

int ad_types_copy_layout(const ad_types *t, LLVMValueRef dst, LLVMValueRef src,
                         LLVMValueRef len, ad_copy_layout *out) {
  const tval *vd = ta_vget(t, dst), *vs = ta_vget(t, src);
  int od = vd ? vd->obj : -1, os = vs ? vs->obj : -1;
  long long fd = vd ? vd->off : 0, fs = vs ? vs->off : 0;
  LLVMTypeRef dty = declared_type(dst), sty = declared_type(src);
  int src_constant = sty && into_constant_global(src);
  out->segs = NULL;
  out->n = 0;
  out->period = 0;
  size_t cap = 0;
  long long n =
      len && LLVMIsAConstantInt(len) ? LLVMConstIntGetSExtValue(len) : -1;
  unsigned long long period = 0;
  if (os >= 0 && t->objs[os].period)
    period = t->objs[os].period;
  if (od >= 0 && t->objs[od].period)
    period = period ? ta_gcd(period, t->objs[od].period) : t->objs[od].period;
  tfact summary = ta_fact(AD_T_UNKNOWN, 0); /* of collapsed sides */
  if (os >= 0 && t->objs[os].collapsed)
    summary = ta_join(summary, t->objs[os].summary), period = 0;
  if (od >= 0 && t->objs[od].collapsed)
    summary = ta_join(summary, t->objs[od].summary), period = 0;
  if (!period && n < 0 && summary.kind == AD_T_UNKNOWN) {
    /* a run-time length over an array declared as one: it repeats per
     * element even where no access showed it */
    unsigned long long pd = declared_period(t->td, dty),
                       ps = declared_period(t->td, sty);
    period = pd && ps ? ta_gcd(pd, ps) : pd ? pd : ps;
  }
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
        long long end =
            t->objs[o].e[i].off + (long long)t->objs[o].e[i].size - b;
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
    tfact f = copy_byte_fact(t, os, fs, od, fd, sty, dty, src_constant, pos);
    unsigned long long step = 1;
    /* extend over bytes of the same kind */
    while (pos + step < span) {
      tfact g = copy_byte_fact(t, os, fs, od, fd, sty, dty, src_constant,
                                pos + step);
      if (!ta_same(g, f))
        break;
      step++;
    }
    if (push_seg(out, &cap, pos, step, byte_kind(f), f.bits) != 0)
      return -1;
    pos += step;
  }
  if (n < 0 && !period) {
    /* bytes past what is known */
    if (push_seg(out, &cap, pos, ~0ull - pos, byte_kind(summary),
                 summary.bits) != 0)
      return -1;
  } else if (pos < span) {
    if (push_seg(out, &cap, pos, span - pos, AD_BYTES_UNKNOWN, 0) != 0)
      return -1;
  }
  if (out->n == 0 &&
      push_seg(out, &cap, 0, n >= 0 ? (unsigned long long)n : ~0ull,
               AD_BYTES_UNKNOWN, 0) != 0)
    return -1;
  out->period = period;
  if (n < 0 && !period) {
    first_byte_rule(out);
  } else {
    if (!period)
      holes_between_members(t, dst, fd, out);
    declared_holes(t->td, dty, sty, out);
  }
  return 0;
}

/* Padding is bytes no member of the ends' declared types covers
 * (declared_holes), or, where those say nothing, what type analysis never
 * sees accessed: a few bytes after a known segment, up to the next known
 * one or the end of the copy (or of its period).  Fewer than 8 bytes: a
 * hole of a whole double or pointer may be one left unaccessed, and is not
 * taken for padding. */
enum { PADDING_MAX = 8 };

int ad_copy_segment_is_padding(const ad_copy_layout *l, size_t i) {
  if (i < l->n && l->segs[i].kind == AD_BYTES_UNKNOWN && l->segs[i].hole)
    return 1;
  if (i == 0 || i >= l->n || l->segs[i].kind != AD_BYTES_UNKNOWN ||
      l->segs[i].size >= PADDING_MAX)
    return 0;
  const ad_segment *before = &l->segs[i - 1];
  if (before->kind == AD_BYTES_UNKNOWN ||
      before->offset + before->size != l->segs[i].offset)
    return 0;
  return i + 1 == l->n || l->segs[i + 1].kind != AD_BYTES_UNKNOWN;
}
