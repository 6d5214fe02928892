/*
 * Which OpenMP reductions the derivatives cannot take (omp_reduction.h):
 * clang emits an operator other than + or - on floats (`*`, min, max)
 * under libomp's atomic method as a compare-and-swap loop, which has no
 * derivative here.  The modes never run that method, but would refuse its
 * loop naming a `cmpxchg`; asking first lets them name the reduction.
 */
#include <stdlib.h>

#include "ad/analysis/activity.h"
#include "ad/analysis/omp_reduction.h"
#include "ad/ir/ir.h"
#include "common/alloc.h"

/* The block where a switch on the reduction's result goes for the atomic
 * method (2), and in *exit the switch's default block, where every method
 * ends; NULL when no switch picks one.  Successor 0 is the default; case
 * k's value is read by ad_switch_case_value (LLVM 22 keeps the values
 * apart from the operands). */
static LLVMBasicBlockRef atomic_method_block(LLVMValueRef call,
                                             LLVMBasicBlockRef *exit) {
  for (LLVMUseRef u = LLVMGetFirstUse(call); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef sw = LLVMGetUser(u);
    if (!LLVMIsASwitchInst(sw))
      continue;
    unsigned n = LLVMGetNumSuccessors(sw);
    for (unsigned k = 1; k < n; k++) {
      LLVMValueRef v = ad_switch_case_value(sw, k);
      if (LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == 2) {
        *exit = LLVMGetSwitchDefaultDest(sw);
        return LLVMGetSuccessor(sw, k);
      }
    }
  }
  return NULL;
}

static int is_active_cas(const ad_fn_ctx *fc, LLVMValueRef i) {
  int cas = LLVMIsAAtomicCmpXchgInst(i) != NULL;
  if (LLVMIsAAtomicRMWInst(i)) {
    LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(i);
    cas = op != LLVMAtomicRMWBinOpFAdd && op != LLVMAtomicRMWBinOpFSub;
  }
  return cas && (ad_is_active(fc, LLVMGetOperand(i, 0)) ||
                 ad_is_active(fc, LLVMGetOperand(i, 1)));
}

int ad_omp_reduction_atomic_cas(const ad_fn_ctx *fc, LLVMValueRef reduce_call,
                                LLVMValueRef *where) {
  LLVMBasicBlockRef exit = NULL;
  LLVMBasicBlockRef first = atomic_method_block(reduce_call, &exit);
  *where = NULL;
  if (!first)
    return 0;
  /* the blocks from the method's first up to the exit, breadth first */
  unsigned cap = LLVMCountBasicBlocks(LLVMGetBasicBlockParent(first));
  LLVMBasicBlockRef *seen = tj_malloc(cap * sizeof *seen);
  if (!seen)
    return -1;
  unsigned n = 0, next = 0;
  seen[n++] = first;
  while (next < n && !*where) {
    LLVMBasicBlockRef bb = seen[next++];
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !*where;
         i = LLVMGetNextInstruction(i))
      if (is_active_cas(fc, i))
        *where = i;
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;
    for (unsigned k = 0; k < ns; k++) {
      LLVMBasicBlockRef s = LLVMGetSuccessor(term, k);
      int known = s == exit;
      for (unsigned j = 0; j < n && !known; j++)
        known = seen[j] == s;
      if (!known && n < cap)
        seen[n++] = s;
    }
  }
  free(seen);
  return *where != NULL;
}
