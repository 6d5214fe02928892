/*
 * The memory a custom reverse rule reads through its pointer arguments,
 * kept as it was at the call.  Enzyme's rule signatures let the reverse
 * function read its primal inputs (`*src`), and Enzyme's combined gradient
 * keeps that memory alive (its frame, its deferred frees) until then.
 * tanjit's aug is a function of its own that has returned, and its frees
 * have run, before the reverse calls the rule, so:
 *
 *  - an alloca of the differentiated function (its frame is gone) is
 *    always copied;
 *  - a block allocated in the function (malloc, calloc, new, ...: its size
 *    is the call's) is copied where it may be written or freed between the
 *    call and its reverse (overwritten.c);
 *
 * right after the rule's augmented function, into a tape-owned block
 * (memory.c's shadow blocks: freed by the exception guard when aug
 * unwinds), and the rule's reverse receives the copy at the argument's
 * offset, then the block is freed.  The copy's first 32 bytes hold the
 * address handed to the reverse, so only the block (a call's result,
 * which the tape stores) is recorded.  Memory reached only through
 * pointers held in such memory (a std::vector's buffer) is not copied:
 * frees are held back instead (below).
 */
#include <string.h>

#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"

/* Where an allocation's size is: argument a, times argument b (b >= 0). */
static const struct alloc_size_row {
  const char *name;
  signed char a, b;
} alloc_sizes[] = {
    {"malloc", 0, -1},        {"calloc", 0, 1},
    {"realloc", 1, -1},       {"aligned_alloc", 1, -1},
    {"memalign", 1, -1},      {"_Znwm", 0, -1},
    {"_Znam", 0, -1},         {"_ZnwmSt11align_val_t", 0, -1},
    {"_ZnamSt11align_val_t", 0, -1},
};

/* The object p points into: an alloca or a call, through casts, GEPs and
 * local slots stored once (-O0's copies), or NULL. */
static LLVMValueRef object_of(LLVMValueRef p) {
  for (int depth = 0; depth < 8; depth++) {
    p = ad_strip_casts(p, AD_STRIP_INT_CASTS | AD_STRIP_GEPS |
                              AD_STRIP_INSTRUCTIONS);
    if (LLVMIsAAllocaInst(p) || LLVMIsACallInst(p))
      return p;
    if (!LLVMIsALoadInst(p) || LLVMGetVolatile(p))
      return NULL;
    LLVMValueRef slot = LLVMGetOperand(p, 0), only = NULL;
    if (!LLVMIsAAllocaInst(slot))
      return NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsALoadInst(user))
        continue;
      if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != slot ||
          (only && only != LLVMGetOperand(user, 0)))
        return NULL;
      only = LLVMGetOperand(user, 0);
    }
    if (!only)
      return NULL;
    p = only;
  }
  return NULL;
}

/* The size in bytes of object o at aug builder b, or NULL when unknown. */
static LLVMValueRef object_size(ad_rev_fn *r, LLVMValueRef o) {
  ad_fn_ctx *fc = &r->fc;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->mc->llctx);
  if (LLVMIsAAllocaInst(o)) {
    LLVMValueRef count =
        LLVMBuildZExtOrBitCast(fc->b, ad_primal(fc, LLVMGetOperand(o, 0)), i64, "");
    unsigned long long each = LLVMABISizeOfType(r->mc->td, LLVMGetAllocatedType(o));
    return LLVMBuildMul(fc->b, count, LLVMConstInt(i64, each, 0), "kept.size");
  }
  const ad_call_rule *rule = ad_rule_of_call(r->mc, o);
  LLVMValueRef fn = ad_called_function(o);
  if (!rule || !rule->returns_allocation || !fn)
    return NULL;
  size_t len;
  const char *name = LLVMGetValueName2(fn, &len);
  unsigned n = LLVMGetNumArgOperands(o);
  for (size_t i = 0; i < sizeof alloc_sizes / sizeof *alloc_sizes; i++) {
    const struct alloc_size_row *row = &alloc_sizes[i];
    if (strcmp(row->name, name) != 0 || (unsigned)row->a >= n ||
        (row->b >= 0 && (unsigned)row->b >= n))
      continue;
    LLVMValueRef size = LLVMBuildZExtOrBitCast(
        fc->b, ad_primal(fc, LLVMGetOperand(o, (unsigned)row->a)), i64, "");
    if (row->b >= 0)
      size = LLVMBuildMul(
          fc->b, size,
          LLVMBuildZExtOrBitCast(
              fc->b, ad_primal(fc, LLVMGetOperand(o, (unsigned)row->b)), i64, ""),
          "kept.size");
    return size;
  }
  return NULL;
}

enum { KEPT_PREFIX = 32 }; /* the reverse's address, then the bytes */

