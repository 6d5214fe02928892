/*
 * Memory calls in reverse mode, as rows (rev.h's ad_rev_call_row):
 *  - allocations (malloc, calloc, aligned_alloc, memalign, operator new,
 *    posix_memalign): a zeroed shadow block in aug, as aligned as the
 *    primal's, freed at the reverse of the allocation; the primal free
 *    stays in aug (the primal block is not needed again: the reverse reads
 *    the tape, never primal memory), but where a custom gradient's reverse
 *    may read it (custom_inputs.c holds it back);
 *  - realloc: a fresh shadow block in aug holding the old shadow's bytes
 *    (its pointers) up to the smaller size, the new tail zeroed; the old
 *    shadow stays alive, so the reverse of what ran before the realloc
 *    still finds it even when the primal block moved: the reverse of the
 *    realloc copies the adjoints of the kept bytes back into it and frees
 *    the new shadow;
 *  - memcpy/memmove of float memory: reverse src' += dst', dst' = 0; of
 *    pointer or integer memory: the shadows copied in aug; memset of float
 *    memory: reverse zeroes dst', of other memory: the shadow set in aug
 *    (a zero memset of bytes type analysis cannot classify: both);
 *    of memory mixing kinds: each segment its own rule (below);
 *  - llvm.vector.reduce.fadd: the adjoint to the start value and to every
 *    lane.
 *
 * Shadow blocks come from tanjit.rev.shadow.alloc(align, n, tape), which
 * keeps n (and the block's base) in 16 bytes below the address it returns,
 * so a realloc knows how many bytes the old shadow has, and below them a
 * link: each block is pushed on the list of the gradient's header (the
 * `owned` word, rev.h), which the gradient walks to free them when an
 * exception leaves its augmented pass (exceptions.c); a pass that ends
 * normally leaves the list to the reverse, which frees each block at the
 * reverse of its allocation (tanjit.rev.shadow.free).  Only reverse mode frees them (a shadow never reaches a
 * primal free), so the header never meets another allocator.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

/* ---- the shadow blocks ---- */

enum { SHADOW_HEADER = 16 };
/* n at -16, the base at -8, the owned list's link at -24, and at
 * AD_REV_SHADOW_LANE_COPY_OFFSET (-32) lanes.c's copy (NULL but while
 * enzyme_width's lanes share the augmented pass) */
enum { SHADOW_LINKED_HEADER = 32 };

static LLVMValueRef at_offset(LLVMBuilderRef b, ad_module_ctx *mc,
                              LLVMValueRef p, long long off) {
  LLVMValueRef k = LLVMConstInt(LLVMInt64TypeInContext(mc->llctx),
                                (unsigned long long)off, 1);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), p, &k, 1, "");
}

/* tanjit.rev.shadow.alloc(align, n, tape): n zeroed bytes aligned to
 * max(align, 32), with n at -16, the base at -8, and pushed on the tape
 * header's owned list (link at -24); traps when memory runs out (generated
 * code has no error channel). */
static LLVMValueRef shadow_alloc_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef two[2] = {i64, i64};
  LLVMTypeRef three[3] = {i64, i64, ptr};
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.rev.shadow.alloc", LLVMFunctionType(ptr, three, 3, 0),
      &fn);
  if (!b)
    return fn;
  LLVMTypeRef aft = LLVMFunctionType(ptr, two, 2, 0);
  LLVMValueRef aligned = ad_get_or_declare(mc->mod, "aligned_alloc", aft);
  LLVMBasicBlockRef oom = LLVMAppendBasicBlockInContext(c, fn, "oom");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "ok");
  LLVMValueRef align = LLVMGetParam(fn, 0), n = LLVMGetParam(fn, 1);
  LLVMValueRef min = LLVMConstInt(i64, SHADOW_LINKED_HEADER, 0);
  LLVMValueRef a = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntULT, align, min, ""), min, align, "align");
  /* aligned_alloc wants a multiple of the alignment */
  LLVMValueRef am1 = LLVMBuildSub(b, a, LLVMConstInt(i64, 1, 0), "");
  LLVMValueRef total = LLVMBuildAnd(
      b, LLVMBuildAdd(b, LLVMBuildAdd(b, n, a, ""), am1, ""),
      LLVMBuildNot(b, am1, ""), "total");
  LLVMValueRef args[2] = {a, total};
  LLVMValueRef base = LLVMBuildCall2(b, aft, aligned, args, 2, "base");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, base, ""), oom, ok);
  LLVMPositionBuilderAtEnd(b, oom);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMBuildMemSet(b, base, LLVMConstInt(LLVMInt8TypeInContext(c), 0, 0),
                  total, SHADOW_HEADER);
  LLVMValueRef s =
      LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), base, &a, 1, "shadow");
  LLVMBuildStore(b, n, at_offset(b, mc, s, -16));
  LLVMBuildStore(b, base, at_offset(b, mc, s, -8));
  LLVMValueRef owned =
      at_offset(b, mc, LLVMGetParam(fn, 2), AD_REV_TAPE_OWNED_OFFSET);
  LLVMBuildStore(b, LLVMBuildLoad2(b, ptr, owned, "owned"),
                 at_offset(b, mc, s, -24));
  LLVMBuildStore(b, s, owned);
  LLVMBuildRet(b, s);
  LLVMDisposeBuilder(b);
  return fn;
}

/* tanjit.rev.shadow.free(s): frees a block of shadow_alloc_fn (NULL: no-op;
 * a block holding a lane copy is kept: lanes.c restores it for the next
 * lane and frees the copy after the last, whose reverse frees the block). */
static LLVMValueRef shadow_free_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.rev.shadow.free",
      LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0), &fn);
  if (!b)
    return fn;
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(c, fn, "free");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMValueRef s = LLVMGetParam(fn, 0);
  LLVMBasicBlockRef owned = LLVMAppendBasicBlockInContext(c, fn, "owned");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, s, ""), done, owned);
  LLVMPositionBuilderAtEnd(b, owned);
  LLVMValueRef copy = LLVMBuildLoad2(
      b, ptr, at_offset(b, mc, s, AD_REV_SHADOW_LANE_COPY_OFFSET), "lane.copy");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, copy, ""), go, done);
  LLVMPositionBuilderAtEnd(b, go);
  LLVMValueRef base = LLVMBuildLoad2(b, ptr, at_offset(b, mc, s, -8), "");
  ad_rev_call_libc(mc, b, "free", &base, 1);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

