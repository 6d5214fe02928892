/*
 * Forward mode over an OpenMP parallel region: `__kmpc_fork_call(loc, n,
 * fn, captured...)` forks fn's derivative instead, for the activities the
 * captured arguments have at the fork, each active one's tangent after it
 * (the derivative's own parameter order: gtid and btid carry none).  Every
 * thread computes the tangents of what it computes, into the shadows of
 * what it writes, so nothing is shared that the primal does not share, and
 * the runtime's calls inside (schedules, locks, barriers) are inactive
 * rows (registry/inactive.c) that stay where they are; a reduction's
 * calls are replaced by its lock (reduce_by_lock, below).
 *
 * The runtime passes each captured argument as one pointer-sized word, so
 * only width 1 is forked this way (a batched tangent is an array): wider
 * requests and tangents that are not one word are refused.
 */
#include <stdlib.h>
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "ad/analysis/activity.h"
#include "ad/analysis/omp_reduction.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/fwd/fwd.h"
#include "ad/ir/ir.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

static int one_word(ad_module_ctx *mc, LLVMTypeRef t) {
  return (LLVMGetTypeKind(t) == LLVMPointerTypeKind ||
          LLVMGetTypeKind(t) == LLVMIntegerTypeKind) &&
         LLVMABISizeOfType(mc->td, t) == 8;
}

static int fork_region(ad_fn_ctx *fc, LLVMValueRef call) {
  ad_module_ctx *mc = fc->mc;
  unsigned na = LLVMGetNumArgOperands(call);
  int any = 0;
  for (unsigned k = 3; k < na && !any; k++)
    any = ad_is_active(fc, LLVMGetOperand(call, k));
  LLVMValueRef task = na >= 3 ? ad_strip_casts(LLVMGetOperand(call, 2), 0) : NULL;
  /* a region reading or writing active globals carries tangents through
   * them, whatever it captures */
  if (!any && task && LLVMIsAFunction(task) && LLVMCountBasicBlocks(task) > 0)
    any = ad_function_touches_active_globals(mc, task);
  if (!any)
    return ad_clone(fc, call) ? 0 : -1;
  if (!task || !LLVMIsAFunction(task) || LLVMCountBasicBlocks(task) == 0)
    return ad_fail(mc, call,
                   "no forward-mode derivative for a parallel region "
                   "(__kmpc_fork_call) whose outlined function is not a "
                   "function of this module");
  unsigned np = LLVMCountParams(task);
  if (np < 2 || np != na - 1)
    return ad_fail(mc, call,
                   "a parallel region (__kmpc_fork_call) whose outlined "
                   "function's parameters do not match the fork's arguments");
  if (fc->width != 1)
    return ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, call,
                        "a parallel region (__kmpc_fork_call) in a vector "
                        "forward derivative (width %u) is not supported: the "
                        "runtime passes each argument as one word",
                        fc->width);
  unsigned char *act = tj_calloc(np, 1);
  LLVMValueRef *args = tj_malloc((2 * np + 3) * sizeof *args);
  if (!act || !args) {
    free(act);
    free(args);
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  unsigned n = 3;
  int rc = 0;
  for (unsigned k = 2; k < np && rc == 0; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k + 1);
    args[n++] = ad_primal(fc, a);
    if (!ad_is_active(fc, a))
      continue;
    LLVMValueRef sh = ad_shadow_value(fc, a);
    if (!one_word(mc, LLVMTypeOf(sh))) {
      rc = ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, call,
                        "a parallel region (__kmpc_fork_call) capturing an "
                        "active value whose tangent is not one word is not "
                        "supported");
      break;
    }
    act[k] = LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind &&
                     ad_shadow_may_equal_primal(fc, a)
                 ? AD_ARG_DUP_RUNTIME
                 : AD_ARG_DUP;
    args[n++] = sh;
  }
  ad_signature sig = {task, np, act, 1, AD_RET_VOID, fc->sig->error, 0};
  LLVMValueRef d = rc == 0 ? ad_get_derivative(mc, &sig, call) : NULL;
  if (d) {
    args[0] = ad_primal(fc, LLVMGetOperand(call, 0));
    args[1] = LLVMConstInt(LLVMInt32TypeInContext(mc->llctx), n - 3, 0);
    args[2] = d;
    LLVMValueRef c = LLVMBuildCall2(fc->b, LLVMGetCalledFunctionType(call),
                                    LLVMGetCalledValue(call), args, n, "");
    if (LLVMInstructionGetDebugLoc(call))
      LLVMInstructionSetDebugLoc(c, LLVMInstructionGetDebugLoc(call));
  }
  free(act);
  free(args);
  return d ? 0 : -1;
}

