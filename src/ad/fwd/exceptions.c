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
#include "ad/tangent/tangent.h"

/* Whether a call the tangent work emitted may throw. */
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
    if (LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex,
                                    nounwind))
      return 0;
  }
  return 1;
}

/* The maps name emitted values (a shadow allocation is a shadow, a clone
 * a primal): the call's entries become the invoke's.  A scan of the two
 * tables per converted call (or rebuilt PHI); values are replaced in
 * place, so nothing rehashes. */
static void rename_in_map(ad_map *m, LLVMValueRef from, LLVMValueRef to) {
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i] && m->vals[i] == from)
      m->vals[i] = to;
}

/* Gives `to` the name of `from`, which is about to be erased (its name
 * goes with it, so it is copied first; LLVM uniquifies a clash). */
static void take_name(LLVMValueRef to, LLVMValueRef from) {
  size_t len;
  const char *name = LLVMGetValueName2(from, &len);
  if (!len || LLVMGetTypeKind(LLVMTypeOf(to)) == LLVMVoidTypeKind)
    return;
  char *copy = tj_malloc(len);
  if (!copy)
    return; /* a name is only a name */
  memcpy(copy, name, len);
  LLVMSetValueName2(from, "", 0);
  LLVMSetValueName2(to, copy, len);
  free(copy);
}

/* The successors' PHIs named `from` as a predecessor; the terminator that
 * branches to them now ends `to`: rebuilt with `to` (LLVM-C cannot retarget
 * an incoming block). */
static void retarget_successor_phis(ad_fn_ctx *fc /* NULL: no maps */,
                                    LLVMBuilderRef b,
                                    LLVMBasicBlockRef from,
                                    LLVMBasicBlockRef to) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(to);
  unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;
  for (unsigned s = 0; s < ns; s++) {
    LLVMBasicBlockRef succ = LLVMGetSuccessor(term, s);
    /* a successor listed twice (a switch) is rebuilt once */
    int seen = 0;
    for (unsigned e = 0; e < s && !seen; e++)
      seen = LLVMGetSuccessor(term, e) == succ;
    if (seen)
      continue;
    LLVMValueRef phi = LLVMGetFirstInstruction(succ);
    while (phi && LLVMIsAPHINode(phi)) {
      LLVMValueRef next = LLVMGetNextInstruction(phi);
      unsigned n = LLVMCountIncoming(phi);
      LLVMPositionBuilderBefore(b, phi);
      LLVMValueRef np = LLVMBuildPhi(b, LLVMTypeOf(phi), "");
      for (unsigned k = 0; k < n; k++) {
        LLVMValueRef v = LLVMGetIncomingValue(phi, k);
        LLVMBasicBlockRef bb = LLVMGetIncomingBlock(phi, k);
        if (bb == from)
          bb = to;
        LLVMAddIncoming(np, &v, &bb, 1);
      }
      take_name(np, phi);
      LLVMReplaceAllUsesWith(phi, np);
      if (fc) {
        rename_in_map(&fc->vmap, phi, np);
        rename_in_map(&fc->shadow, phi, np);
      }
      LLVMInstructionEraseFromParent(phi);
      phi = next;
    }
  }
}

/* Replaces `call` by an invoke unwinding to `pad`; what followed the call
 * in its block moves to a new block, the invoke's normal destination,
 * which is returned.  fc: the derivative being built, whose maps name the
 * call (NULL: a request's own call, mc's module). */
static LLVMBasicBlockRef call_to_invoke(ad_module_ctx *mc, ad_fn_ctx *fc,
                                        LLVMValueRef call,
                                        LLVMBasicBlockRef pad) {
  LLVMContextRef ctx = mc->llctx;
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(call);
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(
      ctx, LLVMGetBasicBlockParent(bb), "invoke.cont");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, cont);
  int had_terminator = LLVMGetBasicBlockTerminator(bb) != NULL;
  for (LLVMValueRef i = LLVMGetNextInstruction(call); i;) {
    LLVMValueRef next = LLVMGetNextInstruction(i);
    LLVMInstructionRemoveFromParent(i);
    LLVMInsertIntoBuilder(b, i);
    i = next;
  }
  if (had_terminator)
    retarget_successor_phis(fc, b, bb, cont);
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef *args = tj_malloc((n ? n : 1) * sizeof *args);
  LLVMValueRef inv = NULL;
  if (args) {
    for (unsigned k = 0; k < n; k++)
      args[k] = LLVMGetOperand(call, k);
    LLVMPositionBuilderBefore(b, call);
    inv = LLVMBuildInvoke2(b, LLVMGetCalledFunctionType(call),
                           LLVMGetCalledValue(call), args, n, cont, pad, "");
    ad_copy_call_site_attrs(call, inv);
    take_name(inv, call);
    LLVMReplaceAllUsesWith(call, inv);
    if (fc) {
      rename_in_map(&fc->vmap, call, inv);
      rename_in_map(&fc->shadow, call, inv);
    }
    LLVMInstructionEraseFromParent(call);
    free(args);
  }
  LLVMDisposeBuilder(b);
  if (!inv) {
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    return NULL;
  }
  return cont;
}