LLVMValueRef ad_rev_shadow_alloc(ad_rev_fn *r, LLVMBuilderRef b,
                                 LLVMValueRef align, LLVMValueRef n) {
  ad_module_ctx *mc = r->mc;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMValueRef fn = shadow_alloc_fn(mc);
  LLVMValueRef args[3] = {LLVMBuildZExtOrBitCast(b, align, i64, ""),
                          LLVMBuildZExtOrBitCast(b, n, i64, ""), r->aug_tape};
  LLVMValueRef s =
      LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 3, "shadow.alloc");
  return s;
}

void ad_rev_shadow_free(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef s) {
  LLVMValueRef fn = shadow_free_fn(mc);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &s, 1, "");
}

void ad_rev_free_owned_shadows(ad_module_ctx *mc, LLVMBuilderRef b,
                               LLVMValueRef header) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMValueRef fn = LLVMGetBasicBlockParent(from);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fn, "owned.next");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c, fn, "owned.free");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "owned.done");
  LLVMValueRef first = LLVMBuildLoad2(
      b, ptr, at_offset(b, mc, header, AD_REV_TAPE_OWNED_OFFSET), "owned");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef s = LLVMBuildPhi(b, ptr, "");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, s, ""), done, body);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef next = LLVMBuildLoad2(b, ptr, at_offset(b, mc, s, -24), "");
  ad_rev_shadow_free(mc, b, s);
  LLVMBuildBr(b, loop);
  LLVMAddIncoming(s, &first, &from, 1);
  LLVMAddIncoming(s, &next, &body, 1);
  LLVMPositionBuilderAtEnd(b, done);
}

/* The size of shadow block s (0 for NULL). */
static LLVMValueRef shadow_size(ad_module_ctx *mc, LLVMBuilderRef b,
                                LLVMValueRef s) {
  /* a select would load through NULL: the NULL case reads a zero instead */
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMContextRef c = mc->llctx;
  LLVMValueRef fn = LLVMGetInsertBlock(b) ? LLVMGetBasicBlockParent(LLVMGetInsertBlock(b)) : NULL;
  LLVMBasicBlockRef read = LLVMAppendBasicBlockInContext(c, fn, "shadow.size");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c, fn, "shadow.sized");
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, s, ""), join, read);
  LLVMPositionBuilderAtEnd(b, read);
  LLVMValueRef n = LLVMBuildLoad2(b, i64, at_offset(b, mc, s, -16), "");
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef phi = LLVMBuildPhi(b, i64, "old.size");
  LLVMValueRef vals[2] = {LLVMConstInt(i64, 0, 0), n};
  LLVMBasicBlockRef bbs[2] = {from, read};
  LLVMAddIncoming(phi, vals, bbs, 2);
  return phi;
}

/* ---- allocations ---- */

/* Which arguments give an allocation's size (a, times b when b >= 0) and
 * its alignment (-1: malloc's). */
typedef struct alloc_data {
  signed char size_a, size_b, align;
} alloc_data;

static LLVMValueRef alloc_size(ad_rev_fn *r, LLVMValueRef call,
                               const alloc_data *d) {
  ad_fn_ctx *fc = &r->fc;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->mc->llctx);
  LLVMValueRef size = LLVMBuildZExtOrBitCast(
      fc->b, ad_primal(fc, LLVMGetOperand(call, (unsigned)d->size_a)), i64, "");
  if (d->size_b >= 0)
    size = LLVMBuildMul(
        fc->b, size,
        LLVMBuildZExtOrBitCast(
            fc->b, ad_primal(fc, LLVMGetOperand(call, (unsigned)d->size_b)),
            i64, ""),
        "");
  return size;
}

static LLVMValueRef alloc_align(ad_rev_fn *r, LLVMValueRef call,
                                const alloc_data *d) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->mc->llctx);
  if (d->align < 0)
    return LLVMConstInt(i64, SHADOW_HEADER, 0);
  return LLVMBuildZExtOrBitCast(
      r->fc.b, ad_primal(&r->fc, LLVMGetOperand(call, (unsigned)d->align)), i64,
      "");
}

static int aug_alloc(ad_rev_fn *r, const ad_rev_call_row *row,
                     LLVMValueRef call, LLVMValueRef clone) {
  (void)clone;
  const alloc_data *d = row->data;
  if (!ad_is_active(&r->fc, call))
    return 0;
  unsigned n = LLVMGetNumArgOperands(call);
  if ((unsigned)d->size_a >= n || (d->size_b >= 0 && (unsigned)d->size_b >= n) ||
      (d->align >= 0 && (unsigned)d->align >= n))
    return ad_rev_fail_call(r, call, "%s: unexpected arguments", row->name);
  LLVMValueRef s = ad_rev_shadow_alloc(r, r->fc.b, alloc_align(r, call, d),
                                alloc_size(r, call, d));
  ad_set_shadow(&r->fc, call, s);
  return ad_rev_plan_row(r, call, row) ? 0 : -1;
}

static int rev_alloc(ad_rev_fn *r, const ad_rev_call_row *row,
                     LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)row, (void)p;
  ad_rev_shadow_free(r->mc, r->rb, ad_rev_shadow(r, call));
  return 0;
}

/* realloc(old, n).  A shadow that may be the old block itself (memory
 * reverse mode gave no shadow of its own) keeps nothing: the new shadow
 * starts zeroed and the reverse gives the old block nothing back. */
static LLVMValueRef kept_bytes(ad_module_ctx *mc, LLVMBuilderRef b,
                               LLVMValueRef old_shadow, LLVMValueRef old,
                               int may_be_block, LLVMValueRef n) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMValueRef os = old_shadow;
  if (may_be_block)
    os = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, old_shadow, old, ""),
                         LLVMConstNull(ptr), old_shadow, "");
  LLVMValueRef have = shadow_size(mc, b, os);
  n = LLVMBuildZExtOrBitCast(b, n, i64, "");
  return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, have, n, ""), have, n,
                         "kept");
}

