/*
 * Indirect calls with active arguments: the target is known only at run
 * time, so the derivative compares it with every possible target and calls
 * that one's derivative; a target that cannot be differentiated traps after
 * the session's run-time report, and so does a pointer that is none of the
 * possible targets.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/ad.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/fwd/fwd.h"
#include "ad/ir/ir.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"
#include "common/strbuf.h"

/*
 * A candidate target whose derivative cannot be made (a function of the
 * same type that calls something without a rule, and that the program may
 * never pass here): forgets the derivatives begun since `mark` (its own
 * and its callees', some half built), which nothing else refers to yet,
 * and the error, so that only a call through that target traps.  The
 * error's text is returned (caller frees; NULL if none was kept).
 */
static char *forget_failed_candidate(ad_module_ctx *mc, size_t mark) {
  ad_forget_derivatives(mc, mark);
  mc->diag.failed = 0;
  mc->diag.failed_code = TANJIT_OK;
  char *why = NULL;
  if (mc->diag.err && *mc->diag.err) {
    const char *m = tanjit_error_message(*mc->diag.err);
    why = m ? tj_strdup(m) : NULL;
    tanjit_error_free(*mc->diag.err);
    *mc->diag.err = NULL;
  }
  return why;
}

/* Before the trap of a target that could not be differentiated: the
 * session's report (its unresolved-call handler) says which and why. */
static void report_at_run_time(ad_fn_ctx *fc, LLVMValueRef target,
                               const char *why) {
  strbuf what;
  sb_init(&what);
  sb_printf(&what, "%s (called through a pointer in %s)",
            ad_value_name(target), ad_value_name(fc->primal_fn));
  strbuf reason;
  sb_init(&reason);
  sb_printf(&reason, "no forward-mode derivative: %s", why ? why : "?");
  if (what.data && reason.data)
    ad_emit_runtime_report(fc->mc, fc->b, NULL, what.data, reason.data);
  sb_free(&what);
  sb_free(&reason);
}

/*
 * An indirect call with active arguments.  The target is known only at run
 * time, so the derivative dispatches on it: every function of this module
 * with the call's type whose address is taken is a candidate; the call
 * compares the pointer with each and calls that candidate's derivative.
 * A pointer matching none (a function from outside the module), or a
 * candidate that cannot be differentiated, traps; if no candidate can be,
 * the call is an error that gives the first one's reason.
 */
int ad_emit_indirect_call(ad_fn_ctx *fc, LLVMValueRef call) {
  ad_module_ctx *mc = fc->mc;
  /* cands[i] is compared with the pointer; callee[i] is differentiated
   * (a declared function's direct-call wrapper, whose call its rule
   * covers) */
  LLVMValueRef cands[64], callee[64];
  unsigned nc = 0;
  for (int declared = 0; declared < 2; declared++)
    for (LLVMValueRef f = LLVMGetFirstFunction(mc->mod); f;
         f = LLVMGetNextFunction(f)) {
      if (!(declared ? ad_may_be_declared_indirect_target(call, f)
                     : ad_may_be_indirect_target(call, f)))
        continue;
      if (nc == 64)
        return ad_fail(mc, call,
                       "indirect call with active arguments and more than 64 "
                       "possible targets in this module");
      /* a custom rule of a defined target answers a direct call of it */
      callee[nc] = declared || ad_custom_answers_function(mc->engine, f)
                       ? ad_direct_call_wrapper(mc->mod, f)
                       : f;
      if (!callee[nc])
        return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
      cands[nc++] = f;
    }
  /* generated derivatives are internal and never address-taken: skipped */
  if (!nc) {
    char *t = ad_value_text(call);
    int rc = ad_fail(mc, call,
                     "indirect call with active arguments, and no function "
                     "of this module can be its target: %s",
                     t ? t : "");
    free(t);
    return rc;
  }
  LLVMValueRef target = ad_primal(fc, LLVMGetCalledValue(call));
  LLVMBasicBlockRef merge =
      LLVMAppendBasicBlockInContext(mc->llctx, fc->deriv_fn, "indirect.join");
  LLVMBasicBlockRef trapbb =
      LLVMAppendBasicBlockInContext(mc->llctx, fc->deriv_fn, "indirect.unknown");
  LLVMValueRef prim[64], shad[64];
  LLVMBasicBlockRef from[64];
  unsigned nok = 0;
  char *first_why = NULL;
  int rc = 0;
  for (unsigned i = 0; i < nc && rc == 0; i++) {
    LLVMBasicBlockRef hit =
        LLVMAppendBasicBlockInContext(mc->llctx, fc->deriv_fn, "indirect.call");
    LLVMBasicBlockRef next =
        i + 1 < nc ? LLVMAppendBasicBlockInContext(mc->llctx, fc->deriv_fn,
                                                   "indirect.next")
                   : trapbb;
    LLVMValueRef eq = LLVMBuildICmp(fc->b, LLVMIntEQ, target, cands[i], "");
    LLVMBuildCondBr(fc->b, eq, hit, next);
    LLVMPositionBuilderAtEnd(fc->b, hit);
    size_t mark = mc->derivatives->n;
    rc = ad_derivative_call(fc, call, callee[i], 1, &prim[nok], &shad[nok]);
    if (rc && mc->diag.failed && mc->diag.failed_code == TANJIT_ERR_DIFFERENTIATE) {
      char *why = forget_failed_candidate(mc, mark);
      report_at_run_time(fc, cands[i], why);
      if (!first_why)
        first_why = why;
      else
        free(why);
      ad_call_intrinsic(fc, "llvm.trap", NULL, 0, NULL, 0);
      LLVMBuildUnreachable(fc->b);
      rc = 0;
    } else if (rc == 0) {
      from[nok++] = LLVMGetInsertBlock(fc->b);
      LLVMBuildBr(fc->b, merge);
    }
    LLVMPositionBuilderAtEnd(fc->b, next);
  }
  if (rc) {
    free(first_why);
    return rc;
  }
  if (!nok) {
    char *t = ad_value_text(call);
    rc = ad_fail(mc, call,
                 "indirect call with active arguments, and none of its "
                 "possible targets (functions of this module of its type "
                 "whose address is taken) can be differentiated: %s; the "
                 "first: %s",
                 t ? t : "", first_why ? first_why : "(no reason kept)");
    free(t);
    free(first_why);
    return rc;
  }
  free(first_why);
  LLVMPositionBuilderAtEnd(fc->b, trapbb);
  ad_emit_unknown_target_report(mc, fc->b, call, target, cands, nc,
                                "forward");
  ad_call_intrinsic(fc, "llvm.trap", NULL, 0, NULL, 0);
  LLVMBuildUnreachable(fc->b);
  LLVMPositionBuilderAtEnd(fc->b, merge);
  if (prim[0]) {
    LLVMValueRef phi = LLVMBuildPhi(fc->b, LLVMTypeOf(prim[0]), "");
    LLVMAddIncoming(phi, prim, from, nok);
    ad_map_put(&fc->vmap, call, phi);
  }
  if (shad[0]) {
    LLVMValueRef phi = LLVMBuildPhi(fc->b, LLVMTypeOf(shad[0]), "");
    LLVMAddIncoming(phi, shad, from, nok);
    ad_set_shadow(fc, call, phi);
  }
  return 0;
}