/* The primal's landingpad in `block`, or NULL. */
static LLVMValueRef landing_pad_of(LLVMBasicBlockRef block) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(block); i;
       i = LLVMGetNextInstruction(i))
    if (!LLVMIsAPHINode(i))
      return LLVMIsALandingPadInst(i) ? i : NULL;
  return NULL;
}

/* A fresh pad for primal invoke `inv`: its landingpad (the clauses of the
 * primal's) and a branch into the primal pad's block. */
static LLVMBasicBlockRef make_pad(ad_fn_ctx *fc, LLVMValueRef inv) {
  LLVMBasicBlockRef unwind = LLVMGetUnwindDest(inv);
  LLVMValueRef lp = landing_pad_of(unwind);
  LLVMValueRef target = ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(unwind));
  if (!lp || !target) {
    ad_fail(fc->mc, inv,
            "an invoke whose unwind destination is not a landingpad block "
            "(Windows EH funclets: catchswitch, cleanuppad) is not "
            "differentiated");
    return NULL;
  }
  LLVMContextRef ctx = fc->mc->llctx;
  LLVMBasicBlockRef pad =
      LLVMAppendBasicBlockInContext(ctx, fc->deriv_fn, "unwind.pad");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, pad);
  unsigned nc = LLVMGetNumClauses(lp);
  LLVMValueRef c = LLVMBuildLandingPad(b, LLVMTypeOf(lp), NULL, nc, "");
  for (unsigned k = 0; k < nc; k++)
    LLVMAddClause(c, LLVMGetClause(lp, k));
  LLVMSetCleanup(c, LLVMIsCleanup(lp));
  LLVMBuildBr(b, LLVMValueAsBasicBlock(target));
  LLVMDisposeBuilder(b);
  if (ad_map_put(&fc->exit_block, inv, LLVMBasicBlockAsValue(pad)) != 0) {
    ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, inv, "out of memory");
    return NULL;
  }
  return pad;
}

int ad_emit_invoke(ad_fn_ctx *fc, LLVMValueRef inv) {
  LLVMBasicBlockRef start = LLVMGetInsertBlock(fc->b);
  LLVMValueRef before = LLVMGetLastInstruction(start);
  LLVMBasicBlockRef last_old = LLVMGetLastBasicBlock(fc->deriv_fn);
  if (ad_emit_call(fc, inv) != 0 || fc->mc->diag.failed)
    return -1;
  LLVMBasicBlockRef end = LLVMGetInsertBlock(fc->b);
  LLVMBasicBlockRef pad = NULL;
  /* the blocks the call's work emitted: the tail of `start`, then those
   * appended since (splitting appends more, which the walk reaches) */
  LLVMBasicBlockRef bb = start;
  LLVMValueRef i = before ? LLVMGetNextInstruction(before)
                          : LLVMGetFirstInstruction(start);
  while (bb) {
    for (; i; i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) || !may_unwind(i))
        continue;
      if (!pad && !(pad = make_pad(fc, inv)))
        return -1;
      LLVMBasicBlockRef split = LLVMGetInstructionParent(i);
      LLVMBasicBlockRef cont = call_to_invoke(fc->mc, fc, i, pad);
      if (!cont)
        return -1;
      if (split == end)
        end = cont;
      break; /* the rest of this block is in cont now */
    }
    bb = bb == start ? LLVMGetNextBasicBlock(last_old) : LLVMGetNextBasicBlock(bb);
    /* the pad and the blocks before the call's work are not its code */
    while (bb && bb == pad)
      bb = LLVMGetNextBasicBlock(bb);
    i = bb ? LLVMGetFirstInstruction(bb) : NULL;
  }
  LLVMPositionBuilderAtEnd(fc->b, end);
  LLVMValueRef normal =
      ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(LLVMGetNormalDest(inv)));
  LLVMBuildBr(fc->b, LLVMValueAsBasicBlock(normal));
  return 0;
}

int ad_emit_landing_pad(ad_fn_ctx *fc, LLVMValueRef lp) {
  LLVMValueRef phi = LLVMBuildPhi(fc->b, LLVMTypeOf(lp), "");
  size_t len;
  const char *name = LLVMGetValueName2(lp, &len);
  if (len)
    LLVMSetValueName2(phi, name, len);
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
    if (!LLVMIsACallInst(i) || !may_unwind(i)) {
      i = LLVMGetNextInstruction(i);
      continue;
    }
    LLVMBasicBlockRef cont = call_to_invoke(mc, NULL, i, unwind);
    if (!cont)
      return -1;
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
