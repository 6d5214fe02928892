/*
 * Lazy binding: a name nothing provides is defined as a tiny JIT-compiled
 * function that reports the call, so a module that merely mentions a missing
 * symbol still runs until it really calls it.
 *
 * The stub is IR in a module of its own:
 *     define { i64, double } @<symbol>(...) {
 *       call void <report>(ptr <session>, ptr <symbol>, ptr <library>, ptr <why>)
 *       ret { i64, double } zeroinitializer
 *     }
 * ({ i64, double } zeroes both the integer and the floating-point return
 * registers of the x86-64 and AArch64 C conventions, so a caller expecting
 * an int, a pointer or a double reads zero.)
 * with the report function, the session and the strings as absolute
 * addresses, so the stub itself needs no symbol resolution.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "jit/jit.h"

/* What a stub calls.  The default handler ends the program: the caller
 * expects a value that does not exist. */
static void report_unresolved_call(tanjit_session *s, const char *symbol,
                                   const char *library, const char *why) {
  if (s->on_unresolved) {
    s->on_unresolved(s->on_unresolved_user, symbol, *library ? library : NULL,
                     why);
    return;
  }
  fprintf(stderr, "tanjit: call to unresolved symbol %s%s%s: %s\n", symbol,
          *library ? " in " : "", library, why);
  fflush(stderr);
  abort();
}

/* A derivative's run-time check that failed (a null global shadow, a
 * lazily compiled function that cannot compile): the handler hears of it
 * as of an unresolved call, `what` as its symbol; the default says what
 * it is, not "unresolved symbol". */
void jit_report_runtime_failure(void *session, const char *what,
                                const char *why) {
  tanjit_session *s = session;
  if (s->on_unresolved) {
    s->on_unresolved(s->on_unresolved_user, what, NULL, why);
    return;
  }
  fprintf(stderr, "tanjit: %s: %s\n", what, why);
  fflush(stderr);
  abort();
}

void jit_report_runtime_target(void *session, const void *target,
                               const char *what, const char *why) {
  /* the symbol the loader knows at that address (a library's function);
   * JIT code and stripped objects are given by address alone */
  char text[768];
  Dl_info info;
  if (dladdr(target, &info) && info.dli_sname && info.dli_saddr == target)
    snprintf(text, sizeof text, "%s at %p in %s%s", info.dli_sname, target,
             info.dli_fname ? info.dli_fname : "the process", what);
  else
    snprintf(text, sizeof text, "the function at %p%s", target, what);
  report_unresolved_call(session, text, "", why);
}

int jit_define_lazy_stub(tanjit_session *s, jit_resolver *r, const char *name,
                         const char *symbol, const char *library,
                         const char *reason, tanjit_error **err) {
  const char *kept[3] = {jit_resolver_keep_string(r, symbol),
                         jit_resolver_keep_string(r, library),
                         jit_resolver_keep_string(r, reason)};
  if (!kept[0] || !kept[1] || !kept[2])
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory defining a stub");

  jit_context c;
  jit_context_create(&c);
  LLVMContextRef ctx = c.ctx;
  jit_install_diagnostics(ctx, s);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tanjit.lazy_stub", ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef ret_fields[] = {LLVMInt64TypeInContext(ctx), LLVMDoubleTypeInContext(ctx)};
  LLVMTypeRef ret = LLVMStructTypeInContext(ctx, ret_fields, 2, 0);
  LLVMValueRef stub = LLVMAddFunction(m, name, LLVMFunctionType(ret, NULL, 0, 1));
  LLVMTypeRef report_params[] = {ptr, ptr, ptr, ptr};
  LLVMTypeRef report_type = LLVMFunctionType(LLVMVoidTypeInContext(ctx),
                                             report_params, 4, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, stub, "entry"));
  LLVMValueRef args[] = {ad_address_constant(ctx, s), ad_address_constant(ctx, kept[0]),
                         ad_address_constant(ctx, kept[1]),
                         ad_address_constant(ctx, kept[2])};
  LLVMBuildCall2(b, report_type,
                 ad_address_constant(ctx, (const void *)(uintptr_t)report_unresolved_call),
                 args, 4, "");
  LLVMBuildRet(b, LLVMConstNull(ret));
  LLVMDisposeBuilder(b);

  LLVMOrcThreadSafeContextRef tsc = jit_context_wrap(&c);
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc);
  LLVMErrorRef e = LLVMOrcLLJITAddLLVMIRModule(s->jit, s->main_jd, tsm);
  if (e)
    return tj_fail_llvm(err, TANJIT_ERR_LINK, e, "cannot define a lazy stub");
  return 0;
}
