/*
 * The tape: one LIFO byte stack shared by every aug/rev pair of a gradient
 * (callees and recursion included), behind a header {ptr, size, cap} that
 * the gradient allocas and passes to each pair as its last argument.
 *
 * Each block of an aug body pushes one record just before its terminator:
 * every value the block's reverse reads (primal operands, results that
 * partials use, shadow pointers, a callee's arguments), then the block's
 * id on top.  Everything a block's reverse reads dominates the block's
 * terminator, so one push per block suffices for any control flow, and a
 * value overwritten in memory later cannot change what was recorded.
 * Records are laid out from their top down: the id in the 8 bytes below
 * the top, then each value in 8-byte-aligned slots, in the order the
 * reverse first asked for it, so the reverse can load a slot before it
 * knows the record's size.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

LLVMTypeRef ad_rev_tape_type(ad_module_ctx *mc) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMTypeRef members[3] = {ptr, i64, i64};
  return LLVMStructTypeInContext(mc->llctx, members, 3, 0);
}

LLVMValueRef ad_rev_libc(ad_module_ctx *mc, const char *name) {
  LLVMValueRef f = LLVMGetNamedFunction(mc->mod, name);
  if (f)
    return f;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMTypeRef ft;
  if (strcmp(name, "free") == 0)
    ft = LLVMFunctionType(LLVMVoidTypeInContext(mc->llctx), &ptr, 1, 0);
  else if (strcmp(name, "calloc") == 0) {
    LLVMTypeRef two[2] = {i64, i64};
    ft = LLVMFunctionType(ptr, two, 2, 0);
  } else { /* realloc */
    LLVMTypeRef two[2] = {ptr, i64};
    ft = LLVMFunctionType(ptr, two, 2, 0);
  }
  return LLVMAddFunction(mc->mod, name, ft);
}

LLVMValueRef ad_rev_call_libc(ad_module_ctx *mc, LLVMBuilderRef b,
                              const char *name, LLVMValueRef *args,
                              unsigned n) {
  LLVMValueRef f = ad_rev_libc(mc, name);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMTypeRef ft;
  /* the call's own type, whatever the module declared */
  if (strcmp(name, "free") == 0)
    ft = LLVMFunctionType(LLVMVoidTypeInContext(mc->llctx), &ptr, 1, 0);
  else if (strcmp(name, "calloc") == 0) {
    LLVMTypeRef two[2] = {i64, i64};
    ft = LLVMFunctionType(ptr, two, 2, 0);
  } else {
    LLVMTypeRef two[2] = {ptr, i64};
    ft = LLVMFunctionType(ptr, two, 2, 0);
  }
  return LLVMBuildCall2(b, ft, f, args, n, "");
}

/* tanjit.tape.reserve(tape, n): the address of n fresh bytes on top,
 * growing the buffer (doubling, at least 4 KiB) with realloc; traps when
 * memory runs out (generated code has no error channel). */
static LLVMValueRef reserve_fn(ad_module_ctx *mc) {
  const char *name = "tanjit.tape.reserve";
  LLVMValueRef fn = LLVMGetNamedFunction(mc->mod, name);
  if (fn)
    return fn;
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c);
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  LLVMTypeRef params[2] = {ptr, i64};
  fn = LLVMAddFunction(mc->mod, name, LLVMFunctionType(ptr, params, 2, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "entry");
  LLVMBasicBlockRef grow = LLVMAppendBasicBlockInContext(c, fn, "grow");
  LLVMBasicBlockRef oom = LLVMAppendBasicBlockInContext(c, fn, "oom");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMValueRef tape = LLVMGetParam(fn, 0), n = LLVMGetParam(fn, 1);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef psize = LLVMBuildStructGEP2(b, tt, tape, 1, "");
  LLVMValueRef pcap = LLVMBuildStructGEP2(b, tt, tape, 2, "");
  LLVMValueRef size = LLVMBuildLoad2(b, i64, psize, "size");
  LLVMValueRef cap = LLVMBuildLoad2(b, i64, pcap, "cap");
  LLVMValueRef need = LLVMBuildAdd(b, size, n, "need");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGT, need, cap, ""), grow, done);
  LLVMPositionBuilderAtEnd(b, grow);
  LLVMValueRef twice = LLVMBuildShl(b, cap, LLVMConstInt(i64, 1, 0), "");
  LLVMValueRef ncap = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntUGT, need, twice, ""), need, twice, "");
  ncap = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntULT, ncap, LLVMConstInt(i64, 4096, 0), ""),
      LLVMConstInt(i64, 4096, 0), ncap, "");
  LLVMValueRef old = LLVMBuildLoad2(b, ptr, tape, "");
  LLVMValueRef ra[2] = {old, ncap};
  LLVMValueRef grown = ad_rev_call_libc(mc, b, "realloc", ra, 2);
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "ok");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, grown, ""), oom, ok);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMBuildStore(b, grown, tape);
  LLVMBuildStore(b, ncap, pcap);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, oom);
  unsigned trap = LLVMLookupIntrinsicID("llvm.trap", 9);
  LLVMBuildCall2(b, LLVMIntrinsicGetType(c, trap, NULL, 0),
                 LLVMGetIntrinsicDeclaration(mc->mod, trap, NULL, 0), NULL, 0,
                 "");
  LLVMBuildUnreachable(b);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMValueRef base = LLVMBuildLoad2(b, ptr, tape, "");
  LLVMBuildStore(b, need, psize);
  LLVMValueRef at = LLVMBuildGEP2(b, i8, base, &size, 1, "");
  LLVMBuildRet(b, at);
  LLVMDisposeBuilder(b);
  return fn;
}

