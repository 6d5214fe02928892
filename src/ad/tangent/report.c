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
