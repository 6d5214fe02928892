/*
 * Putting emitted calls back onto an unwind edge (Itanium EH), shared by
 * forward mode (fwd/exceptions.c) and reverse mode's augmented pass
 * (rev/exceptions.c).
 *
 * Both differentiate an `invoke` as the call it is: the call's work (a
 * rule, the callee's derivative, shadow allocations) is emitted as plain
 * calls after the builder's position, and then every call of that work
 * that may throw becomes an invoke to a landing pad, the code after it
 * moved to a block of its own (`invoke.cont`).  The walk covers the tail
 * of the block the work began in and every block appended to the function
 * since (splitting appends more, which the walk reaches).
 *
 * LLVM-C only: the callers' value maps and diagnostics are reached through
 * the `renamed` callback and the pad maker.
 */
#include <stdlib.h>
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "ad/ir/ir.h"
#include "common/alloc.h"

void ad_copy_call_site_attrs(LLVMValueRef from, LLVMValueRef to) {
  unsigned n = LLVMGetNumArgOperands(from);
  for (long long idx = -1; idx <= (long long)n; idx++) {
    LLVMAttributeIndex at = (LLVMAttributeIndex)(
        idx < 0 ? (long long)LLVMAttributeFunctionIndex : idx);
    unsigned count = LLVMGetCallSiteAttributeCount(from, at);
    LLVMAttributeRef attrs[64];
    if (count == 0 || count > sizeof attrs / sizeof *attrs)
      continue;
    LLVMGetCallSiteAttributes(from, at, attrs);
    for (unsigned k = 0; k < count; k++)
      LLVMAddCallSiteAttribute(to, at, attrs[k]);
  }
  LLVMSetInstructionCallConv(to, LLVMGetInstructionCallConv(from));
  if (LLVMInstructionGetDebugLoc(from))
    LLVMInstructionSetDebugLoc(to, LLVMInstructionGetDebugLoc(from));
}

int ad_ir_may_unwind(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (LLVMIsAInlineAsm(callee))
    return 0;
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  if (LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, nounwind))
    return 0;
  if (!LLVMIsAFunction(callee))
    return 1;
  if (LLVMGetIntrinsicID(callee) != 0)
    return 0;
  size_t n;
  const char *name = LLVMGetValueName2(callee, &n);
  /* the engines' own helpers and libc's allocator never throw; reverse
   * mode's guard of an augmented pass (and split mode's augmented wrapper)
   * passes on what the pass throws */
  if (strncmp(name, "tanjit.rev.guard.", 17) == 0 ||
      strncmp(name, "tanjit.split.augmented.", 23) == 0)
    return 1;
  if (strncmp(name, "tanjit.", 7) == 0 || strcmp(name, "aligned_alloc") == 0 ||
      strcmp(name, "malloc") == 0 || strcmp(name, "calloc") == 0 ||
      strcmp(name, "realloc") == 0 || strcmp(name, "free") == 0)
    return 0;
  return !LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex,
                                      nounwind);
}

int ad_ir_is_landing_block(LLVMBasicBlockRef bb) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i))
    if (!LLVMIsAPHINode(i))
      return LLVMIsALandingPadInst(i) != NULL;
  return 0;
}

LLVMValueRef ad_ir_landing_pad_of(LLVMBasicBlockRef bb) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i))
    if (!LLVMIsAPHINode(i))
      return LLVMIsALandingPadInst(i) ? i : NULL;
  return NULL;
}

LLVMBasicBlockRef ad_ir_pad_in_front(LLVMValueRef fn, LLVMValueRef lp,
                                     LLVMBasicBlockRef target) {
  LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  LLVMBasicBlockRef pad = LLVMAppendBasicBlockInContext(ctx, fn, "unwind.pad");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, pad);
  unsigned nc = LLVMGetNumClauses(lp);
  LLVMValueRef copy = LLVMBuildLandingPad(b, LLVMTypeOf(lp), NULL, nc, "");
  for (unsigned k = 0; k < nc; k++)
    LLVMAddClause(copy, LLVMGetClause(lp, k));
  LLVMSetCleanup(copy, LLVMIsCleanup(lp));
  LLVMBuildBr(b, target);
  LLVMDisposeBuilder(b);
  return pad;
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
static void retarget_successor_phis(LLVMBuilderRef b, LLVMBasicBlockRef from,
                                    LLVMBasicBlockRef to,
                                    ad_ir_renamed_fn renamed, void *ctx) {
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
      if (renamed)
        renamed(ctx, phi, np);
      LLVMInstructionEraseFromParent(phi);
      phi = next;
    }
  }
}

