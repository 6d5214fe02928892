/*
 * What derivative code reports at run time before it traps (a call
 * through a pointer it cannot follow): the session's report, named by
 * symbol (ad.h), with the text as constants of the module itself, so that
 * a cached object of the code reports the same in another process.
 */
#include <stdlib.h>
#include <string.h>

#include "ad/ad.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/tangent/tangent.h"
#include "common/strbuf.h"

/* A constant C string of the module's own (private: an object of the
 * module carries it, unlike a string of this process's heap). */
static LLVMValueRef module_string(ad_module_ctx *mc, const char *text) {
  LLVMValueRef init =
      LLVMConstStringInContext(mc->llctx, text, (unsigned)strlen(text), 0);
  LLVMValueRef g = LLVMAddGlobal(mc->mod, LLVMTypeOf(init), "tanjit.report_text");
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  return g;
}

int ad_emit_runtime_report(ad_module_ctx *mc, LLVMBuilderRef b,
                           LLVMValueRef target, const char *what,
                           const char *why) {
  void *user;
  if (!ad_engine_runtime_report(mc->engine, &user))
    return 0;
  if (!what || !why)
    return -1;
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef params[4] = {ptr, ptr, ptr, ptr};
  unsigned np = target ? 4 : 3;
  const char *name =
      target ? AD_RUNTIME_TARGET_REPORT_SYMBOL : AD_RUNTIME_REPORT_SYMBOL;
  LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(c), params, np, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(mc->mod, name);
  if (!fn)
    fn = LLVMAddFunction(mc->mod, name, ft);
  LLVMValueRef data = LLVMGetNamedGlobal(mc->mod, AD_RUNTIME_REPORT_DATA_SYMBOL);
  if (!data)
    data = LLVMAddGlobal(mc->mod, LLVMInt8TypeInContext(c),
                         AD_RUNTIME_REPORT_DATA_SYMBOL);
  LLVMValueRef args[4] = {data, NULL, NULL, NULL};
  unsigned k = 1;
  if (target)
    args[k++] = LLVMBuildPointerCast(b, target, ptr, "");
  args[k++] = module_string(mc, what);
  args[k++] = module_string(mc, why);
  LLVMBuildCall2(b, ft, fn, args, np, "");
  return 0;
}

void ad_emit_unknown_target_report(ad_module_ctx *mc, LLVMBuilderRef b,
                                   LLVMValueRef call, LLVMValueRef target,
                                   const LLVMValueRef *cands, unsigned nc,
                                   const char *mode) {
  void *user;
  if (!ad_engine_runtime_report(mc->engine, &user))
    return;
  char *where = ad_location_text(call);
  strbuf what, why;
  sb_init(&what);
  sb_init(&why);
  sb_printf(&what, " (called through a pointer%s)", where ? where : "");
  sb_printf(&why, "no %s-mode derivative: it is none of the call's "
                  "possible targets (the functions of this module of its "
                  "type whose address is taken:", mode);
  for (unsigned i = 0; i < nc; i++)
    sb_printf(&why, "%s %s", i ? "," : "", ad_value_name(cands[i]));
  sb_append(&why, ")");
  /* out of memory costs the report only: the trap follows anyway */
  if (!what.failed && !why.failed)
    ad_emit_runtime_report(mc, b, target, what.data, why.data);
  free(where);
  sb_free(&what);
  sb_free(&why);
}

/*
 * A pointer loaded from a mutable global whose shadow is null while the
 * pointer is not: the program set the global outside the request (main
 * pointed it at a buffer), so nothing the derivative ran gave it a shadow,
 * and the derivative's first access through it would fault.  The check is
 * one call of an internal function (the derivative's blocks stay as the
 * body walk made them); it reports `what` and `why`, then traps.
 */
static const char global_shadow_check_name[] = "tanjit.check_global_shadow";

