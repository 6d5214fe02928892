/*
 * Vector reverse mode (enzyme_width N > 1 in __enzyme_autodiff): N seeds,
 * N shadows per duplicated argument.  The gradient runs one whole
 * reverse derivative (aug, then rev) per lane, each with its lane's
 * shadows and seed.  That is exact only when running the primal again
 * cannot see a difference: the function (and everything it calls) writes
 * no memory its caller sees and touches no mutable global (whose one
 * shadow the lanes would share).  This file decides that, conservatively,
 * and names the first instruction that breaks it.  Lane-wise shadows
 * inside one aug/rev pair (one primal run for all lanes) would lift the
 * restriction; it is not built yet.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"
#include "common/alloc.h"

/* Whether pointer v points into memory fn made itself (an alloca, a heap
 * allocation, or a local variable holding only such pointers), looked
 * through GEPs and casts; depth bounds PHI cycles. */
static int is_local_object(ad_module_ctx *mc, LLVMValueRef v, int depth) {
  if (depth > 8)
    return 0;
  v = ad_strip_casts(v, AD_STRIP_GEPS | AD_STRIP_INT_CASTS | AD_STRIP_INSTRUCTIONS);
  if (LLVMIsAAllocaInst(v))
    return 1;
  if (LLVMIsACallInst(v)) {
    const ad_call_rule *rule = ad_rule_of_call(mc, v);
    return rule && rule->returns_allocation;
  }
  if (LLVMIsAPHINode(v)) {
    for (unsigned i = 0; i < LLVMCountIncoming(v); i++)
      if (!is_local_object(mc, LLVMGetIncomingValue(v, i), depth + 1))
        return 0;
    return 1;
  }
  if (LLVMIsASelectInst(v))
    return is_local_object(mc, LLVMGetOperand(v, 1), depth + 1) &&
           is_local_object(mc, LLVMGetOperand(v, 2), depth + 1);
  if (!LLVMIsALoadInst(v))
    return 0;
  /* a local variable (clang -O0's `double *t = malloc(...)`): every value
   * stored into it local, and its address not taken */
  LLVMValueRef slot = LLVMGetOperand(v, 0);
  if (!LLVMIsAAllocaInst(slot))
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user))
      continue;
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != slot ||
        !is_local_object(mc, LLVMGetOperand(user, 0), depth + 1))
      return 0;
  }
  return 1;
}

static int refuse(ad_module_ctx *mc, LLVMValueRef inst, unsigned width,
                  const char *what) {
  char *text = ad_value_text(inst);
  int rc = ad_fail_code(
      mc, TANJIT_ERR_UNSUPPORTED, inst,
      "reverse mode: enzyme_width %u runs %s once per lane, which is exact "
      "only for a function that writes no memory its caller sees; here %s "
      "(`%s`)",
      width,
      ad_value_name(LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst))),
      what, text ? text : "?");
  free(text);
  return rc;
}

static int check_instruction(ad_module_ctx *mc, LLVMValueRef inst,
                             unsigned width, ad_map *seen, LLVMValueRef **work,
                             size_t *nwork, size_t *cap) {
  for (int k = 0; k < LLVMGetNumOperands(inst); k++) {
    LLVMValueRef op = ad_strip_casts(LLVMGetOperand(inst, (unsigned)k),
                                     AD_STRIP_GEPS | AD_STRIP_INT_CASTS);
    if (LLVMIsAGlobalVariable(op) && !LLVMIsGlobalConstant(op))
      return refuse(mc, inst, width,
                    "it uses a mutable global, whose one shadow the lanes "
                    "would share");
  }
  if (LLVMIsAStoreInst(inst)) {
    if (!is_local_object(mc, LLVMGetOperand(inst, 1), 0))
      return refuse(mc, inst, width, "it stores to memory it did not allocate");
    return 0;
  }
  if (LLVMIsAAtomicRMWInst(inst) || LLVMIsAAtomicCmpXchgInst(inst))
    return refuse(mc, inst, width, "an atomic update");
  if (!LLVMIsACallInst(inst) && !LLVMIsAInvokeInst(inst))
    return 0;
  LLVMValueRef callee = ad_called_function(inst);
  if (!callee)
    return refuse(mc, inst, width, "an indirect call may write anything");
  size_t n;
  const char *name = LLVMGetValueName2(callee, &n);
  if (strncmp(name, "llvm.mem", 8) == 0) {
    if (strncmp(name, "llvm.memcpy", 11) == 0 ||
        strncmp(name, "llvm.memmove", 12) == 0 ||
        strncmp(name, "llvm.memset", 11) == 0) {
      if (!is_local_object(mc, LLVMGetOperand(inst, 0), 0))
        return refuse(mc, inst, width,
                      "it copies into memory it did not allocate");
    }
    return 0;
  }
  if (strncmp(name, "llvm.", 5) == 0)
    return 0;
  if (LLVMCountBasicBlocks(callee)) {
    if (ad_map_get(seen, callee))
      return 0;
    if (ad_map_put(seen, callee, (void *)1) != 0)
      return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, inst, "out of memory");
    if (*nwork == *cap) {
      size_t c = *cap ? 2 * *cap : 16;
      LLVMValueRef *g = tj_realloc(*work, c * sizeof *g);
      if (!g)
        return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, inst, "out of memory");
      *work = g;
      *cap = c;
    }
    (*work)[(*nwork)++] = callee;
    return 0;
  }
  const ad_call_rule *rule = ad_rule_of_call(mc, inst);
  if (!rule || rule->writes_pointer_args || rule->inactive)
    return refuse(mc, inst, width,
                  "it calls a function that may write memory or have "
                  "other effects");
  return 0;
}

int ad_rev_check_lanes(ad_module_ctx *mc, LLVMValueRef fn, unsigned width) {
  ad_map seen;
  ad_map_init(&seen);
  LLVMValueRef *work = NULL;
  size_t nwork = 0, cap = 0;
  int rc = 0;
  if (ad_map_put(&seen, fn, (void *)1) != 0 ||
      !(work = tj_malloc(16 * sizeof *work)))
    rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  else {
    cap = 16;
    work[nwork++] = fn;
  }
  while (rc == 0 && nwork) {
    LLVMValueRef f = work[--nwork];
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && rc == 0;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst && rc == 0;
           inst = LLVMGetNextInstruction(inst))
        rc = check_instruction(mc, inst, width, &seen, &work, &nwork, &cap);
  }
  free(work);
  ad_map_free(&seen);
  return rc;
}
