/*
 * Active by-value (`byval`) pointer arguments whose callee writes its
 * copy.  The callee works on a copy the call makes, so its pair must too:
 * in aug the caller copies the primal bytes into a local of its own, and
 * gives the callee a shadow copy (a shadow block, memory.c's, zeroed) into
 * which the pointer, integer and padding bytes of the caller's shadow are
 * copied, the float bytes left zero: the copy's float values are fresh,
 * nothing after the call reads them, so their adjoints start at zero.  The
 * block is recorded on the tape for the reverse, which, after the callee's
 * reverse filled the copy's float adjoints, adds them into the caller's
 * shadow (the copy's floats were read from the caller's memory) and frees
 * the block.  Which bytes are floats: analysis/copy_layout.c's layout of a
 * copy from the argument into the callee's byval parameter.
 *
 * One block per call holds every copied argument's shadow (each at a
 * 32-byte aligned offset), so the tape records one pointer per call.  A
 * byval argument the callee only reads needs none of this (calls.c passes
 * the caller's pointer and shadow).
 */
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"

enum { COPY_ALIGN = 32 };

static unsigned byval_kind(void) {
  return LLVMGetEnumAttributeKindForName("byval", 5);
}

/* Whether memory at `p` is only read through it: loads, addresses taken
 * for loads, the source of a copy. */
static int only_read(LLVMValueRef p, int depth) {
  if (depth > 8)
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user))
      continue;
    if (LLVMIsAGetElementPtrInst(user) || LLVMIsABitCastInst(user)) {
      if (LLVMGetOperand(user, 0) != p || !only_read(user, depth + 1))
        return 0;
      continue;
    }
    if (LLVMIsACallInst(user) && LLVMGetNumArgOperands(user) >= 2 &&
        LLVMGetOperand(user, 1) == p && LLVMGetOperand(user, 0) != p) {
      LLVMValueRef callee = LLVMGetCalledValue(user);
      size_t n = 0;
      const char *name = LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &n)
                                                 : "";
      if (strncmp(name, "llvm.memcpy", 11) == 0 ||
          strncmp(name, "llvm.memmove", 12) == 0)
        continue;
    }
    return 0;
  }
  return 1;
}

int ad_rev_byval_written(LLVMValueRef fn, unsigned k) {
  return LLVMGetEnumAttributeAtIndex(fn, k + 1, byval_kind()) &&
         !only_read(LLVMGetParam(fn, k), 0);
}

/* The type parameter k of fn is passed by value as. */
static LLVMTypeRef byval_type(LLVMValueRef fn, unsigned k) {
  LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(fn, k + 1, byval_kind());
  return a ? LLVMGetTypeAttributeValue(a) : NULL;
}

/* The first function of the plan (the callee, or the first target). */
static LLVMValueRef plan_fn(const ad_rev_call_plan *p, LLVMValueRef call) {
  if (p->kind == PLAN_INDIRECT && p->ntargets)
    return p->targets[0];
  return ad_called_function(call);
}

/* Where each copied argument's shadow lies in the call's block; its
 * total size.  offs has np entries. */
static unsigned long long lay_out(ad_module_ctx *mc, const ad_rev_call_plan *p,
                                  LLVMValueRef fn, unsigned long long *offs) {
  unsigned long long total = 0;
  for (unsigned k = 0; k < p->np; k++) {
    if (!p->copied || !p->copied[k])
      continue;
    offs[k] = total;
    unsigned long long size = LLVMABISizeOfType(mc->td, byval_type(fn, k));
    total += (size + COPY_ALIGN - 1) / COPY_ALIGN * COPY_ALIGN;
  }
  return total;
}

/* One segment of a copy of `size` bytes: [off, off + n). */
typedef void (*segment_fn)(void *ctx, const ad_segment *s,
                           unsigned long long off, unsigned long long n);

/* Calls each on every segment of l (repeated every l->period bytes when
 * the layout repeats), clipped to size. */