/* What pointer v is, looking through casts and through a local slot
 * stored once (-O0 keeps parameters in allocas): a parameter, an
 * allocation, ... */
static LLVMValueRef pointer_root(LLVMValueRef v) {
  for (int depth = 0; depth < 8; depth++) {
    v = ad_strip_casts(v, AD_STRIP_INT_CASTS);
    if (!LLVMIsALoadInst(v))
      return v;
    LLVMValueRef slot = LLVMGetOperand(v, 0);
    if (!LLVMIsAAllocaInst(slot))
      return v;
    LLVMValueRef stored = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsALoadInst(user))
        continue;
      if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != slot || stored)
        return v;
      stored = LLVMGetOperand(user, 0);
    }
    if (!stored)
      return v;
    v = stored;
  }
  return v;
}

/* The object address p points into: through casts, GEPs and slots
 * stored once. */
static LLVMValueRef base_object(LLVMValueRef p) {
  for (int depth = 0; depth < 16; depth++) {
    p = pointer_root(p);
    if (!LLVMIsAGetElementPtrInst(p) && !LLVMIsAConstantExpr(p))
      return p;
    if (LLVMIsAConstantExpr(p) &&
        LLVMGetConstOpcode(p) != LLVMGetElementPtr)
      return p;
    p = LLVMGetOperand(p, 0);
  }
  return p;
}

/*
 * Whether the block realloc'd may be one whose shadow reverse mode made
 * (a malloc, calloc or realloc here or in a callee, NULL): not one the
 * caller passed in, directly or through memory a parameter or a global
 * points to, whose shadow is the caller's memory (no size is known for
 * it).  Told apart as far as the IR shows: a block loaded from elsewhere
 * is taken as reverse mode's.
 */
static int allocated_here(LLVMValueRef old) {
  LLVMValueRef root = pointer_root(old);
  if (LLVMIsAArgument(root) || LLVMIsAGlobalVariable(root))
    return 0;
  if (LLVMIsALoadInst(root)) {
    LLVMValueRef from = base_object(LLVMGetOperand(root, 0));
    if (LLVMIsAArgument(from) || LLVMIsAGlobalVariable(from))
      return 0;
  }
  return 1;
}

static int aug_realloc(ad_rev_fn *r, const ad_rev_call_row *row,
                       LLVMValueRef call, LLVMValueRef clone) {
  (void)clone;
  ad_fn_ctx *fc = &r->fc;
  if (!ad_is_active(fc, call))
    return 0;
  if (LLVMGetNumArgOperands(call) != 2)
    return ad_rev_fail_call(r, call, "%s: unexpected arguments", row->name);
  LLVMValueRef old = LLVMGetOperand(call, 0);
  if (!allocated_here(old) && ad_shadow_or_null(fc, old))
    return ad_rev_fail_call(
        r, call,
        "%s of a block the caller passed in (its shadow is the caller's "
        "memory, which reverse mode cannot resize) is not supported",
        row->name);
  LLVMValueRef n = ad_primal(fc, LLVMGetOperand(call, 1));
  LLVMValueRef s =
      ad_rev_shadow_alloc(r, fc->b, LLVMConstInt(LLVMInt64TypeInContext(r->mc->llctx),
                                              SHADOW_HEADER, 0),
                   n);
  LLVMValueRef os = ad_shadow_or_null(fc, old);
  if (os) {
    LLVMValueRef kept = kept_bytes(r->mc, fc->b, os, ad_primal(fc, old),
                                   ad_shadow_may_equal_primal(fc, old), n);
    /* the old shadow's pointers move with the block; its floats are all
     * zero here (aug never writes float shadows) */
    LLVMBuildMemCpy(fc->b, s, 1, os, 1, kept);
  }
  ad_set_shadow(fc, call, s);
  return ad_rev_plan_row(r, call, row) ? 0 : -1;
}

static int rev_realloc(ad_rev_fn *r, const ad_rev_call_row *row,
                       LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)row, (void)p;
  LLVMValueRef s = ad_rev_shadow(r, call);
  LLVMValueRef old = LLVMGetOperand(call, 0);
  if (ad_shadow_or_null(&r->fc, old)) {
    LLVMValueRef os = ad_rev_shadow(r, old);
    LLVMValueRef kept =
        kept_bytes(r->mc, r->rb, os, ad_rev_primal(r, old),
                   ad_shadow_may_equal_primal(&r->fc, old),
                   ad_rev_primal(r, LLVMGetOperand(call, 1)));
    /* the old block's bytes live on in the new one: their adjoints go
     * back (the old shadow's own floats were never touched since) */
    LLVMBuildMemCpy(r->rb, os, 1, s, 1, kept);
  }
  ad_rev_shadow_free(r->mc, r->rb, s);
  return 0;
}

/* posix_memalign(&p, align, n): the shadow of the slot receives a shadow
 * block when the allocation succeeded; the reverse frees what the slot's
 * shadow holds then. */
static int aug_memalign(ad_rev_fn *r, const ad_rev_call_row *row,
                        LLVMValueRef call, LLVMValueRef clone) {
  ad_fn_ctx *fc = &r->fc;
  ad_module_ctx *mc = r->mc;
  LLVMValueRef slot = LLVMGetOperand(call, 0);
  LLVMValueRef ss = ad_shadow_or_null(fc, slot);
  if (!ss)
    return 0;
  if (LLVMGetNumArgOperands(call) != 3 ||
      LLVMGetTypeKind(LLVMTypeOf(slot)) != LLVMPointerTypeKind)
    return ad_rev_fail_call(r, call, "%s: unexpected arguments", row->name);
  LLVMContextRef c = mc->llctx;
  LLVMValueRef fn = fc->deriv_fn;
  LLVMBasicBlockRef work = LLVMAppendBasicBlockInContext(c, fn, "memalign.shadow");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "memalign.done");
  LLVMValueRef ok = LLVMBuildICmp(fc->b, LLVMIntEQ, clone,
                                  LLVMConstNull(LLVMTypeOf(clone)), "");
  if (ad_shadow_may_equal_primal(fc, slot))
    ok = LLVMBuildAnd(fc->b, ok,
                      LLVMBuildICmp(fc->b, LLVMIntNE, ss, ad_primal(fc, slot), ""),
                      "");
  LLVMBuildCondBr(fc->b, ok, work, done);
  LLVMPositionBuilderAtEnd(fc->b, work);
  LLVMValueRef s = ad_rev_shadow_alloc(r, fc->b, ad_primal(fc, LLVMGetOperand(call, 1)),
                                ad_primal(fc, LLVMGetOperand(call, 2)));
  LLVMBuildStore(fc->b, s, ss);
  LLVMBuildBr(fc->b, done);
  LLVMPositionBuilderAtEnd(fc->b, done);
  return ad_rev_plan_row(r, call, row) ? 0 : -1;
}

