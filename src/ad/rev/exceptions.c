/*
 * C++ exceptions (Itanium EH: invoke, landingpad, resume) in reverse mode.
 *
 * The normal path is differentiated like a call: in aug an invoke is the
 * call's work (ad_rev_aug_call: a rule, or the callee's augmented_ call),
 * each call of that work that may unwind made an invoke again, unwinding
 * to the aug's copy of the primal landing pad's block, then a branch to
 * the normal destination; its reverse is the call's (adjoint.c reverses a
 * block's invoke before the rest of the block).
 *
 * The unwind path runs the primal's cleanups in aug (destructors, deletes:
 * the memory rows free nothing of the shadows) and leaves by `resume`: an
 * exception ends the gradient, as it ends the primal, and no reverse runs
 * (the blocks that end in resume have none).  What aug had allocated for
 * the reverse (shadows, the tape's buffer) is not freed on that path.
 * Handlers that catch and go on (a landing pad from which a `ret` is
 * reached) would need the reverse of a partly run callee: refused, as are
 * landing pad blocks with PHIs and Windows EH funclets.
 */
#include <stdlib.h>
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

static int fail_at(ad_rev_fn *r, LLVMValueRef inst, const char *what) {
  return ad_fail_code(r->mc, TANJIT_ERR_UNSUPPORTED, inst, "reverse mode: %s",
                      what);
}

/* Whether a call the aug emitted may throw. */
static int may_unwind(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (LLVMIsAInlineAsm(callee))
    return 0;
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  if (LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, nounwind))
    return 0;
  if (LLVMIsAFunction(callee)) {
    if (LLVMGetIntrinsicID(callee) != 0)
      return 0;
    size_t n;
    const char *name = LLVMGetValueName2(callee, &n);
    /* reverse mode's own helpers and libc's allocator never throw */
    if (strncmp(name, "tanjit.", 7) == 0 || strcmp(name, "aligned_alloc") == 0 ||
        strcmp(name, "calloc") == 0 || strcmp(name, "free") == 0)
      return 0;
    if (LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex,
                                    nounwind))
      return 0;
  }
  return 1;
}

static void rename_in_map(ad_map *m, LLVMValueRef from, LLVMValueRef to) {
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i] && m->vals[i] == from)
      m->vals[i] = to;
}

/* Replaces aug call `call` by an invoke unwinding to `pad`; what followed
 * it in its block moves to a new block, returned (the invoke's normal
 * destination).  The successors' PHIs are not filled yet (aug.c fills
 * them once every block exists), so nothing else names the old block. */
static LLVMBasicBlockRef call_to_invoke(ad_rev_fn *r, LLVMValueRef call,
                                        LLVMBasicBlockRef pad) {
  ad_module_ctx *mc = r->mc;
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(call);
  LLVMBasicBlockRef cont =
      LLVMAppendBasicBlockInContext(mc->llctx, r->aug, "invoke.cont");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
  LLVMPositionBuilderAtEnd(b, cont);
  for (LLVMValueRef i = LLVMGetNextInstruction(call); i;) {
    LLVMValueRef next = LLVMGetNextInstruction(i);
    LLVMInstructionRemoveFromParent(i);
    LLVMInsertIntoBuilder(b, i);
    i = next;
  }
  (void)bb;
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef *args = tj_malloc((n ? n : 1) * sizeof *args);
  if (!args) {
    LLVMDisposeBuilder(b);
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    return NULL;
  }
  for (unsigned k = 0; k < n; k++)
    args[k] = LLVMGetOperand(call, k);
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef inv = LLVMBuildInvoke2(b, LLVMGetCalledFunctionType(call),
                                      LLVMGetCalledValue(call), args, n, cont,
                                      pad, "");
  free(args);
  ad_copy_call_site_attrs(call, inv);
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(call);
  if (loc)
    LLVMInstructionSetDebugLoc(inv, loc);
  LLVMReplaceAllUsesWith(call, inv);
  rename_in_map(&r->fc.vmap, call, inv);
  rename_in_map(&r->fc.shadow, call, inv);
  LLVMInstructionEraseFromParent(call);
  LLVMDisposeBuilder(b);
  return cont;
}

/* The blocks reached from the landing pads must end in resume or
 * unreachable: a handler that returns normally is refused. */