static void each_segment(const ad_copy_layout *l, unsigned long long size,
                         segment_fn each, void *ctx) {
  unsigned long long step = l->period ? l->period : size;
  for (unsigned long long base = 0; base < size && step; base += step)
    for (size_t i = 0; i < l->n; i++) {
      const ad_segment *s = &l->segs[i];
      unsigned long long off = base + s->offset;
      if (off >= size || (l->period && s->offset >= l->period))
        continue;
      unsigned long long n = s->size;
      if (n > size - off)
        n = size - off;
      each(ctx, s, off, n);
    }
}

/* The layout of argument k of call copied into fn's parameter k. */
static int layout_of(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef fn,
                     unsigned k, unsigned long long size, ad_copy_layout *l) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->mc->llctx);
  return ad_copy_layout_of(&r->fc, call, LLVMGetParam(fn, k),
                           LLVMGetOperand(call, k), LLVMConstInt(i64, size, 0),
                           l);
}

typedef struct copy_ctx {
  ad_module_ctx *mc;
  LLVMBuilderRef b;
  LLVMValueRef to, from; /* the shadows: block's part, the caller's */
  long long bad;         /* the first byte no kind fits, or -1 */
} copy_ctx;

static LLVMValueRef byte_at(ad_module_ctx *mc, LLVMBuilderRef b,
                            LLVMValueRef p, unsigned long long off) {
  LLVMValueRef k = LLVMConstInt(LLVMInt64TypeInContext(mc->llctx), off, 0);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), p, &k, 1, "");
}

/* aug: the non-float bytes' shadows into the copy's shadow */
static void copy_non_float(void *ctx, const ad_segment *s,
                           unsigned long long off, unsigned long long n) {
  copy_ctx *c = ctx;
  if (s->kind == AD_BYTES_FLOAT) {
    if (!ad_rev_float_of_bits(c->mc, s->bits) && c->bad < 0)
      c->bad = (long long)off;
    return;
  }
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c->mc->llctx);
  LLVMBuildMemCpy(c->b, byte_at(c->mc, c->b, c->to, off), 1,
                  byte_at(c->mc, c->b, c->from, off), 1,
                  LLVMConstInt(i64, n, 0));
}

/* reverse: the copy's float adjoints added into the caller's shadow */
static void add_floats(void *ctx, const ad_segment *s, unsigned long long off,
                       unsigned long long n) {
  copy_ctx *c = ctx;
  if (s->kind != AD_BYTES_FLOAT)
    return;
  LLVMTypeRef t = ad_rev_float_of_bits(c->mc, s->bits);
  unsigned long long esz = LLVMABISizeOfType(c->mc->td, t);
  unsigned long long store = LLVMStoreSizeOfType(c->mc->td, t);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c->mc->llctx);
  LLVMValueRef args[3] = {byte_at(c->mc, c->b, c->from, off),
                          byte_at(c->mc, c->b, c->to, off),
                          LLVMConstInt(i64, (n + esz - store) / esz, 0)};
  LLVMValueRef fn = ad_rev_typed_helper(c->mc, AD_REV_LOOP_ACCUMULATE, t);
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
}

