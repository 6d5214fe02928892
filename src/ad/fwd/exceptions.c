/*
 * C++ exceptions (Itanium EH: invoke, landingpad, resume) in a derivative.
 *
 * An invoke is differentiated like the call it is: its clone is a call
 * (tangent/clone.c), and the call's rule or the callee's derivative writes
 * its tangent after it.  Then every call that work emitted that may unwind
 * (the primal call, the callee's derivative, a shadow allocation) becomes
 * an invoke again, the code after it moved to a block of its own, so an
 * exception thrown anywhere in the tangent work takes the primal's unwind
 * edge; the last block branches to the normal destination.
 *
 * Landing pads: all the invokes made for one primal invoke unwind to one
 * fresh pad of that invoke (the primal landingpad's clauses, then a branch
 * into the primal pad's block), so the primal pad's block keeps one
 * predecessor per primal invoke, and its PHIs one incoming value per
 * primal edge (fill_phis in derivative.c finds the pad under the primal
 * invoke's key in the exit-block map).  The
 * landingpad itself becomes a PHI of the pads' landingpads.  What a pad
 * delivers (the exception object, the selector) is inactive; the shadows
 * live before the invoke reach the handler along the unwind edge, and the
 * handler's own code is differentiated like any other (a cleanup that
 * deletes primal memory deletes its shadow too, through the memory rules).
 * resume re-raises the PHI's value.
 */
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/fwd/fwd.h"
#include "ad/ir/ir.h"
#include "ad/tangent/tangent.h"

/* The maps name emitted values (a shadow allocation is a shadow, a clone
 * a primal): the call's entries become the invoke's.  A scan of the two
 * tables per converted call (or rebuilt PHI); values are replaced in
 * place, so nothing rehashes. */
static void rename_in_map(ad_map *m, LLVMValueRef from, LLVMValueRef to) {
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i] && m->vals[i] == from)
      m->vals[i] = to;
}

static void renamed_in_maps(void *ctx, LLVMValueRef from, LLVMValueRef to) {
  ad_fn_ctx *fc = ctx;
  rename_in_map(&fc->vmap, from, to);
  rename_in_map(&fc->shadow, from, to);
}

/* A fresh pad for primal invoke `inv`: its landingpad (the clauses of the
 * primal's) and a branch into the primal pad's block. */
static LLVMBasicBlockRef make_pad(ad_fn_ctx *fc, LLVMValueRef inv) {
  LLVMBasicBlockRef unwind = LLVMGetUnwindDest(inv);
  LLVMValueRef lp = ad_ir_landing_pad_of(unwind);
  LLVMValueRef target = ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(unwind));
  if (!lp || !target) {
    ad_fail(fc->mc, inv,
            "an invoke whose unwind destination is not a landingpad block "
            "(Windows EH funclets: catchswitch, cleanuppad) is not "
            "differentiated");
    return NULL;
  }
  LLVMBasicBlockRef pad =
      ad_ir_pad_in_front(fc->deriv_fn, lp, LLVMValueAsBasicBlock(target));
  if (ad_map_put(&fc->exit_block, inv, LLVMBasicBlockAsValue(pad)) != 0) {
    ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, inv, "out of memory");
    return NULL;
  }
  return pad;
}

typedef struct invoke_walk {
  ad_fn_ctx *fc;
  LLVMValueRef inv;
} invoke_walk;

static LLVMBasicBlockRef walk_pad(void *ctx) {
  invoke_walk *w = ctx;
  return make_pad(w->fc, w->inv);
}

static void walk_renamed(void *ctx, LLVMValueRef from, LLVMValueRef to) {
  renamed_in_maps(((invoke_walk *)ctx)->fc, from, to);
}

int ad_emit_invoke(ad_fn_ctx *fc, LLVMValueRef inv) {
  LLVMBasicBlockRef start = LLVMGetInsertBlock(fc->b);
  LLVMValueRef before = LLVMGetLastInstruction(start);
  LLVMBasicBlockRef last_old = LLVMGetLastBasicBlock(fc->deriv_fn);
  if (ad_emit_call(fc, inv) != 0 || fc->mc->diag.failed)
    return -1;
  LLVMBasicBlockRef end = LLVMGetInsertBlock(fc->b);
  invoke_walk w = {fc, inv};
  int rc = ad_ir_rethread_unwind(start, before, last_old, &end, walk_pad,
                                 walk_renamed, &w);
  if (rc == -2)
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, inv, "out of memory");
  if (rc != 0)
    return -1;
  LLVMPositionBuilderAtEnd(fc->b, end);
  LLVMValueRef normal =
      ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(LLVMGetNormalDest(inv)));
  LLVMBuildBr(fc->b, LLVMValueAsBasicBlock(normal));
  return 0;
}