static int check_handlers(ad_rev_fn *r, LLVMValueRef inv) {
  LLVMBasicBlockRef start = LLVMGetUnwindDest(inv);
  LLVMBasicBlockRef stack[256];
  ad_map seen;
  ad_map_init(&seen);
  size_t sp = 0;
  int rc = 0;
  stack[sp++] = start;
  if (ad_map_put(&seen, start, (void *)1) != 0)
    rc = ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, inv, "out of memory");
  while (sp && rc == 0) {
    LLVMBasicBlockRef bb = stack[--sp];
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (!term)
      continue;
    if (LLVMGetInstructionOpcode(term) == LLVMRet) {
      rc = fail_at(r, inv,
                   "an exception handler that returns normally (a catch "
                   "reached from this invoke's landing pad) is not "
                   "supported; only cleanups that resume unwinding are");
      break;
    }
    unsigned ns = LLVMGetNumSuccessors(term);
    for (unsigned s = 0; s < ns && rc == 0; s++) {
      LLVMBasicBlockRef succ = LLVMGetSuccessor(term, s);
      if (ad_map_get(&seen, succ))
        continue;
      if (sp == sizeof stack / sizeof *stack) {
        rc = fail_at(r, inv, "an exception handler of more than 256 blocks");
        break;
      }
      if (ad_map_put(&seen, succ, (void *)1) != 0)
        rc = ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, inv, "out of memory");
      stack[sp++] = succ;
    }
  }
  ad_map_free(&seen);
  return rc;
}

int ad_rev_aug_invoke(ad_rev_fn *r, LLVMValueRef inv) {
  ad_fn_ctx *fc = &r->fc;
  LLVMBasicBlockRef unwind = LLVMGetUnwindDest(inv);
  LLVMValueRef first = LLVMGetFirstInstruction(unwind);
  if (!first || !LLVMIsALandingPadInst(first))
    return fail_at(r, inv,
                   LLVMIsAPHINode(first)
                       ? "a landing pad block with PHIs is not supported"
                       : "an invoke whose unwind destination is not a "
                         "landingpad block (Windows EH funclets) is not "
                         "supported");
  if (check_handlers(r, inv) != 0)
    return -1;
  if (LLVMHasPersonalityFn(r->sig->fn))
    LLVMSetPersonalityFn(r->aug, LLVMGetPersonalityFn(r->sig->fn));
  LLVMValueRef pad_v = ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(unwind));
  LLVMValueRef normal_v =
      ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(LLVMGetNormalDest(inv)));
  if (!pad_v || !normal_v)
    return fail_at(r, inv, "internal: an invoke's destinations were not cloned");
  LLVMBasicBlockRef pad = LLVMValueAsBasicBlock(pad_v);
  LLVMBasicBlockRef start = LLVMGetInsertBlock(fc->b);
  LLVMValueRef before = LLVMGetLastInstruction(start);
  LLVMBasicBlockRef last_old = LLVMGetLastBasicBlock(r->aug);
  if (ad_rev_aug_call(r, inv) != 0 || r->mc->diag.failed)
    return -1;
  LLVMBasicBlockRef end = LLVMGetInsertBlock(fc->b);
  /* the blocks the call's work emitted: the tail of `start`, then those
   * appended since (splitting appends more, which the walk reaches) */
  LLVMBasicBlockRef bb = start;
  LLVMValueRef i = before ? LLVMGetNextInstruction(before)
                          : LLVMGetFirstInstruction(start);
  while (bb) {
    for (; i; i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) || !may_unwind(i))
        continue;
      LLVMBasicBlockRef split = LLVMGetInstructionParent(i);
      LLVMBasicBlockRef cont = call_to_invoke(r, i, pad);
      if (!cont)
        return -1;
      if (split == end)
        end = cont;
      break; /* the rest of this block is in cont now */
    }
    bb = bb == start ? LLVMGetNextBasicBlock(last_old) : LLVMGetNextBasicBlock(bb);
    i = bb ? LLVMGetFirstInstruction(bb) : NULL;
  }
  LLVMPositionBuilderAtEnd(fc->b, end);
  LLVMBuildBr(fc->b, LLVMValueAsBasicBlock(normal_v));
  return 0;
}