static int rev_memalign(ad_rev_fn *r, const ad_rev_call_row *row,
                        LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)row, (void)p;
  ad_module_ctx *mc = r->mc;
  LLVMValueRef slot = LLVMGetOperand(call, 0);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMValueRef ok = LLVMBuildICmp(r->rb, LLVMIntEQ, ad_rev_primal(r, call),
                                  LLVMConstNull(LLVMTypeOf(call)), "");
  LLVMValueRef ss = ad_rev_shadow(r, slot);
  if (ad_shadow_may_equal_primal(&r->fc, slot))
    ok = LLVMBuildAnd(r->rb, ok,
                      LLVMBuildICmp(r->rb, LLVMIntNE, ss, ad_rev_primal(r, slot), ""),
                      "");
  LLVMValueRef fn = r->rev;
  LLVMBasicBlockRef work = LLVMAppendBasicBlockInContext(mc->llctx, fn, "memalign.free");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(mc->llctx, fn, "memalign.freed");
  LLVMBuildCondBr(r->rb, ok, work, done);
  LLVMPositionBuilderAtEnd(r->rb, work);
  ad_rev_shadow_free(mc, r->rb, LLVMBuildLoad2(r->rb, ptr, ss, ""));
  LLVMBuildStore(r->rb, LLVMConstNull(ptr), ss);
  LLVMBuildBr(r->rb, done);
  LLVMPositionBuilderAtEnd(r->rb, done);
  return 0;
}

/* free, delete: the primal frees in aug; the shadow lives until the
 * reverse of its allocation */
static int aug_nothing(ad_rev_fn *r, const ad_rev_call_row *row,
                       LLVMValueRef call, LLVMValueRef clone) {
  (void)r, (void)row, (void)call, (void)clone;
  return 0;
}

/* ---- copies ---- */

int ad_rev_copy_census(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef dst,
                       LLVMValueRef src, LLVMValueRef len,
                       ad_rev_bytes_census *out) {
  ad_copy_layout l;
  memset(&l, 0, sizeof l);
  memset(out, 0, sizeof *out);
  if (ad_copy_layout_of(&r->fc, call, dst, src, len, &l) != 0)
    return -1;
  unsigned bits = 0;
  for (size_t i = 0; i < l.n; i++) {
    if (l.segs[i].kind == AD_BYTES_FLOAT) {
      /* the first float's width: the layout's segments carry it, from
       * whichever analysis classified the bytes */
      if (!out->floats)
        bits = l.segs[i].bits;
      out->floats++;
    } else if (l.segs[i].kind == AD_BYTES_UNKNOWN) {
      out->unknown++;
    } else {
      out->other++;
    }
  }
  ad_copy_layout_free(&l);
  if (out->floats)
    out->elem = bits ? ad_rev_float_of_bits(r->mc, bits) : NULL;
  return 0;
}

/* What a copy's bytes hold: floats of one type (*elem), none (0), or a mix
 * or unknown bytes (-1, an error); -2: the layout failed (error set). */
static int copy_kind(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef dst,
                     LLVMValueRef src, LLVMValueRef len, LLVMTypeRef *elem) {
  ad_rev_bytes_census c;
  if (ad_rev_copy_census(r, call, dst, src, len, &c) != 0)
    return -2;
  *elem = c.elem;
  if (c.floats && (c.other || c.unknown))
    return -1;
  if (!c.floats)
    return c.unknown ? -1 : 0;
  return c.elem ? 1 : -1;
}

/* ---- copies whose bytes mix kinds, segment by segment ----
 *
 * A copy whose layout (analysis/copy_layout.c) mixes floats with pointers,
 * integers, padding or floats of another width is done per segment: in
 * aug, the shadows of the non-float bytes move as the primal bytes do
 * (rules/copy.c's rule with the float bytes left alone, so overlap and a
 * source without a shadow are handled as in forward mode); in the reverse,
 * every float segment of dst' is taken into a scratch buffer of the copy's
 * size (at the same offsets) and zeroed, and then, when the source has a
 * shadow, the scratch is added into src'.  All of dst' is read before any
 * of src' is written, so overlapping ranges (memmove) end right in either
 * direction.  A memset zeroes the float segments of dst' in the reverse
 * and sets the others in aug.  A periodic layout (an array of structs
 * copied with a run-time length) is walked once per element, the last,
 * partial one clipped.  Bytes that type analysis cannot classify, and are
 * not padding, are refused. */

/* The emitter of the aug moves: the copy replayed on the shadows. */
static int replay_piece(ad_fn_ctx *fc, const ad_copy_emitter *em,
                        LLVMValueRef clone, LLVMValueRef dst, LLVMValueRef src,
                        LLVMValueRef n) {
  static const unsigned ops[3] = {0, 1, 2};
  LLVMValueRef vals[3] = {dst, src, n};
  (void)em;
  return ad_replay_call(fc, clone, ops, vals, 3) ? 0 : -1;
}

static int zero_piece(ad_fn_ctx *fc, const ad_copy_emitter *em,
                      LLVMValueRef clone, LLVMValueRef dst, LLVMValueRef n) {
  (void)em, (void)clone;
  LLVMBuildMemSet(fc->b, dst, LLVMConstNull(LLVMInt8TypeInContext(fc->mc->llctx)),
                  n, 1);
  return 0;
}

static const ad_copy_emitter host_pieces = {replay_piece, zero_piece, NULL};

