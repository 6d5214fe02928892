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
 * pointers held in such memory (a std::vector's buffer) is not copied.
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
