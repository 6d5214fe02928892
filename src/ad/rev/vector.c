/*
 * Vector reductions in reverse (rules/vector.c has their tangents):
 *   reduce.fmax / fmin / fmaximum / fminimum (v): the adjoint goes to the
 *     first lane equal to the result, the lane forward mode takes the
 *     tangent of, so both modes differentiate the same branch at ties;
 *   reduce.fmul(s, v) = s v0 ... vn-1: s' += r' v0 ... vn-1 and
 *     vi' += r' s v0 .. vi-1 vi+1 .. vn-1 (prefix and suffix products, no
 *     division, so a zero lane is right).
 * (reduce.fadd is linear and lives with the memory rows.)
 */
#include <stdint.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"

typedef enum { RED_PICK, RED_FMUL } red_kind;

static int aug_reduce(ad_rev_fn *r, const ad_rev_call_row *row,
                      LLVMValueRef call, LLVMValueRef clone) {
  (void)clone;
  if (!ad_rev_has_adjoint(r, call))
    return 0;
  red_kind k = (red_kind)(uintptr_t)row->data;
  LLVMValueRef v = LLVMGetOperand(call, k == RED_FMUL ? 1 : 0);
  if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind)
    return ad_rev_fail_call(r, call, "%s: scalable vectors are not supported",
                            row->name);
  return ad_rev_plan_row(r, call, row) ? 0 : -1;
}

static LLVMValueRef lane(ad_rev_fn *r, LLVMValueRef v, unsigned i) {
  return LLVMBuildExtractElement(
      r->rb, v, LLVMConstInt(LLVMInt32TypeInContext(r->mc->llctx), i, 0), "");
}

static LLVMValueRef fmul(ad_rev_fn *r, LLVMValueRef a, LLVMValueRef b,
                         LLVMValueRef fmf) {
  LLVMValueRef m = LLVMBuildFMul(r->rb, a, b, "");
  ad_copy_fmf(m, fmf);
  return m;
}

static int rev_reduce(ad_rev_fn *r, const ad_rev_call_row *row,
                      LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)p;
  red_kind k = (red_kind)(uintptr_t)row->data;
  LLVMValueRef v = LLVMGetOperand(call, k == RED_FMUL ? 1 : 0);
  LLVMTypeRef vt = LLVMTypeOf(v), et = LLVMTypeOf(call);
  unsigned n = LLVMGetVectorSize(vt);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(r->mc->llctx);
  LLVMValueRef d = ad_rev_take(r, call);
  LLVMValueRef pv = ad_rev_primal(r, v);
  LLVMValueRef zero = LLVMConstNull(et);
  LLVMValueRef dv = LLVMConstNull(vt);
  if (k == RED_PICK) {
    LLVMValueRef res = ad_rev_primal(r, call);
    LLVMValueRef found = LLVMConstInt(LLVMInt1TypeInContext(r->mc->llctx), 0, 0);
    for (unsigned i = 0; i < n; i++) {
      LLVMValueRef eq = LLVMBuildFCmp(r->rb, LLVMRealOEQ, lane(r, pv, i), res, "");
      LLVMValueRef hit = LLVMBuildAnd(r->rb, eq, LLVMBuildNot(r->rb, found, ""), "");
      found = LLVMBuildOr(r->rb, found, eq, "");
      dv = LLVMBuildInsertElement(r->rb, dv,
                                  LLVMBuildSelect(r->rb, hit, d, zero, ""),
                                  LLVMConstInt(i32, i, 0), "");
    }
    ad_rev_accumulate(r, v, dv, call);
    return 0;
  }
  LLVMValueRef s = LLVMGetOperand(call, 0);
  LLVMValueRef x[64], suffix[65];
  if (n > 64)
    return ad_rev_fail_call(r, call, "%s over more than 64 lanes", row->name);
  for (unsigned i = 0; i < n; i++)
    x[i] = lane(r, pv, i);
  suffix[n] = LLVMConstReal(et, 1.0);
  for (unsigned i = n; i-- > 0;)
    suffix[i] = fmul(r, x[i], suffix[i + 1], call);
  if (ad_rev_has_adjoint(r, s))
    ad_rev_accumulate(r, s, fmul(r, d, suffix[0], call), call);
  if (ad_rev_has_adjoint(r, v)) {
    LLVMValueRef prefix = ad_rev_primal(r, s);
    for (unsigned i = 0; i < n; i++) {
      LLVMValueRef g = fmul(r, d, fmul(r, prefix, suffix[i + 1], call), call);
      dv = LLVMBuildInsertElement(r->rb, dv, g, LLVMConstInt(i32, i, 0), "");
      prefix = fmul(r, prefix, x[i], call);
    }
    ad_rev_accumulate(r, v, dv, call);
  }
  return 0;
}

#define RED(n, k)                                                              \
  {.name = n, .aug = aug_reduce, .rev = rev_reduce, .data = (const void *)(uintptr_t)k}
static const ad_rev_call_row vector_rows[] = {
    RED("llvm.vector.reduce.fmax", RED_PICK),
    RED("llvm.vector.reduce.fmin", RED_PICK),
    RED("llvm.vector.reduce.fmaximum", RED_PICK),
    RED("llvm.vector.reduce.fminimum", RED_PICK),
    RED("llvm.vector.reduce.fmul", RED_FMUL),
};

const ad_rev_call_rows ad_rev_vector_rows = {
    "vector", vector_rows, sizeof vector_rows / sizeof *vector_rows};