int ad_rev_byval_aug(ad_rev_fn *r, LLVMValueRef call,
                     const ad_rev_call_plan *p, LLVMValueRef *primal,
                     LLVMValueRef *shadow) {
  ad_module_ctx *mc = r->mc;
  ad_fn_ctx *fc = &r->fc;
  LLVMValueRef fn = plan_fn(p, call);
  unsigned long long offs[256];
  if (!p->copied || !fn)
    return 0;
  if (p->np > sizeof offs / sizeof *offs)
    return ad_rev_fail_call(r, call,
                            "a call to %s with more than 256 arguments and a "
                            "by-value argument it writes to is not supported",
                            ad_value_name(fn));
  unsigned long long total = lay_out(mc, p, fn, offs);
  if (!total)
    return 0;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMValueRef block = ad_rev_shadow_alloc(
      r, fc->b, LLVMConstInt(i64, COPY_ALIGN, 0), LLVMConstInt(i64, total, 0));
  LLVMSetValueName2(block, "shadow.byval", 12);
  for (unsigned k = 0; k < p->np; k++) {
    if (!p->copied[k])
      continue;
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (ad_shadow_may_equal_primal(fc, a))
      return ad_rev_fail_call(r, call,
                              "a by-value argument that %s writes to, from "
                              "memory that may have no shadow of its own, is "
                              "not supported",
                              ad_value_name(fn));
    LLVMTypeRef ty = byval_type(fn, k);
    unsigned long long size = LLVMABISizeOfType(mc->td, ty);
    ad_copy_layout l;
    if (layout_of(r, call, fn, k, size, &l) != 0)
      return -1;
    /* the primal copy: the callee's own, as the byval call would make */
    LLVMValueRef copy = ad_entry_alloca(fc->deriv_fn, ty, "byval.copy");
    LLVMSetAlignment(copy, COPY_ALIGN);
    LLVMBuildMemCpy(fc->b, copy, COPY_ALIGN, primal[k], 1,
                    LLVMConstInt(i64, size, 0));
    LLVMValueRef mine = byte_at(mc, fc->b, block, offs[k]);
    copy_ctx c = {mc, fc->b, mine, shadow[k], -1};
    for (size_t i = 0; i < l.n && c.bad < 0; i++)
      if (l.segs[i].kind == AD_BYTES_UNKNOWN &&
          !ad_copy_segment_is_padding(&l, i))
        c.bad = (long long)l.segs[i].offset;
    if (c.bad < 0)
      each_segment(&l, size, copy_non_float, &c);
    ad_copy_layout_free(&l);
    if (c.bad >= 0)
      return ad_fail_code(
          mc, TANJIT_ERR_UNSUPPORTED, call,
          "reverse mode: a by-value argument that %s writes to, with bytes "
          "type analysis cannot classify (at byte %lld: not a float, "
          "pointer, integer nor padding), is not supported",
          ad_value_name(fn), c.bad);
    primal[k] = copy;
    shadow[k] = mine;
  }
  return ad_rev_record(r, call, block);
}

LLVMValueRef ad_rev_byval_rev_shadows(ad_rev_fn *r, LLVMValueRef call,
                                      const ad_rev_call_plan *p,
                                      LLVMValueRef *shadow) {
  unsigned long long offs[256];
  LLVMValueRef fn = plan_fn(p, call);
  if (!p->copied || !fn || p->np > sizeof offs / sizeof *offs ||
      !lay_out(r->mc, p, fn, offs))
    return NULL;
  LLVMValueRef block = ad_rev_recorded(r, call);
  if (!block) {
    ad_fail_code(r->mc, TANJIT_ERR_INTERNAL, call,
                 "reverse mode: a by-value copy's shadow was not recorded");
    return NULL;
  }
  for (unsigned k = 0; k < p->np; k++)
    if (p->copied[k])
      shadow[k] = byte_at(r->mc, r->rb, block, offs[k]);
  return block;
}

int ad_rev_byval_reverse(ad_rev_fn *r, LLVMValueRef call,
                         const ad_rev_call_plan *p, LLVMValueRef block) {
  ad_module_ctx *mc = r->mc;
  LLVMValueRef fn = plan_fn(p, call);
  unsigned long long offs[256];
  if (!block)
    return 0;
  lay_out(mc, p, fn, offs);
  for (unsigned k = 0; k < p->np; k++) {
    if (!p->copied[k])
      continue;
    unsigned long long size = LLVMABISizeOfType(mc->td, byval_type(fn, k));
    ad_copy_layout l;
    if (layout_of(r, call, fn, k, size, &l) != 0)
      return -1;
    copy_ctx c = {mc, r->rb, byte_at(mc, r->rb, block, offs[k]),
                  ad_rev_shadow(r, LLVMGetOperand(call, k)), -1};
    each_segment(&l, size, add_floats, &c);
    ad_copy_layout_free(&l);
  }
  ad_rev_shadow_free(mc, r->rb, block);
  return 0;
}