static unsigned long long slot_size(ad_module_ctx *mc, LLVMTypeRef t) {
  unsigned long long s = LLVMABISizeOfType(mc->td, t);
  return (s + 7) & ~7ull;
}

/* The record's top in the reverse: tape.ptr + tape.size. */
static LLVMValueRef tape_top(ad_rev_fn *r, LLVMBuilderRef b) {
  ad_module_ctx *mc = r->mc;
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMValueRef base = LLVMBuildLoad2(b, ptr, r->rev_tape, "tape.ptr");
  LLVMValueRef size = LLVMBuildLoad2(
      b, i64, LLVMBuildStructGEP2(b, tt, r->rev_tape, 1, ""), "tape.size");
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), base, &size, 1,
                       "top");
}

static LLVMValueRef below(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef top,
                          unsigned long long off) {
  LLVMValueRef k = LLVMConstInt(LLVMInt64TypeInContext(mc->llctx),
                                (unsigned long long)(-(long long)off), 1);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), top, &k, 1, "");
}

LLVMValueRef ad_rev_peek_id(ad_rev_fn *r, LLVMBuilderRef b) {
  LLVMValueRef top = tape_top(r, b);
  LLVMValueRef l = LLVMBuildLoad2(b, LLVMInt64TypeInContext(r->mc->llctx),
                                  below(r->mc, b, top, 8), "block.id");
  LLVMSetAlignment(l, 8);
  return l;
}

void ad_rev_begin_block(ad_rev_fn *r, LLVMBasicBlockRef bb,
                        LLVMBasicBlockRef head, LLVMBasicBlockRef body) {
  (void)bb;
  r->head = head;
  r->nitems = 0;
  r->bytes = 8; /* the id */
  LLVMPositionBuilderAtEnd(r->rb, head);
  r->top = tape_top(r, r->rb);
  r->head_term = LLVMBuildBr(r->rb, body);
  LLVMPositionBuilderAtEnd(r->rb, body);
}

/* The slot of (v, shadow) in the current record, added when new. */
static LLVMValueRef taped(ad_rev_fn *r, LLVMValueRef v, int shadow) {
  for (size_t i = 0; i < r->nitems; i++)
    if (r->items[i].v == v && r->items[i].shadow == shadow)
      return r->items[i].loaded;
  if (r->nitems == r->capitems) {
    size_t cap = r->capitems ? 2 * r->capitems : 16;
    ad_rev_item *g = tj_realloc(r->items, cap * sizeof *g);
    if (!g) {
      ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
      return LLVMGetUndef(LLVMTypeOf(v));
    }
    r->items = g;
    r->capitems = cap;
  }
  LLVMTypeRef t = LLVMTypeOf(shadow == 2 ? ad_map_get(&r->recorded, v) : v);
  r->bytes += slot_size(r->mc, t);
  ad_rev_item *it = &r->items[r->nitems++];
  it->v = v;
  it->shadow = shadow;
  it->off = r->bytes;
  LLVMBuilderRef hb = LLVMCreateBuilderInContext(r->mc->llctx);
  LLVMPositionBuilderBefore(hb, r->head_term);
  it->loaded = LLVMBuildLoad2(hb, t, below(r->mc, hb, r->top, it->off),
                              shadow ? "taped.shadow" : "taped");
  LLVMSetAlignment(it->loaded, 8);
  LLVMDisposeBuilder(hb);
  return it->loaded;
}