int ad_rev_custom_keep_input(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef a,
                             LLVMValueRef *block) {
  *block = NULL;
  LLVMValueRef o = object_of(a);
  if (!o || LLVMGetInstructionParent(o) == NULL ||
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(o)) !=
          LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)))
    return 0;
  if (!LLVMIsAAllocaInst(o) && !ad_rev_may_be_overwritten(r, call, a, NULL, 0))
    return 0;
  LLVMValueRef size = object_size(r, o);
  if (!size)
    return 0;
  ad_fn_ctx *fc = &r->fc;
  LLVMContextRef c = r->mc->llctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c), i8 = LLVMInt8TypeInContext(c);
  LLVMValueRef prefix = LLVMConstInt(i64, KEPT_PREFIX, 0);
  /* 32-aligned, so the bytes after the prefix keep any alignment up to
   * 32 of the object's */
  LLVMValueRef copy = ad_rev_shadow_alloc(
      r, fc->b, prefix, LLVMBuildAdd(fc->b, size, prefix, ""));
  LLVMValueRef bytes = LLVMBuildGEP2(fc->b, i8, copy, &prefix, 1, "kept");
  LLVMValueRef base = ad_primal(fc, o), at = ad_primal(fc, a);
  LLVMBuildMemCpy(fc->b, bytes, 1, base, 1, size);
  LLVMValueRef off = LLVMBuildSub(fc->b, LLVMBuildPtrToInt(fc->b, at, i64, ""),
                                  LLVMBuildPtrToInt(fc->b, base, i64, ""), "");
  LLVMBuildStore(fc->b, LLVMBuildGEP2(fc->b, i8, bytes, &off, 1, ""), copy);
  /* read back in the reverse from the block's record, keyed by itself
   * (a call: stored, never recomputed) */
  if (ad_map_put(&fc->vmap, copy, copy) != 0)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  *block = copy;
  return 0;
}

LLVMValueRef ad_rev_custom_kept_address(ad_rev_fn *r, LLVMValueRef block) {
  return LLVMBuildLoad2(r->rb, LLVMPointerTypeInContext(r->mc->llctx, 0),
                        block, "kept.at");
}

/* ---- frees held back until the end of the reverse ----
 *
 * A copy keeps only the object an argument points into; a pointer held
 * there (a std::vector's buffer) leads to memory a free after the call
 * (the vector's destructor) would release before the reverse reads it.
 * In a pair whose body calls a custom gradient with a pointer argument,
 * each free or delete of one argument (with, for sized delete, its size)
 * is therefore made at the end of the pair's reverse instead, as Enzyme
 * moves frees to the reverse: aug's clone frees NULL, the free's reverse
 * pushes a node {next, function, pointer, size, takes a size} on a list in
 * a slot of rev, and every return of rev frees the list's blocks, newest
 * first.  Frees in the pair's callees are not held back.  When an
 * exception leaves aug, the blocks it held back are not freed. */

enum { NODE_NEXT = 0, NODE_FN = 8, NODE_PTR = 16, NODE_SIZE = 24,
       NODE_SIZED = 32, NODE_BYTES = 40 };

static LLVMValueRef at(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef p,
                       unsigned long long off) {
  LLVMValueRef k = LLVMConstInt(LLVMInt64TypeInContext(mc->llctx), off, 0);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), p, &k, 1, "");
}

/* Whether r's body calls a custom gradient with a pointer argument. */
static int calls_custom_with_pointers(ad_rev_fn *r) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->sig->fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if ((!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i)) ||
          !ad_rev_custom_applies(r->mc, i))
        continue;
      unsigned n = LLVMGetNumArgOperands(i);
      for (unsigned k = 0; k < n; k++)
        if (LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(i, k))) ==
            LLVMPointerTypeKind)
          return 1;
    }
  return 0;
}

/* tanjit.rev.deferred.free(slot): frees every block on the list in slot
 * with its own function, and the nodes; the slot is left empty. */
