/*
 * Vector reductions that vectorizers emit (-O3, -ffast-math).  An ordered
 * sum is linear and lives with the memory rules; here are the non-linear
 * ones, expanded element by element on fixed-width vectors:
 *   reduce.fmul(s, v) = s * v0 * ... * vn-1: the product rule along the chain
 *   reduce.fmax / fmin / fmaximum / fminimum (v): the tangent of the element
 *   equal to the result (the first one, as the chain is scanned).
 */
#include <string.h>

#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/tangent/tangent.h"

typedef enum { RED_FMUL, RED_PICK } red_kind;

static int emit_reduce(ad_fn_ctx *fc, const ad_call_rule *rule,
                       LLVMValueRef call, LLVMValueRef clone) {
  red_kind kind = (red_kind)(size_t)rule->data;
  if (!ad_is_active(fc, call))
    return 0;
  unsigned vi = kind == RED_FMUL ? 1 : 0;
  LLVMValueRef v = LLVMGetOperand(call, vi);
  LLVMTypeRef vt = LLVMTypeOf(v);
  if (LLVMGetTypeKind(vt) != LLVMVectorTypeKind)
    return ad_fail(fc->mc, call, "%s: scalable vectors are not supported",
                   ad_value_name(ad_called_function(call)));
  unsigned n = LLVMGetVectorSize(vt);
  LLVMTypeRef et = LLVMTypeOf(call);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(fc->mc->llctx);
  LLVMValueRef pv = ad_primal(fc, v);
  LLVMValueRef dv = ad_shadow_value(fc, v);
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef dvl = ad_lane(fc, dv, lane);
    LLVMValueRef acc, dacc;
    if (kind == RED_FMUL) {
      acc = ad_primal(fc, LLVMGetOperand(call, 0));
      dacc = ad_lane(fc, ad_shadow_value(fc, LLVMGetOperand(call, 0)), lane);
    } else {
      acc = clone;
      dacc = LLVMConstNull(et);
    }
    for (unsigned k = n; k-- > 0;) {
      unsigned i = kind == RED_FMUL ? n - 1 - k : k;
      LLVMValueRef idx = LLVMConstInt(i32, i, 0);
      LLVMValueRef x = LLVMBuildExtractElement(fc->b, pv, idx, "");
      LLVMValueRef dx = LLVMBuildExtractElement(fc->b, dvl, idx, "");
      if (kind == RED_FMUL) { /* d(acc x) = dacc x + acc dx */
        LLVMValueRef t1 = LLVMBuildFMul(fc->b, dacc, x, "");
        LLVMValueRef t2 = LLVMBuildFMul(fc->b, acc, dx, "");
        ad_tangent_fmf(fc, t1, call);
        ad_tangent_fmf(fc, t2, call);
        dacc = LLVMBuildFAdd(fc->b, t1, t2, "");
        ad_tangent_fmf(fc, dacc, call);
        acc = LLVMBuildFMul(fc->b, acc, x, "");
        ad_copy_fmf(acc, call);
      } else { /* scanned last to first: the first match wins */
        LLVMValueRef hit = LLVMBuildFCmp(fc->b, LLVMRealOEQ, x, acc, "");
        dacc = LLVMBuildSelect(fc->b, hit, dx, dacc, "");
      }
    }
    lanes[lane] = dacc;
  }
  ad_set_shadow(fc, call, ad_pack(fc, et, lanes));
  return 0;
}

static const ad_call_rule vector_rules[] = {
    {.name = "llvm.vector.reduce.fmul",
     .emit = emit_reduce,
     .data = (const void *)RED_FMUL},
    {.name = "llvm.vector.reduce.fmax",
     .emit = emit_reduce,
     .data = (const void *)RED_PICK},
    {.name = "llvm.vector.reduce.fmin",
     .emit = emit_reduce,
     .data = (const void *)RED_PICK},
    {.name = "llvm.vector.reduce.fmaximum",
     .emit = emit_reduce,
     .data = (const void *)RED_PICK},
    {.name = "llvm.vector.reduce.fminimum",
     .emit = emit_reduce,
     .data = (const void *)RED_PICK},
};

static const ad_call_rule *vector_lookup(const char *name) {
  for (size_t i = 0; i < sizeof vector_rules / sizeof *vector_rules; i++)
    if (ad_name_matches(name, vector_rules[i].name))
      return &vector_rules[i];
  return NULL;
}

const ad_rule_family ad_vector_family = {
    .name = "vector",
    .lookup = vector_lookup,
};