LLVMValueRef ad_rev_primal(ad_rev_fn *r, LLVMValueRef v) {
  if (!LLVMIsAInstruction(v) && !LLVMIsAArgument(v))
    return v; /* constants, globals, functions */
  if (LLVMIsAArgument(v)) {
    LLVMValueRef p = ad_map_get(&r->rparam, v);
    return p ? p : v;
  }
  return taped(r, v, 0);
}

LLVMValueRef ad_rev_shadow(ad_rev_fn *r, LLVMValueRef v) {
  if (LLVMIsAArgument(v)) {
    LLVMValueRef s = ad_map_get(&r->rshadow, v);
    return s ? s : ad_rev_primal(r, v); /* an inactive one stands for itself */
  }
  if (!LLVMIsAInstruction(v)) {
    /* a constant's shadow is a constant (shadow globals); no code */
    LLVMValueRef s = ad_shadow_value(&r->fc, v);
    return s;
  }
  return taped(r, v, 1);
}

int ad_rev_record(ad_rev_fn *r, LLVMValueRef key, LLVMValueRef value) {
  if (ad_map_put(&r->recorded, key, value) != 0)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, key, "out of memory");
  return 0;
}

LLVMValueRef ad_rev_recorded(ad_rev_fn *r, LLVMValueRef key) {
  return ad_map_get(&r->recorded, key) ? taped(r, key, 2) : NULL;
}

int ad_rev_end_block(ad_rev_fn *r, LLVMBasicBlockRef bb) {
  ad_module_ctx *mc = r->mc;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  unsigned long long total = r->bytes;
  /* the reverse pops the record */
  LLVMBuilderRef hb = LLVMCreateBuilderInContext(mc->llctx);
  LLVMPositionBuilderBefore(hb, r->head_term);
  LLVMValueRef psize = LLVMBuildStructGEP2(hb, tt, r->rev_tape, 1, "");
  LLVMValueRef size = LLVMBuildLoad2(hb, i64, psize, "");
  LLVMBuildStore(hb, LLVMBuildSub(hb, size, LLVMConstInt(i64, total, 0), ""),
                 psize);
  LLVMDisposeBuilder(hb);
  /* the aug pushes it before bb's terminator */
  LLVMValueRef exit = ad_map_get(&r->fc.exit_block, LLVMBasicBlockAsValue(bb));
  if (!exit)
    return 0;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(LLVMValueAsBasicBlock(exit));
  ad_fn_ctx *fc = &r->fc;
  LLVMPositionBuilderBefore(fc->b, term);
  LLVMValueRef args[2] = {r->aug_tape, LLVMConstInt(i64, total, 0)};
  LLVMValueRef rf = reserve_fn(mc);
  LLVMValueRef base =
      LLVMBuildCall2(fc->b, LLVMGlobalGetValueType(rf), rf, args, 2, "record");
  LLVMValueRef k = LLVMConstInt(i64, total, 0);
  LLVMValueRef top =
      LLVMBuildGEP2(fc->b, LLVMInt8TypeInContext(mc->llctx), base, &k, 1, "");
  for (size_t i = 0; i < r->nitems; i++) {
    ad_rev_item *it = &r->items[i];
    LLVMValueRef v = it->shadow == 2 ? ad_map_get(&r->recorded, it->v)
                     : it->shadow ? ad_shadow_value(fc, it->v)
                                  : ad_primal(fc, it->v);
    LLVMValueRef st = LLVMBuildStore(fc->b, v, below(mc, fc->b, top, it->off));
    LLVMSetAlignment(st, 8);
  }
  uintptr_t id = (uintptr_t)ad_map_get(&r->block_id, LLVMBasicBlockAsValue(bb));
  LLVMValueRef st = LLVMBuildStore(fc->b, LLVMConstInt(i64, id, 0),
                                   below(mc, fc->b, top, 8));
  LLVMSetAlignment(st, 8);
  return mc->diag.failed ? -1 : 0;
}