int ad_emit_landing_pad(ad_fn_ctx *fc, LLVMValueRef lp) {
  LLVMValueRef phi = LLVMBuildPhi(fc->b, LLVMTypeOf(lp), "");
  ad_name_after(phi, lp, "");
  if (ad_map_put(&fc->vmap, lp, phi) != 0)
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, lp, "out of memory");
  return 0;
}

void ad_fill_landing_pad(ad_fn_ctx *fc, LLVMValueRef lp) {
  LLVMValueRef phi = ad_map_get(&fc->vmap, lp);
  LLVMBasicBlockRef block = LLVMGetInstructionParent(lp);
  /* the primal pad's predecessors: the invokes that unwind to it */
  for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(block)); u;
       u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAInvokeInst(user) || LLVMGetUnwindDest(user) != block)
      continue;
    LLVMValueRef pad = ad_map_get(&fc->exit_block, user);
    if (!pad)
      continue; /* not cloned, or nothing there could unwind */
    LLVMBasicBlockRef pb = LLVMValueAsBasicBlock(pad);
    LLVMValueRef v = LLVMGetFirstInstruction(pb);
    /* an invoke listing the pad as both successors is one edge */
    int dup = 0;
    unsigned n = LLVMCountIncoming(phi);
    for (unsigned k = 0; k < n && !dup; k++)
      dup = LLVMGetIncomingBlock(phi, k) == pb;
    if (!dup)
      LLVMAddIncoming(phi, &v, &pb, 1);
  }
}

int ad_rewrite_through_invoke(ad_module_ctx *mc, LLVMValueRef inv,
                              int (*rewrite)(ad_module_ctx *, LLVMValueRef)) {
  LLVMBasicBlockRef block = LLVMGetInstructionParent(inv);
  LLVMBasicBlockRef normal = LLVMGetNormalDest(inv);
  LLVMBasicBlockRef unwind = LLVMGetUnwindDest(inv);
  unsigned n = LLVMGetNumArgOperands(inv);
  LLVMValueRef *args = tj_malloc((n ? n : 1) * sizeof *args);
  if (!args)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, inv, "out of memory");
  for (unsigned k = 0; k < n; k++)
    args[k] = LLVMGetOperand(inv, k);
  /* the request as a call, then the edge to the normal destination */
  LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
  LLVMPositionBuilderBefore(b, inv);
  LLVMValueRef prev = LLVMGetPreviousInstruction(inv);
  LLVMValueRef call = LLVMBuildCall2(b, LLVMGetCalledFunctionType(inv),
                                     LLVMGetCalledValue(inv), args, n, "");
  free(args);
  ad_copy_call_site_attrs(inv, call);
  LLVMBuildBr(b, normal);
  LLVMDisposeBuilder(b);
  LLVMReplaceAllUsesWith(inv, call);
  LLVMInstructionEraseFromParent(inv);
  if (rewrite(mc, call) != 0)
    return -1;
  /* what the rewrite left in the block may throw: back onto the edge */
  LLVMValueRef i = prev ? LLVMGetNextInstruction(prev)
                        : LLVMGetFirstInstruction(block);
  LLVMBasicBlockRef at = block;
  while (i) {
    if (!LLVMIsACallInst(i) || !ad_ir_may_unwind(i)) {
      i = LLVMGetNextInstruction(i);
      continue;
    }
    LLVMBasicBlockRef cont = ad_ir_call_to_invoke(i, unwind, NULL, NULL);
    if (!cont)
      return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, i, "out of memory");
    if (at != block) {
      /* a second invoke on the edge: the pad's PHIs take from it what
       * they take from the request's block (defined before the request) */
      for (LLVMValueRef phi = LLVMGetFirstInstruction(unwind);
           phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi)) {
        unsigned np = LLVMCountIncoming(phi);
        for (unsigned k = 0; k < np; k++)
          if (LLVMGetIncomingBlock(phi, k) == block) {
            LLVMValueRef v = LLVMGetIncomingValue(phi, k);
            LLVMAddIncoming(phi, &v, &at, 1);
            break;
          }
      }
    }
    at = cont;
    i = LLVMGetFirstInstruction(cont);
  }
  return 0;
}
