/*
 * A request whose function operand is a select of functions.
 *
 * clang from -O1 merges `c ? __enzyme_autodiff(f, x, dx) :
 * __enzyme_autodiff(g, x, dx)` (or the same if/else) into one request of
 * `select i1 c, ptr @f, ptr @g`.  Each request needs its function as a
 * constant, so such a call becomes a call of a dispatcher made here:
 *
 *   define internal T @tanjit.request.select(i1 %c, <the call's values>) {
 *     br i1 %c, label %then, label %else
 *   then: %a = call T @<request>(ptr @f, <operands>)  ; br label %join
 *   else: %b = call T @<request>(ptr @g, <operands>)  ; br label %join
 *   join: %r = phi T [ %a, %then ], [ %b, %else ]     ; ret T %r
 *   }
 *
 * Only the request's values travel as parameters: markers are written
 * again in the dispatcher as the call wrote them (a `metadata` operand, a
 * constant, or a load of a marker global, loaded again), because a marker
 * passed as a parameter would be a value.  The two requests inside are
 * then ordinary ones, and an arm that is itself a select is split in the
 * next pass.  Exactly one of the two derivatives runs, as in the source.
 */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "common/alloc.h"
#include "ad/ad.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/markers.h"
#include "ad/request.h"
#include "ad/request_select.h"

/* v, casts stripped, is a select whose arms are functions or selects. */
static LLVMValueRef function_select(LLVMValueRef v) {
  v = ad_strip_casts(v, AD_STRIP_INT_CASTS | AD_STRIP_INSTRUCTIONS);
  if (!LLVMIsASelectInst(v))
    return NULL;
  for (unsigned k = 1; k < 3; k++) {
    LLVMValueRef arm = LLVMGetOperand(v, k);
    if (!LLVMIsAFunction(arm) && !LLVMIsASelectInst(arm))
      return NULL;
  }
  return v;
}

/* Whether operand v of the request is written again in the dispatcher
 * rather than passed: metadata, constants, and marker loads. */
static int is_metadata(LLVMValueRef v) {
  return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMMetadataTypeKind;
}

static int rewritten_in_place(LLVMValueRef v) {
  if (is_metadata(v) || LLVMIsAConstant(v))
    return 1;
  const char *name;
  size_t len;
  return LLVMIsALoadInst(v) &&
         ad_marker_of(v, AD_MARKERS_DIFF | AD_MARKERS_BATCH, &name, &len) !=
             AD_MARK_NONE;
}

/* A select of functions no longer used, and the selects below it. */
static void erase_if_dead(LLVMValueRef sel) {
  if (!LLVMIsASelectInst(sel) || LLVMGetFirstUse(sel))
    return;
  LLVMValueRef a = LLVMGetOperand(sel, 1), b = LLVMGetOperand(sel, 2);
  LLVMInstructionEraseFromParent(sel);
  erase_if_dead(a);
  erase_if_dead(b);
}

/* The conditions of the selects below arm (an arm of the select being
 * split), in a fixed order, into conds (at most max). */
static unsigned nested_conditions(LLVMValueRef arm, LLVMValueRef *conds,
                                  unsigned n, unsigned max) {
  if (!LLVMIsASelectInst(arm) || n >= max)
    return n;
  conds[n++] = LLVMGetOperand(arm, 0);
  n = nested_conditions(LLVMGetOperand(arm, 1), conds, n, max);
  return nested_conditions(LLVMGetOperand(arm, 2), conds, n, max);
}

/* arm again in the dispatcher: a function as it is, a select rebuilt on
 * the conditions passed from params[*next] on, in nested_conditions'
 * order (the next pass splits it). */
static LLVMValueRef rebuild_arm(LLVMBuilderRef b, LLVMValueRef arm,
                                LLVMValueRef w, unsigned *next) {
  if (!LLVMIsASelectInst(arm))
    return arm;
  LLVMValueRef cond = LLVMGetParam(w, (*next)++);
  LLVMValueRef t = rebuild_arm(b, LLVMGetOperand(arm, 1), w, next);
  LLVMValueRef f = rebuild_arm(b, LLVMGetOperand(arm, 2), w, next);
  return LLVMBuildSelect(b, cond, t, f, "");
}

enum { MAX_NESTED = 64 };

/* Builds the dispatcher of `call` (function operand at fn_at, the select
 * sel) and calls it in call's place.  0, or -1 on out of memory. */