static long long unclassified_offset(ad_rev_fn *r, const ad_copy_layout *l,
                                     int *floats) {
  *floats = 0;
  for (size_t i = 0; i < l->n; i++) {
    const ad_segment *s = &l->segs[i];
    if (s->kind == AD_BYTES_FLOAT) {
      if (!ad_rev_float_of_bits(r->mc, s->bits))
        return (long long)s->offset;
      *floats = 1;
    } else if (s->kind == AD_BYTES_UNKNOWN &&
               !ad_copy_segment_is_padding(l, i)) {
      return (long long)s->offset;
    }
  }
  return -1;
}

int ad_rev_refuse_unclassified(ad_rev_fn *r, LLVMValueRef call,
                               const char *name, const ad_copy_layout *l,
                               const char *what, int *floats) {
  long long bad = unclassified_offset(r, l, floats);
  if (bad < 0)
    return 0;
  return ad_fail_code(
      r->mc, TANJIT_ERR_UNSUPPORTED, call,
      "reverse mode: %s of memory with bytes type analysis cannot classify "
      "(at byte %lld of the %s: not a float, pointer, integer nor padding) "
      "is not supported",
      name, bad, l->period ? "repeated element" : what);
}

/* One segment's work: `off` its first byte, `n` its bytes (clipped to
 * the copy), both i64, at v->b. */
typedef struct seg_walk seg_walk;
struct seg_walk {
  ad_rev_fn *r;
  LLVMBuilderRef b;
  int floats; /* visit the float segments (else every other one) */
  /* with the floats, the bytes type analysis could not classify (a zero
   * memset's, which both passes zero: see zeroes_unclassified) */
  int unknown_with_floats;
  void (*visit)(const seg_walk *w, const ad_segment *s, LLVMValueRef off,
                LLVMValueRef n);
  LLVMValueRef a, c; /* the visit's operands */
};

/* min(s's size, total - s's offset), 0 past the end; i64 */
static LLVMValueRef clipped_bytes(LLVMBuilderRef b, const ad_segment *s,
                                  LLVMValueRef total) {
  LLVMTypeRef t = LLVMTypeOf(total);
  if (LLVMIsAConstantInt(total)) {
    unsigned long long all = LLVMConstIntGetZExtValue(total);
    unsigned long long left = s->offset < all ? all - s->offset : 0;
    return LLVMConstInt(t, s->size < left ? s->size : left, 0);
  }
  LLVMValueRef off = LLVMConstInt(t, s->offset, 0);
  LLVMValueRef left = LLVMBuildSub(b, total, off, "");
  LLVMValueRef n = left;
  if (s->size != ~0ull) {
    LLVMValueRef size = LLVMConstInt(t, s->size, 0);
    n = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, size, left, ""), size,
                        left, "");
  }
  return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, off, total, ""), n,
                         LLVMConstNull(t), "");
}

static void walk_once(const seg_walk *w, const ad_copy_layout *l,
                      LLVMValueRef base, LLVMValueRef total) {
  for (size_t i = 0; i < l->n; i++) {
    const ad_segment *s = &l->segs[i];
    int with_floats = s->kind == AD_BYTES_FLOAT ||
                      (w->unknown_with_floats && s->kind == AD_BYTES_UNKNOWN);
    if (with_floats != w->floats)
      continue;
    LLVMValueRef n = clipped_bytes(w->b, s, total);
    if (LLVMIsAConstantInt(n) && LLVMConstIntGetZExtValue(n) == 0)
      continue;
    LLVMValueRef off = LLVMBuildAdd(
        w->b, base, LLVMConstInt(LLVMTypeOf(base), s->offset, 0), "");
    w->visit(w, s, off, n);
  }
}

/* Every wanted segment of a copy of `len` bytes (i64): once, or once per
 * period and then the partial period left. */
static void walk_segments(const seg_walk *w, const ad_copy_layout *l,
                          LLVMValueRef len) {
  LLVMTypeRef i64 = LLVMTypeOf(len);
  LLVMValueRef zero = LLVMConstNull(i64);
  if (!l->period) {
    walk_once(w, l, zero, len);
    return;
  }
  LLVMContextRef c = w->r->mc->llctx;
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(w->b));
  LLVMValueRef period = LLVMConstInt(i64, l->period, 0);
  LLVMValueRef count = LLVMBuildUDiv(w->b, len, period, "copy.reps");
  LLVMBasicBlockRef before = LLVMGetInsertBlock(w->b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fn, "copy.rep");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "copy.reps_done");
  LLVMBuildCondBr(w->b, LLVMBuildICmp(w->b, LLVMIntEQ, count, zero, ""), done,
                  loop);
  LLVMPositionBuilderAtEnd(w->b, loop);
  LLVMValueRef k = LLVMBuildPhi(w->b, i64, "rep");
  walk_once(w, l, LLVMBuildMul(w->b, k, period, ""), period);
  LLVMValueRef next = LLVMBuildAdd(w->b, k, LLVMConstInt(i64, 1, 0), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(w->b);
  LLVMBuildCondBr(w->b, LLVMBuildICmp(w->b, LLVMIntULT, next, count, ""),
                  loop, done);
  LLVMValueRef kv[2] = {zero, next};
  LLVMBasicBlockRef kb[2] = {before, latch};
  LLVMAddIncoming(k, kv, kb, 2);
  LLVMPositionBuilderAtEnd(w->b, done);
  LLVMValueRef whole = LLVMBuildMul(w->b, count, period, "");
  LLVMValueRef rest = LLVMBuildSub(w->b, len, whole, "copy.rest");
  if (!LLVMIsAConstantInt(rest) || LLVMConstIntGetZExtValue(rest) != 0)
    walk_once(w, l, whole, rest);
}

/* The elements of float type t in n bytes of a segment: the last may end
 * in padding (x86_fp80 stores 10 of its 16 bytes). */
static LLVMValueRef element_count(ad_module_ctx *mc, LLVMBuilderRef b,
                                  LLVMTypeRef t, LLVMValueRef n) {
  unsigned long long esz = LLVMABISizeOfType(mc->td, t);
  unsigned long long store = LLVMStoreSizeOfType(mc->td, t);
  LLVMTypeRef i64 = LLVMTypeOf(n);
  return LLVMBuildUDiv(b, LLVMBuildAdd(b, n, LLVMConstInt(i64, esz - store, 0), ""),
                       LLVMConstInt(i64, esz, 0), "");
}