LLVMBasicBlockRef ad_ir_call_to_invoke(LLVMValueRef call, LLVMBasicBlockRef pad,
                                       ad_ir_renamed_fn renamed, void *ctx) {
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(call);
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(call));
  unsigned n = LLVMGetNumArgOperands(call);
  /* the call's operand bundles go with it (a frontend's deopt or funclet
   * state is part of the call) */
  unsigned nb = LLVMGetNumOperandBundles(call);
  LLVMValueRef *args = tj_malloc((n ? n : 1) * sizeof *args);
  LLVMOperandBundleRef *bundles = tj_malloc((nb ? nb : 1) * sizeof *bundles);
  if (!args || !bundles) {
    free(args);
    free(bundles);
    return NULL;
  }
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(
      c, LLVMGetBasicBlockParent(bb), "invoke.cont");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, cont);
  int had_terminator = LLVMGetBasicBlockTerminator(bb) != NULL;
  for (LLVMValueRef i = LLVMGetNextInstruction(call); i;) {
    LLVMValueRef next = LLVMGetNextInstruction(i);
    LLVMInstructionRemoveFromParent(i);
    LLVMInsertIntoBuilder(b, i);
    i = next;
  }
  if (had_terminator)
    retarget_successor_phis(b, bb, cont, renamed, ctx);
  for (unsigned k = 0; k < n; k++)
    args[k] = LLVMGetOperand(call, k);
  for (unsigned k = 0; k < nb; k++)
    bundles[k] = LLVMGetOperandBundleAtIndex(call, k);
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef inv = LLVMBuildInvokeWithOperandBundles(
      b, LLVMGetCalledFunctionType(call), LLVMGetCalledValue(call), args, n,
      cont, pad, bundles, nb, "");
  for (unsigned k = 0; k < nb; k++)
    LLVMDisposeOperandBundle(bundles[k]);
  free(bundles);
  free(args);
  ad_copy_call_site_attrs(call, inv);
  take_name(inv, call);
  LLVMReplaceAllUsesWith(call, inv);
  if (renamed)
    renamed(ctx, call, inv);
  LLVMInstructionEraseFromParent(call);
  LLVMDisposeBuilder(b);
  return cont;
}

int ad_ir_rethread_unwind(LLVMBasicBlockRef start, LLVMValueRef before,
                          LLVMBasicBlockRef last_old, LLVMBasicBlockRef *end,
                          ad_ir_pad_fn get_pad, ad_ir_renamed_fn renamed,
                          void *ctx) {
  LLVMBasicBlockRef pad = NULL;
  LLVMBasicBlockRef bb = start;
  LLVMValueRef i = before ? LLVMGetNextInstruction(before)
                          : LLVMGetFirstInstruction(start);
  while (bb) {
    for (; i; i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) || !ad_ir_may_unwind(i))
        continue;
      if (!pad && !(pad = get_pad(ctx)))
        return -1;
      LLVMBasicBlockRef split = LLVMGetInstructionParent(i);
      LLVMBasicBlockRef cont = ad_ir_call_to_invoke(i, pad, renamed, ctx);
      if (!cont)
        return -2;
      if (split == *end)
        *end = cont;
      break; /* the rest of this block is in cont now */
    }
    bb = bb == start ? LLVMGetNextBasicBlock(last_old) : LLVMGetNextBasicBlock(bb);
    /* a pad made on the way is not the work's code */
    while (bb && bb == pad)
      bb = LLVMGetNextBasicBlock(bb);
    i = bb ? LLVMGetFirstInstruction(bb) : NULL;
  }
  return 0;
}
