/*
 * Enzyme's activity markers come in two spellings: the C globals
 * (`enzyme_dup` ...) and, from Julia-style frontends, `metadata !"enzyme_dup"`
 * call operands.  LLVM's bitcode writer does not keep metadata operands of
 * calls to ordinary functions (only intrinsics), and tanjit copies modules
 * through bitcode (tanjit_load_module, the pristine copies behind
 * tanjit_fwddiff).  So the metadata spelling is rewritten to the global one,
 * which the engine reads the same way, as soon as a module is parsed.
 * A module's own definitions of the entry points (fallback stubs) become
 * declarations then too.
 */
#include <string.h>

#include <llvm-c/Comdat.h>

#include "jit/jit.h"

static const char marker_prefix[] = "enzyme_";

static LLVMValueRef marker_global(LLVMModuleRef m, const char *name, size_t len) {
  char buf[64];
  if (len >= sizeof buf)
    return NULL;
  memcpy(buf, name, len);
  buf[len] = '\0';
  LLVMValueRef g = LLVMGetNamedGlobal(m, buf);
  if (!g)
    g = LLVMAddGlobal(m, LLVMInt32TypeInContext(LLVMGetModuleContext(m)), buf);
  return g;
}

static void rewrite_call(LLVMModuleRef m, LLVMValueRef call) {
  unsigned n = (unsigned)LLVMGetNumArgOperands(call);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef op = LLVMGetOperand(call, i);
    if (!LLVMIsAMDString(op))
      continue;
    unsigned len;
    const char *text = LLVMGetMDString(op, &len);
    if (!text || len <= sizeof marker_prefix - 1 ||
        strncmp(text, marker_prefix, sizeof marker_prefix - 1) != 0)
      continue;
    LLVMValueRef g = marker_global(m, text, len);
    if (g)
      LLVMSetOperand(call, i, g);
  }
}

void jit_canonicalize_markers(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (ad_request_kind_of(f) == AD_NOT_A_REQUEST)
      continue;
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsACallInst(user) || LLVMIsAInvokeInst(user))
        rewrite_call(m, user);
    }
  }
}

void jit_drop_request_stubs(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || ad_request_kind_of(f) == AD_NOT_A_REQUEST)
      continue;
    jit_drop_body(f);
    LLVMSetComdat(f, NULL);
    LLVMSetLinkage(f, LLVMExternalLinkage);
    LLVMSetVisibility(f, LLVMDefaultVisibility);
  }
}