/*
 * A reduction's calls (`__kmpc_reduce[_nowait]` and their ends) take the
 * runtime's critical-section method: the lock, and the result 1, so each
 * thread adds its private copies and their tangents into the shared
 * variables and theirs under the lock.  The runtime's other methods would
 * combine the primal copies alone: a tree through the reduction function
 * (the tangents' copies are not in its list) and, for the atomic method,
 * whatever clang emitted (which the derivative would follow too, but the
 * one method serves every team size).
 */
typedef struct reduction_call {
  const char *name;
  unsigned lock;         /* the lock's operand */
  const char *replaced[2]; /* libomp calls of (loc, gtid[, lock]) in order */
  int combines;          /* returns 1: this thread combines, under the lock */
} reduction_call;

static const reduction_call reduction_calls[] = {
    {"__kmpc_reduce_nowait", 6, {"__kmpc_critical"}, 1},
    {"__kmpc_reduce", 6, {"__kmpc_critical"}, 1},
    {"__kmpc_end_reduce_nowait", 2, {"__kmpc_end_critical"}, 0},
    {"__kmpc_end_reduce", 2, {"__kmpc_end_critical", "__kmpc_barrier"}, 0},
};

static int reduce_by_lock(ad_fn_ctx *fc, LLVMValueRef call,
                          const reduction_call *rc) {
  ad_module_ctx *mc = fc->mc;
  if (LLVMGetNumArgOperands(call) <= rc->lock)
    return ad_fail(mc, call, "%s with fewer arguments than libomp's",
                   rc->name);
  LLVMValueRef cas;
  int found = rc->combines ? ad_omp_reduction_atomic_cas(fc, call, &cas) : 0;
  if (found < 0)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  /* its atomic method never runs, but is differentiated with the rest */
  if (found)
    return ad_fail(mc, call,
                   "no forward-mode derivative for a reduction (%s) whose "
                   "operator is not + or - on floats (*, min, max, ...): "
                   "clang also emits its combination as a compare-and-swap "
                   "loop (libomp's atomic method)",
                   rc->name);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(mc->llctx);
  LLVMTypeRef params[3] = {ptr, i32, ptr};
  LLVMValueRef args[3] = {ad_primal(fc, LLVMGetOperand(call, 0)),
                          ad_primal(fc, LLVMGetOperand(call, 1)),
                          ad_primal(fc, LLVMGetOperand(call, rc->lock))};
  for (unsigned k = 0; k < 2 && rc->replaced[k]; k++) {
    /* a barrier takes (loc, gtid), a lock's ends the lock too */
    unsigned n = strcmp(rc->replaced[k], "__kmpc_barrier") == 0 ? 2 : 3;
    LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(mc->llctx),
                                      params, n, 0);
    LLVMValueRef f = ad_get_or_declare(mc->mod, rc->replaced[k], ft);
    LLVMBuildCall2(fc->b, ft, f, args, n, "");
  }
  if (rc->combines &&
      ad_map_put(&fc->vmap, call, LLVMConstInt(LLVMTypeOf(call), 1, 0)) != 0)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  return 0;
}

int ad_fwd_openmp_call(ad_fn_ctx *fc, LLVMValueRef call) {
  LLVMValueRef fn = ad_called_function(call);
  if (!fn)
    return 1;
  size_t len;
  const char *name = LLVMGetValueName2(fn, &len);
  if (strcmp(name, "__kmpc_fork_call") == 0)
    return fork_region(fc, call);
  for (size_t i = 0; i < sizeof reduction_calls / sizeof *reduction_calls; i++)
    if (strcmp(name, reduction_calls[i].name) == 0)
      return reduce_by_lock(fc, call, &reduction_calls[i]);
  return 1;
}