static int dispatch(ad_module_ctx *mc, LLVMValueRef call, unsigned fn_at,
                    LLVMValueRef sel) {
  LLVMContextRef c = mc->llctx;
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef callee = LLVMGetCalledValue(call);
  LLVMTypeRef ft = LLVMGetCalledFunctionType(call);
  LLVMTypeRef rt = LLVMGetReturnType(ft);
  LLVMValueRef conds[2][MAX_NESTED];
  unsigned nconds[2];
  for (unsigned arm = 0; arm < 2; arm++)
    nconds[arm] = nested_conditions(LLVMGetOperand(sel, 1 + arm), conds[arm],
                                    0, MAX_NESTED);
  LLVMTypeRef *pt = tj_malloc((n + 1 + 2 * MAX_NESTED) * sizeof *pt);
  LLVMValueRef *passed = tj_malloc((n + 1 + 2 * MAX_NESTED) * sizeof *passed);
  LLVMValueRef *ops = tj_malloc((n + 1) * sizeof *ops);
  if (!pt || !passed || !ops) {
    free(pt), free(passed), free(ops);
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  unsigned np = 0;
  pt[np] = LLVMInt1TypeInContext(c);
  passed[np++] = LLVMGetOperand(sel, 0);
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef v = LLVMGetOperand(call, k);
    if (k == fn_at || rewritten_in_place(v))
      continue;
    pt[np] = LLVMTypeOf(v);
    passed[np++] = v;
  }
  unsigned first_cond = np;
  for (unsigned arm = 0; arm < 2; arm++)
    for (unsigned i = 0; i < nconds[arm]; i++) {
      pt[np] = LLVMInt1TypeInContext(c);
      passed[np++] = conds[arm][i];
    }
  LLVMValueRef w = LLVMAddFunction(mc->mod, "tanjit.request.select",
                                   LLVMFunctionType(rt, pt, np, 0));
  LLVMSetLinkage(w, LLVMInternalLinkage);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, w, "entry");
  LLVMBasicBlockRef arms[2] = {LLVMAppendBasicBlockInContext(c, w, "then"),
                               LLVMAppendBasicBlockInContext(c, w, "else")};
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c, w, "join");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMBuildCondBr(b, LLVMGetParam(w, 0), arms[0], arms[1]);
  LLVMValueRef results[2];
  unsigned next_cond = first_cond;
  for (unsigned arm = 0; arm < 2; arm++) {
    LLVMPositionBuilderAtEnd(b, arms[arm]);
    unsigned p = 1;
    for (unsigned k = 0; k < n; k++) {
      LLVMValueRef v = LLVMGetOperand(call, k);
      if (k == fn_at)
        ops[k] = rebuild_arm(b, LLVMGetOperand(sel, 1 + arm), w, &next_cond);
      else if (LLVMIsALoadInst(v) && rewritten_in_place(v))
        ops[k] = LLVMBuildLoad2(b, LLVMTypeOf(v), LLVMGetOperand(v, 0), "");
      else if (rewritten_in_place(v))
        ops[k] = v;
      else
        ops[k] = LLVMGetParam(w, p++);
    }
    results[arm] = LLVMBuildCall2(b, ft, callee, ops, n, "");
    LLVMBuildBr(b, join);
  }
  LLVMPositionBuilderAtEnd(b, join);
  if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind) {
    LLVMBuildRetVoid(b);
  } else {
    LLVMValueRef phi = LLVMBuildPhi(b, rt, "");
    LLVMAddIncoming(phi, results, arms, 2);
    LLVMBuildRet(b, phi);
  }
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef replaced = LLVMBuildCall2(
      b, LLVMGlobalGetValueType(w), w, passed, np, "");
  LLVMInstructionSetDebugLoc(replaced, LLVMInstructionGetDebugLoc(call));
  if (LLVMGetTypeKind(rt) != LLVMVoidTypeKind)
    LLVMReplaceAllUsesWith(call, replaced);
  LLVMInstructionEraseFromParent(call);
  erase_if_dead(sel);
  LLVMDisposeBuilder(b);
  free(pt), free(passed), free(ops);
  return 0;
}

int ad_split_selected_requests(ad_module_ctx *mc, int *changed) {
  *changed = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mc->mod); f;
       f = LLVMGetNextFunction(f)) {
    if (!ad_is_request_function(f))
      continue;
    LLVMUseRef u = LLVMGetFirstUse(f);
    while (u) {
      LLVMValueRef call = LLVMGetUser(u);
      u = LLVMGetNextUse(u);
      if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != f)
        continue;
      /* the function operand: the first, or the second after an sret
       * (request.c's ad_request_head_read) */
      unsigned at = LLVMGetNumArgOperands(call) > 0 &&
                            LLVMGetCallSiteEnumAttribute(
                                call, 1,
                                LLVMGetEnumAttributeKindForName("sret", 4))
                        ? 1
                        : 0;
      LLVMValueRef sel = at < LLVMGetNumArgOperands(call)
                             ? function_select(LLVMGetOperand(call, at))
                             : NULL;
      if (!sel)
        continue;
      while (u && LLVMGetUser(u) == call)
        u = LLVMGetNextUse(u);
      if (dispatch(mc, call, at, sel) != 0)
        return -1;
      *changed = 1;
    }
  }
  return 0;
}
