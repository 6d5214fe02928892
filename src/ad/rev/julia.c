/*
 * Julia's runtime calls in reverse mode.  Renamed ccalls (`ejlstr$...`,
 * jlplt GOTs, which src/jit binds to renamed declarations at load) reach
 * reverse mode as the rules their names say (CUDA: rev/cuda.c; libm
 * through "enzyme_math": the math rows); the GC.@preserve markers are
 * dropped at load, and julia.get_pgcstack and julia.safepoint are
 * inactive.  What is left is the GC allocation:
 *
 *   julia.gc_alloc_obj   an active object gets a zeroed shadow block
 *                        (memory.c's, seen in the object's address space),
 *                        freed at the reverse of the allocation, or by the
 *                        gradient's guard when an exception leaves aug.  The shadow is host
 *                        memory the GC does not know: it lives exactly from
 *                        the allocation in aug to its reverse, holding
 *                        adjoints (floats; a tracked pointer stored in a
 *                        shadow object is not a GC root).
 */
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"

static int is_gc_alloc(const ad_call_rule *rule) {
  return rule && strcmp(rule->name, "julia.gc_alloc_obj") == 0;
}

int ad_rev_julia_aug(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef clone,
                     const ad_call_rule *rule) {
  (void)clone;
  if (!is_gc_alloc(rule))
    return 1;
  ad_fn_ctx *fc = &r->fc;
  if (!ad_is_active(fc, call))
    return 0;
  if (LLVMGetNumArgOperands(call) < 2)
    return ad_fail(r->mc, call,
                   "julia.gc_alloc_obj is called with %u arguments; its "
                   "reverse rule needs the size (the second)",
                   LLVMGetNumArgOperands(call));
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->mc->llctx);
  LLVMValueRef size = ad_primal(fc, LLVMGetOperand(call, 1));
  if (LLVMGetTypeKind(LLVMTypeOf(size)) != LLVMIntegerTypeKind)
    return ad_fail(r->mc, call,
                   "julia.gc_alloc_obj: the size is not an integer");
  /* memory.c's block: zeroed, and on the gradient's owned list, so an
   * exception out of aug frees it as it frees the host shadows */
  LLVMValueRef s = ad_rev_shadow_alloc(r, fc->b, LLVMConstInt(i64, 16, 0),
                                       LLVMBuildZExtOrBitCast(fc->b, size, i64, ""));
  LLVMSetValueName2(s, "shadow.gc_obj", 13);
  if (ad_rev_record(r, call, s) != 0)
    return -1;
  LLVMTypeRef t = LLVMTypeOf(call);
  ad_set_shadow(fc, call,
                t == LLVMTypeOf(s) ? s
                                   : LLVMBuildAddrSpaceCast(fc->b, s, t, ""));
  return 0;
}

int ad_rev_julia_reverse(ad_rev_fn *r, LLVMValueRef call) {
  LLVMValueRef fn = LLVMGetCalledValue(call);
  size_t n;
  if (!fn || !LLVMIsAFunction(fn) ||
      strcmp(LLVMGetValueName2(fn, &n), "julia.gc_alloc_obj") != 0)
    return 0;
  LLVMValueRef s = ad_rev_recorded(r, call);
  if (s)
    ad_rev_shadow_free(r->mc, r->rb, s);
  return 0;
}