/* visit: a float segment's typed loop on (w->a + off, w->c + off) */
static void visit_typed(const seg_walk *w, const ad_segment *s,
                        LLVMValueRef off, LLVMValueRef n, ad_rev_loop loop) {
  ad_module_ctx *mc = w->r->mc;
  LLVMTypeRef t = ad_rev_float_of_bits(mc, s->bits);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(mc->llctx);
  LLVMValueRef args[3] = {LLVMBuildGEP2(w->b, i8, w->a, &off, 1, ""),
                          LLVMBuildGEP2(w->b, i8, w->c, &off, 1, ""),
                          element_count(mc, w->b, t, n)};
  LLVMValueRef fn = ad_rev_typed_helper(mc, loop, t);
  LLVMBuildCall2(w->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
}

static void visit_take(const seg_walk *w, const ad_segment *s,
                       LLVMValueRef off, LLVMValueRef n) {
  visit_typed(w, s, off, n, AD_REV_LOOP_TAKE);
}

static void visit_accumulate(const seg_walk *w, const ad_segment *s,
                             LLVMValueRef off, LLVMValueRef n) {
  visit_typed(w, s, off, n, AD_REV_LOOP_ACCUMULATE);
}

/* visit: memset(w->a + off, w->c, n) */
static void visit_set(const seg_walk *w, const ad_segment *s, LLVMValueRef off,
                      LLVMValueRef n) {
  (void)s;
  LLVMTypeRef i8 = LLVMInt8TypeInContext(w->r->mc->llctx);
  LLVMBuildMemSet(w->b, LLVMBuildGEP2(w->b, i8, w->a, &off, 1, ""), w->c, n, 1);
}

void ad_rev_float_segments(ad_rev_fn *r, LLVMBuilderRef b,
                           const ad_copy_layout *l, ad_rev_loop loop,
                           LLVMValueRef a, LLVMValueRef c, LLVMValueRef len) {
  seg_walk w = {r, b, 1, 0,
                loop == AD_REV_LOOP_TAKE ? visit_take : visit_accumulate, a,
                c};
  walk_segments(&w, l, len);
}

/* Whether memset `call` writes zero bytes: then the bytes type analysis
 * cannot classify need no classification.  Zero is each kind's own
 * shadow (a float's tangent, a null pointer's shadow, an integer's
 * bits), so aug zeroes the shadow of every such byte, and the reverse
 * zeroes them in dst' as a float's adjoint is: the values the memset
 * overwrote are gone, and nothing the reverse runs after it (the adjoints
 * of what ran before the memset) can read what later code stored there,
 * which aug's replay had already overwritten.  (A nonzero byte pattern is
 * no float's tangent: those bytes are still refused.) */
static int zeroes_unclassified(LLVMValueRef call, int is_set) {
  LLVMValueRef v = is_set ? LLVMGetOperand(call, 1) : NULL;
  return v && LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == 0;
}

static int has_unclassified(const ad_copy_layout *l) {
  for (size_t i = 0; i < l->n; i++)
    if (l->segs[i].kind == AD_BYTES_UNKNOWN)
      return 1;
  return 0;
}

static int mixed_layout(ad_rev_fn *r, LLVMValueRef call, int is_set,
                        ad_copy_layout *l) {
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  return ad_copy_layout_of(&r->fc, call, dst,
                           is_set ? dst : LLVMGetOperand(call, 1),
                           LLVMGetOperand(call, 2), l);
}

/* aug of a copy or memset whose bytes mix kinds. */
static int aug_mixed(ad_rev_fn *r, const ad_rev_call_row *row,
                     LLVMValueRef call, LLVMValueRef clone, int is_set) {
  ad_fn_ctx *fc = &r->fc;
  ad_copy_layout l;
  if (mixed_layout(r, call, is_set, &l) != 0)
    return -1;
  int floats = 0, zeroes = zeroes_unclassified(call, is_set);
  if (zeroes) {
    floats = has_unclassified(&l);
    for (size_t i = 0; i < l.n && !floats; i++)
      floats = l.segs[i].kind == AD_BYTES_FLOAT;
  } else if (ad_rev_refuse_unclassified(r, call, row->name, &l, "copy",
                                        &floats) != 0) {
    ad_copy_layout_free(&l);
    return -1;
  }
  int rc = 0;
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->mc->llctx);
  if (is_set) {
    seg_walk w = {r, fc->b, 0, 0, visit_set, ad_shadow_value(fc, dst),
                  ad_primal(fc, LLVMGetOperand(call, 1))};
    walk_segments(&w, &l,
                  LLVMBuildZExtOrBitCast(
                      fc->b, ad_primal(fc, LLVMGetOperand(call, 2)), i64, ""));
  } else {
    rc = ad_copy_non_float_shadows(fc, call, clone, dst, LLVMGetOperand(call, 1),
                                   LLVMGetOperand(call, 2), &host_pieces);
  }
  ad_copy_layout_free(&l);
  if (rc != 0 || !floats)
    return rc;
  ad_rev_call_plan *p = ad_rev_plan_row(r, call, row);
  if (!p)
    return -1;
  p->elem = NULL; /* segment by segment */
  return 0;
}

/* The reverse of a mixed copy (is_set 0: the adjoints of dst's float
 * bytes move to src's) or memset (dst's float bytes' adjoints zeroed). */