static LLVMValueRef global_shadow_check(ad_module_ctx *mc, LLVMTypeRef *ft) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef params[4] = {ptr, ptr, ptr, ptr};
  *ft = LLVMFunctionType(LLVMVoidTypeInContext(c), params, 4, 0);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, global_shadow_check_name, *ft, &fn);
  if (!b)
    return fn;
  LLVMAddAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(c, "enzyme_inactive", 15, "", 0));
  LLVMValueRef shadow = LLVMGetParam(fn, 0), primal = LLVMGetParam(fn, 1);
  LLVMValueRef null = LLVMConstNull(ptr);
  LLVMValueRef bad =
      LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, shadow, null, ""),
                   LLVMBuildICmp(b, LLVMIntNE, primal, null, ""), "");
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(c, fn, "no_shadow");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "ok");
  LLVMBuildCondBr(b, bad, fail, ok);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMBuildRetVoid(b);
  LLVMPositionBuilderAtEnd(b, fail);
  void *user;
  if (ad_engine_runtime_report(mc->engine, &user)) {
    LLVMTypeRef rparams[3] = {ptr, ptr, ptr};
    LLVMTypeRef rft = LLVMFunctionType(LLVMVoidTypeInContext(c), rparams, 3, 0);
    LLVMValueRef rfn = LLVMGetNamedFunction(mc->mod, AD_RUNTIME_REPORT_SYMBOL);
    if (!rfn)
      rfn = LLVMAddFunction(mc->mod, AD_RUNTIME_REPORT_SYMBOL, rft);
    LLVMValueRef data =
        LLVMGetNamedGlobal(mc->mod, AD_RUNTIME_REPORT_DATA_SYMBOL);
    if (!data)
      data = LLVMAddGlobal(mc->mod, LLVMInt8TypeInContext(c),
                           AD_RUNTIME_REPORT_DATA_SYMBOL);
    LLVMValueRef args[3] = {data, LLVMGetParam(fn, 2), LLVMGetParam(fn, 3)};
    LLVMBuildCall2(b, rft, rfn, args, 3, "");
  }
  ad_build_trap(mc->mod, b);
  LLVMDisposeBuilder(b);
  return fn;
}

void ad_emit_global_shadow_check(ad_fn_ctx *fc, LLVMValueRef load,
                                 LLVMValueRef clone, LLVMValueRef shadow) {
  if (!shadow || LLVMGetTypeKind(LLVMTypeOf(load)) != LLVMPointerTypeKind)
    return;
  LLVMValueRef g = ad_strip_casts(LLVMGetOperand(load, 0), 0);
  if (!LLVMIsAGlobalVariable(g) || LLVMIsGlobalConstant(g))
    return;
  char *where = ad_location_text(load);
  strbuf what, why;
  sb_init(&what);
  sb_init(&why);
  sb_printf(&what, "a pointer loaded from the mutable global %s%s",
            ad_value_name(g), where ? where : "");
  sb_printf(&why,
            "its shadow is null: the program set %s outside the "
            "differentiated code, so the derivative has no shadow memory "
            "for what it points to (pass that memory as an argument with "
            "its shadow, or set %s inside the differentiated function)",
            ad_value_name(g), ad_value_name(g));
  free(where);
  if (!what.failed && !why.failed) {
    ad_strip_session_suffixes(what.data);
    ad_strip_session_suffixes(why.data);
  }
  if (what.failed || why.failed) {
    sb_free(&what);
    sb_free(&why);
    return;
  }
  LLVMTypeRef ft;
  LLVMValueRef fn = global_shadow_check(fc->mc, &ft);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(fc->mc->llctx, 0);
  /* every lane's shadow (enzyme_width N: N of them, all null here) */
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef args[4] = {
        LLVMBuildPointerCast(fc->b, ad_lane(fc, shadow, lane), ptr, ""),
        LLVMBuildPointerCast(fc->b, clone, ptr, ""),
        module_string(fc->mc, what.data), module_string(fc->mc, why.data)};
    LLVMBuildCall2(fc->b, ft, fn, args, 4, "");
  }
  sb_free(&what);
  sb_free(&why);
}
