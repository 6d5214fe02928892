/* The clone of a primal instruction in the derivative body. */
#include <llvm-c/DebugInfo.h>

#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/tangent/tangent.h"

/* An invoke's clone is a call of the same callee with the same arguments
 * and attributes: the tangent work of the call (a rule, a derivative) goes
 * after it, which a terminator cannot have, and fwd/exceptions.c turns the
 * calls that may unwind back into invokes once that work is emitted. */
static LLVMValueRef clone_invoke_as_call(ad_fn_ctx *fc, LLVMValueRef inst) {
  unsigned n = LLVMGetNumArgOperands(inst);
  LLVMValueRef args[256];
  if (n > sizeof args / sizeof *args || LLVMGetNumOperandBundles(inst)) {
    ad_fail(fc->mc, inst,
            "an invoke with %s is not differentiated",
            n > sizeof args / sizeof *args ? "more than 256 arguments"
                                           : "operand bundles");
    return NULL;
  }
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef o = LLVMGetOperand(inst, k);
    LLVMValueRef m = ad_map_get(&fc->vmap, o);
    args[k] = m ? m : o;
  }
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  LLVMValueRef mapped = ad_map_get(&fc->vmap, callee);
  size_t len;
  const char *name = LLVMGetValueName2(inst, &len);
  int is_void = LLVMGetTypeKind(LLVMTypeOf(inst)) == LLVMVoidTypeKind;
  LLVMValueRef c = LLVMBuildCall2(fc->b, LLVMGetCalledFunctionType(inst),
                                  mapped ? mapped : callee, args, n,
                                  is_void || !len ? "" : name);
  ad_copy_call_site_attrs(inst, c);
  if (ad_map_put(&fc->vmap, inst, c) != 0) {
    ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, inst, "out of memory");
    return NULL;
  }
  return c;
}

LLVMValueRef ad_clone(ad_fn_ctx *fc, LLVMValueRef inst) {
  if (LLVMIsAInvokeInst(inst))
    return clone_invoke_as_call(fc, inst);
  LLVMValueRef c = LLVMInstructionClone(inst);
  size_t n;
  const char *name = LLVMGetValueName2(inst, &n);
  LLVMInsertIntoBuilderWithName(fc->b, c, n ? name : "");
  int nops = LLVMGetNumOperands(inst);
  for (int k = 0; k < nops; k++) {
    LLVMValueRef o = LLVMGetOperand(inst, (unsigned)k);
    LLVMValueRef m = ad_map_get(&fc->vmap, o);
    if (m)
      LLVMSetOperand(c, (unsigned)k, m);
  }
  /* A DIAssignID links one instruction to its #dbg_assign records; the
   * clone lives in another function and must not share it. */
  unsigned assign_kind =
      LLVMGetMDKindIDInContext(fc->mc->llctx, "DIAssignID", 10);
  if (LLVMGetMetadata(c, assign_kind))
    LLVMSetMetadata(c, assign_kind, NULL);
  if (ad_map_put(&fc->vmap, inst, c) != 0) {
    ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, inst, "out of memory");
    return NULL;
  }
  return c;
}