static int rev_mixed(ad_rev_fn *r, LLVMValueRef call, int is_set) {
  ad_module_ctx *mc = r->mc;
  ad_copy_layout l;
  if (mixed_layout(r, call, is_set, &l) != 0)
    return -1;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  LLVMValueRef len = LLVMBuildZExtOrBitCast(
      r->rb, ad_rev_primal(r, LLVMGetOperand(call, 2)), i64, "");
  /* a destination whose shadow is itself at run time is inactive memory:
   * its bytes are the user's, not adjoints */
  LLVMBasicBlockRef after_dst = ad_rev_guard(r, dst);
  LLVMValueRef ds = ad_rev_shadow(r, dst);
  if (is_set) {
    seg_walk w = {r, r->rb, 1, zeroes_unclassified(call, is_set), visit_set,
                  ds, LLVMConstNull(LLVMInt8TypeInContext(mc->llctx))};
    walk_segments(&w, &l, len);
    ad_rev_guard_end(r, after_dst);
    ad_copy_layout_free(&l);
    return 0;
  }
  LLVMValueRef src = LLVMGetOperand(call, 1);
  LLVMValueRef one = LLVMConstInt(i64, 1, 0);
  LLVMValueRef ca[2] = {len, one};
  LLVMValueRef tmp = ad_rev_call_libc(mc, r->rb, "calloc", ca, 2);
  seg_walk take = {r, r->rb, 1, 0, visit_take, tmp, ds};
  walk_segments(&take, &l, len);
  if (ad_shadow_or_null(&r->fc, src)) {
    LLVMValueRef ss = ad_rev_shadow(r, src);
    LLVMBasicBlockRef after = NULL;
    if (ad_shadow_may_equal_primal(&r->fc, src)) {
      /* an inactive source (its shadow is itself) receives nothing */
      LLVMBasicBlockRef add =
          LLVMAppendBasicBlockInContext(mc->llctx, r->rev, "copy.add");
      after = LLVMAppendBasicBlockInContext(mc->llctx, r->rev, "copy.added");
      LLVMBuildCondBr(
          r->rb,
          LLVMBuildICmp(r->rb, LLVMIntEQ, ss, ad_rev_primal(r, src), ""),
          after, add);
      LLVMPositionBuilderAtEnd(r->rb, add);
    }
    seg_walk acc = {r, r->rb, 1, 0, visit_accumulate, ss, tmp};
    walk_segments(&acc, &l, len);
    if (after) {
      LLVMBuildBr(r->rb, after);
      LLVMPositionBuilderAtEnd(r->rb, after);
    }
  }
  ad_rev_call_libc(mc, r->rb, "free", &tmp, 1);
  ad_rev_guard_end(r, after_dst);
  ad_copy_layout_free(&l);
  return 0;
}

/* ---- copies and memsets ---- */

/* Whether the instruction may write memory other than through a store
 * (intrinsics that only mark lifetimes, scopes or debug values do not). */
static int may_write_beside_stores(LLVMValueRef i) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  if (op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg || op == LLVMFence ||
      op == LLVMInvoke)
    return 1;
  if (op != LLVMCall)
    return 0;
  LLVMValueRef fn = ad_called_function(i);
  if (!fn || !LLVMGetIntrinsicID(fn))
    return 1;
  const char *name = ad_value_name(fn);
  static const char *const markers[] = {"llvm.lifetime.", "llvm.dbg.",
                                        "llvm.experimental.noalias.scope.decl",
                                        "llvm.assume"};
  for (size_t k = 0; k < sizeof markers / sizeof *markers; k++)
    if (strncmp(name, markers[k], strlen(markers[k])) == 0)
      return 0;
  return 1;
}

/* A memset that is the first write into a block just allocated (C++'s
 * value-initializing `new T()`, make_unique, a calloc-like malloc+memset):
 * the block's shadow is a fresh zeroed allocation, and no adjoint can
 * precede the memset, so neither pass has work to do, whatever the bytes
 * hold (type analysis need not know them: the constructor that follows
 * often stores through calls it cannot see into). */
static int sets_fresh_block(ad_module_ctx *mc, LLVMValueRef set) {
  LLVMValueRef block = ad_pointer_root(LLVMGetOperand(set, 0));
  if (!LLVMIsACallInst(block) ||
      LLVMGetInstructionParent(block) != LLVMGetInstructionParent(set))
    return 0;
  const ad_call_rule *rule = ad_rule_of_call(mc, block);
  if (!rule || !rule->returns_allocation)
    return 0;
  for (LLVMValueRef i = LLVMGetNextInstruction(block); i && i != set;
       i = LLVMGetNextInstruction(i)) {
    if (may_write_beside_stores(i))
      return 0;
    if (LLVMGetInstructionOpcode(i) == LLVMStore &&
        ad_pointer_root(LLVMGetOperand(i, 1)) == block)
      return 0;
  }
  return 1;
}

static int aug_copy_or_set(ad_rev_fn *r, const ad_rev_call_row *row,
                           LLVMValueRef call, LLVMValueRef c, int is_set) {
  ad_fn_ctx *fc = &r->fc;
  const char *name = row->name;
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  LLVMValueRef src = is_set ? dst : LLVMGetOperand(call, 1);
  LLVMValueRef len = LLVMGetOperand(call, 2);
  if (!ad_shadow_or_null(fc, dst)) {
    if (!is_set && ad_is_active(fc, src) && ad_shadow_or_null(fc, src) &&
        !ad_rev_into_unread_constant(r, dst)) {
      LLVMTypeRef e = NULL;
      if (copy_kind(r, call, dst, src, len, &e) != 0)
        return ad_rev_fail_call(
            r, call, "%s copies active memory into memory with no shadow", name);
    }
    return 0;
  }
  if (is_set && sets_fresh_block(r->mc, call))
    return 0;
  LLVMTypeRef elem = NULL;
  int k = copy_kind(r, call, dst, src, len, &elem);
  if (k == -2)
    return -1;
  if (k < 0)
    return aug_mixed(r, row, call, c, is_set);
  if (k == 0) {
    /* pointers and integers: the shadows move as the primal bytes do */
    static const unsigned ops2[] = {0, 1};
    LLVMValueRef vals[2] = {ad_shadow_value(fc, dst),
                            is_set ? NULL : ad_shadow_value(fc, src)};
    ad_replay_call(fc, c, ops2, vals, is_set ? 1 : 2);
    return 0;
  }
  /* floats of one type: one typed loop over the whole range */
  ad_rev_call_plan *p = ad_rev_plan_row(r, call, row);
  if (!p)
    return -1;
  p->elem = elem;
  return 0;
}

static int aug_copy(ad_rev_fn *r, const ad_rev_call_row *row,
                    LLVMValueRef call, LLVMValueRef clone) {
  return aug_copy_or_set(r, row, call, clone, 0);
}

static int aug_set(ad_rev_fn *r, const ad_rev_call_row *row,
                   LLVMValueRef call, LLVMValueRef clone) {
  return aug_copy_or_set(r, row, call, clone, 1);
}

