/*
 * Helpers declared next to a call (the memset that zeroes a shadow malloc,
 * the free of a shadow, a CUDA shadow transfer).  A helper must resolve the
 * way its accompanied call resolves: under the same calling convention, and
 * for a renamed ccall (`ejlstr$<f>$<lib>`, `ejlptr$<f>$<handle>`: see
 * common/rename.h) from the same library, hence `ejlstr$<helper>$<lib>`
 * (or `ejlptr$<helper>$<handle>`) with "enzyme_math"="<helper>".
 * Also the module's own helpers: libc declarations and internal functions
 * a pass defines once and calls from many places.
 */
#include <stdlib.h>
#include <string.h>

#include "ad/ir/ir.h"
#include "common/rename.h"
#include "common/strbuf.h"

LLVMValueRef ad_get_or_insert_helper(LLVMModuleRef m,
                                     LLVMValueRef accompanied_call,
                                     const char *helper_name,
                                     LLVMTypeRef fn_type) {
  LLVMValueRef callee =
      accompanied_call ? LLVMGetCalledValue(accompanied_call) : NULL;
  unsigned cc = accompanied_call ? LLVMGetInstructionCallConv(accompanied_call)
                                 : LLVMCCallConv;
  char *full = NULL;
  tj_rename rn;
  size_t len;
  if (callee && LLVMIsAFunction(callee) &&
      tj_parse_rename(LLVMGetValueName2(callee, &len), &rn) == 1) {
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s%s$%s", rn.prefix, helper_name, rn.lib);
    full = sb_take(&sb);
    if (!full)
      return NULL;
  }
  const char *use = full ? full : helper_name;
  LLVMValueRef fn = LLVMGetNamedFunction(m, use);
  if (!fn) {
    fn = LLVMAddFunction(m, use, fn_type);
    LLVMSetFunctionCallConv(fn, cc);
    if (full) {
      LLVMContextRef c = LLVMGetModuleContext(m);
      LLVMAttributeRef a = LLVMCreateStringAttribute(
          c, "enzyme_math", 11, helper_name, (unsigned)strlen(helper_name));
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
    }
  }
  free(full);
  return fn;
}

LLVMValueRef ad_call_helper(LLVMBuilderRef b, LLVMValueRef helper,
                            LLVMValueRef *args, unsigned nargs,
                            const char *name) {
  LLVMTypeRef ft = LLVMGlobalGetValueType(helper);
  LLVMValueRef c = LLVMBuildCall2(b, ft, helper, args, nargs,
                                  LLVMGetTypeKind(LLVMGetReturnType(ft)) ==
                                          LLVMVoidTypeKind
                                      ? ""
                                      : name);
  LLVMSetInstructionCallConv(c, LLVMGetFunctionCallConv(helper));
  return c;
}

void ad_build_trap(LLVMModuleRef m, LLVMBuilderRef b) {
  unsigned id = LLVMLookupIntrinsicID("llvm.trap", 9);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMBuildCall2(b, LLVMIntrinsicGetType(c, id, NULL, 0),
                 LLVMGetIntrinsicDeclaration(m, id, NULL, 0), NULL, 0, "");
  LLVMBuildUnreachable(b);
}

LLVMValueRef ad_get_or_declare(LLVMModuleRef m, const char *name,
                               LLVMTypeRef fn_type) {
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  return f ? f : LLVMAddFunction(m, name, fn_type);
}

LLVMBuilderRef ad_define_internal(LLVMModuleRef m, const char *name,
                                  LLVMTypeRef fn_type, LLVMValueRef *fn) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  *fn = LLVMAddFunction(m, name, fn_type);
  LLVMSetLinkage(*fn, LLVMInternalLinkage);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, *fn, "entry");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, entry);
  return b;
}

LLVMBuilderRef ad_get_or_define_internal(LLVMModuleRef m, const char *name,
                                         LLVMTypeRef fn_type,
                                         LLVMValueRef *fn) {
  *fn = LLVMGetNamedFunction(m, name);
  if (*fn)
    return NULL;
  return ad_define_internal(m, name, fn_type, fn);
}
