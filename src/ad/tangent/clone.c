/* The clone of a primal instruction in the derivative body. */
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/tangent/tangent.h"

LLVMValueRef ad_clone(ad_fn_ctx *fc, LLVMValueRef inst) {
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