static int rev_copy(ad_rev_fn *r, const ad_rev_call_row *row,
                    LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)row;
  if (!p->elem)
    return rev_mixed(r, call, 0);
  ad_module_ctx *mc = r->mc;
  LLVMValueRef dst = LLVMGetOperand(call, 0), src = LLVMGetOperand(call, 1);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMValueRef len = LLVMBuildZExtOrBitCast(
      r->rb, ad_rev_primal(r, LLVMGetOperand(call, 2)), i64, "");
  LLVMValueRef count = LLVMBuildUDiv(
      r->rb, len, LLVMConstInt(i64, LLVMABISizeOfType(mc->td, p->elem), 0), "");
  LLVMValueRef ds = ad_rev_shadow(r, dst);
  LLVMValueRef ss = ad_shadow_or_null(&r->fc, src) ? ad_rev_shadow(r, src) : ds;
  LLVMValueRef add;
  if (!ad_shadow_or_null(&r->fc, src))
    add = LLVMConstInt(LLVMInt1TypeInContext(mc->llctx), 0, 0);
  else if (ad_shadow_may_equal_primal(&r->fc, src))
    add = LLVMBuildICmp(r->rb, LLVMIntNE, ss, ad_rev_primal(r, src), "");
  else
    add = LLVMConstInt(LLVMInt1TypeInContext(mc->llctx), 1, 0);
  LLVMValueRef fn = ad_rev_typed_helper(mc, AD_REV_LOOP_COPY, p->elem);
  LLVMValueRef a[4] = {ds, ss, count, add};
  LLVMBuildCall2(r->rb, LLVMGlobalGetValueType(fn), fn, a, 4, "");
  return 0;
}

static int rev_set(ad_rev_fn *r, const ad_rev_call_row *row, LLVMValueRef call,
                   const ad_rev_call_plan *p) {
  (void)row;
  if (!p->elem)
    return rev_mixed(r, call, 1);
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  LLVMValueRef len = ad_rev_primal(r, LLVMGetOperand(call, 2));
  LLVMBuildMemSet(r->rb, ad_rev_shadow(r, dst),
                  LLVMConstInt(LLVMInt8TypeInContext(r->mc->llctx), 0, 0), len,
                  1);
  return 0;
}

/* ---- llvm.vector.reduce.fadd(start, v) ---- */

static int aug_if_adjoint(ad_rev_fn *r, const ad_rev_call_row *row,
                          LLVMValueRef call, LLVMValueRef clone) {
  (void)clone;
  if (!ad_rev_has_adjoint(r, call))
    return 0;
  return ad_rev_plan_row(r, call, row) ? 0 : -1;
}

static int rev_reduce_fadd(ad_rev_fn *r, const ad_rev_call_row *row,
                           LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)row, (void)p;
  LLVMValueRef start = LLVMGetOperand(call, 0), vec = LLVMGetOperand(call, 1);
  LLVMValueRef d = ad_rev_take(r, call);
  ad_rev_accumulate(r, start, d, call);
  if (ad_rev_has_adjoint(r, vec)) {
    LLVMTypeRef vt = LLVMTypeOf(vec);
    LLVMValueRef splat = LLVMGetPoison(vt);
    unsigned nl = LLVMGetVectorSize(vt);
    for (unsigned k = 0; k < nl; k++)
      splat = LLVMBuildInsertElement(
          r->rb, splat, d,
          LLVMConstInt(LLVMInt32TypeInContext(r->mc->llctx), k, 0), "");
    ad_rev_accumulate(r, vec, splat, call);
  }
  return 0;
}

/* ---- the rows ---- */

static const alloc_data a_malloc = {0, -1, -1}, a_calloc = {0, 1, -1},
                        a_aligned = {1, -1, 0}, a_new_aligned = {0, -1, 1};

#define ALLOC(n, d) {.name = n, .aug = aug_alloc, .rev = rev_alloc, .data = &d}
#define FREE(n) {.name = n, .aug = aug_nothing}
static const ad_rev_call_row memory_rows[] = {
    ALLOC("malloc", a_malloc),
    ALLOC("calloc", a_calloc),
    ALLOC("aligned_alloc", a_aligned),
    ALLOC("memalign", a_aligned),
    ALLOC("_Znwm", a_malloc),
    ALLOC("_Znam", a_malloc),
    ALLOC("_ZnwmSt11align_val_t", a_new_aligned),
    ALLOC("_ZnamSt11align_val_t", a_new_aligned),
    ALLOC("_ZnwmRKSt9nothrow_t", a_malloc),
    ALLOC("_ZnamRKSt9nothrow_t", a_malloc),
    {.name = "realloc", .aug = aug_realloc, .rev = rev_realloc},
    {.name = "posix_memalign", .aug = aug_memalign, .rev = rev_memalign},
    FREE("free"),
    FREE("_ZdlPv"),
    FREE("_ZdaPv"),
    FREE("_ZdlPvm"),
    FREE("_ZdaPvm"),
    FREE("_ZdlPvSt11align_val_t"),
    FREE("_ZdaPvSt11align_val_t"),
    FREE("_ZdlPvmSt11align_val_t"),
    FREE("_ZdaPvmSt11align_val_t"),
    {.name = "memcpy", .aug = aug_copy, .rev = rev_copy},
    {.name = "memmove", .aug = aug_copy, .rev = rev_copy},
    {.name = "llvm.memcpy", .aug = aug_copy, .rev = rev_copy},
    {.name = "llvm.memcpy.inline", .aug = aug_copy, .rev = rev_copy},
    {.name = "llvm.memmove", .aug = aug_copy, .rev = rev_copy},
    {.name = "memset", .aug = aug_set, .rev = rev_set},
    {.name = "llvm.memset", .aug = aug_set, .rev = rev_set},
    {.name = "llvm.memset.inline", .aug = aug_set, .rev = rev_set},
    {.name = "llvm.vector.reduce.fadd", .aug = aug_if_adjoint,
     .rev = rev_reduce_fadd},
};

const ad_rev_call_rows ad_rev_memory_rows = {
    "memory", memory_rows, sizeof memory_rows / sizeof *memory_rows};