static LLVMValueRef run_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef vt = LLVMVoidTypeInContext(c);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.rev.deferred.free", LLVMFunctionType(vt, &ptr, 1, 0),
      &fn);
  if (!b)
    return fn;
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fn, "next");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c, fn, "node");
  LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(c, fn, "unsized");
  LLVMBasicBlockRef two = LLVMAppendBasicBlockInContext(c, fn, "sized");
  LLVMBasicBlockRef freed = LLVMAppendBasicBlockInContext(c, fn, "freed");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMValueRef slot = LLVMGetParam(fn, 0);
  LLVMValueRef first = LLVMBuildLoad2(b, ptr, slot, "");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef node = LLVMBuildPhi(b, ptr, "");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, node, ""), done, body);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef next = LLVMBuildLoad2(b, ptr, at(mc, b, node, NODE_NEXT), "");
  LLVMValueRef f = LLVMBuildLoad2(b, ptr, at(mc, b, node, NODE_FN), "");
  LLVMValueRef p = LLVMBuildLoad2(b, ptr, at(mc, b, node, NODE_PTR), "");
  LLVMValueRef size = LLVMBuildLoad2(b, i64, at(mc, b, node, NODE_SIZE), "");
  LLVMValueRef sized = LLVMBuildLoad2(b, i64, at(mc, b, node, NODE_SIZED), "");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, sized, ""), one, two);
  LLVMPositionBuilderAtEnd(b, one);
  LLVMBuildCall2(b, LLVMFunctionType(vt, &ptr, 1, 0), f, &p, 1, "");
  LLVMBuildBr(b, freed);
  LLVMPositionBuilderAtEnd(b, two);
  LLVMTypeRef pt[2] = {ptr, i64};
  LLVMValueRef args[2] = {p, size};
  LLVMBuildCall2(b, LLVMFunctionType(vt, pt, 2, 0), f, args, 2, "");
  LLVMBuildBr(b, freed);
  LLVMPositionBuilderAtEnd(b, freed);
  ad_rev_call_libc(mc, b, "free", &node, 1);
  LLVMBuildBr(b, loop);
  LLVMAddIncoming(node, &first, &entry, 1);
  LLVMAddIncoming(node, &next, &freed, 1);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildStore(b, LLVMConstNull(ptr), slot);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

static int rev_deferred_free(ad_rev_fn *r, const ad_rev_call_row *row,
                             LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)row, (void)p;
  ad_module_ctx *mc = r->mc;
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMBuilderRef b = r->rb;
  if (!r->deferred) {
    LLVMPositionBuilderBefore(r->eb, r->entry_term);
    r->deferred = LLVMBuildAlloca(r->eb, ptr, "deferred.frees");
    LLVMBuildStore(r->eb, LLVMConstNull(ptr), r->deferred);
  }
  LLVMValueRef cargs[2] = {LLVMConstInt(i64, 1, 0),
                           LLVMConstInt(i64, NODE_BYTES, 0)};
  LLVMValueRef node = ad_rev_call_libc(mc, b, "calloc", cargs, 2);
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef oom = LLVMAppendBasicBlockInContext(c, fn, "deferred.oom");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "deferred.push");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, node, ""), oom, ok);
  LLVMPositionBuilderAtEnd(b, oom);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, ok);
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMBuildStore(b, LLVMBuildLoad2(b, ptr, r->deferred, ""),
                 at(mc, b, node, NODE_NEXT));
  LLVMBuildStore(b, LLVMGetCalledValue(call), at(mc, b, node, NODE_FN));
  LLVMBuildStore(b, ad_rev_primal(r, LLVMGetOperand(call, 0)),
                 at(mc, b, node, NODE_PTR));
  if (n == 2) {
    LLVMBuildStore(b,
                   LLVMBuildZExtOrBitCast(
                       b, ad_rev_primal(r, LLVMGetOperand(call, 1)), i64, ""),
                   at(mc, b, node, NODE_SIZE));
    LLVMBuildStore(b, LLVMConstInt(i64, 1, 0), at(mc, b, node, NODE_SIZED));
  }
  LLVMBuildStore(b, node, r->deferred);
  return 0;
}

static const ad_rev_call_row deferred_free_row = {
    .name = "tanjit.rev.deferred.free", .rev = rev_deferred_free};

int ad_rev_custom_defer_free(ad_rev_fn *r, LLVMValueRef call,
                             LLVMValueRef clone) {
  if (!r->defer_frees)
    r->defer_frees = calls_custom_with_pointers(r) ? 2 : 1;
  LLVMValueRef fn = ad_called_function(call);
  unsigned n = LLVMGetNumArgOperands(call);
  if (r->defer_frees != 2 || !fn || !LLVMIsACallInst(call) || n < 1 ||
      n > 2 || LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(call, 0))) !=
                   LLVMPointerTypeKind ||
      (n == 2 && LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(call, 1))) !=
                     LLVMIntegerTypeKind))
    return 1;
  /* the clone stays (what maps to it keeps a value) and frees nothing */
  LLVMSetOperand(clone, 0, LLVMConstNull(LLVMTypeOf(LLVMGetOperand(call, 0))));
  return ad_rev_plan_row(r, call, &deferred_free_row) ? 0 : -1;
}

int ad_rev_custom_finish_frees(ad_rev_fn *r) {
  if (!r->deferred)
    return 0;
  LLVMValueRef run = run_fn(r->mc);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(r->mc->llctx);
  if (!b)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->rev); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (!term || LLVMGetInstructionOpcode(term) != LLVMRet)
      continue;
    LLVMPositionBuilderBefore(b, term);
    LLVMBuildCall2(b, LLVMGlobalGetValueType(run), run, &r->deferred, 1, "");
  }
  LLVMDisposeBuilder(b);
  return 0;
}
