/*
 * Floating-point error estimation (__enzyme_error_estimate): forward mode
 * in which each shadow carries a bound on the value's rounding error
 * instead of a tangent.  An operation r = f(x_1..x_n) with a rule row
 * (an arithmetic instruction, a math call) bounds its result's error as
 * Enzyme's ForwardModeError does (after Chowdhary and Nagarakatte):
 *
 *   err(r) = max(ulp(r), sum_k |df/dx_k * err(x_k) * x_k / r|)
 *
 * the partials read from the same rows forward and reverse mode use, and
 * ulp(r) the distance from r to its neighbour whose last significand bit
 * differs.  Values that only move (loads, stores, PHIs, casts) carry
 * their bound unchanged, as a tangent would be.  Where the module
 * defines or declares enzymeLogError(double value, double error, const
 * char *opcode, const char *callee, const char *module, const char
 * *function, const char *block), each bound is reported to it, but for
 * values whose only uses are calls without a derivative effect (printf):
 * their error reaches nothing, and Enzyme's activity analysis, which asks
 * whether a value reaches the result, leaves them inactive, unreported.
 */
#include <stddef.h>

#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/tangent/tangent.h"

/* The opcodes with rule rows, by the names LLVM's IR writes them with */
static const struct {
  LLVMOpcode op;
  const char *name;
} opcode_names[] = {
    {LLVMFAdd, "fadd"}, {LLVMFSub, "fsub"}, {LLVMFNeg, "fneg"},
    {LLVMFMul, "fmul"}, {LLVMFDiv, "fdiv"}, {LLVMFRem, "frem"},
    {LLVMCall, "call"}, {LLVMInvoke, "invoke"},
};

static const char *opcode_name(LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  for (size_t i = 0; i < sizeof opcode_names / sizeof *opcode_names; i++)
    if (opcode_names[i].op == op)
      return opcode_names[i].name;
  return "";
}

static LLVMValueRef fabs_of(ad_fn_ctx *fc, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return ad_call_intrinsic(fc, "llvm.fabs", &t, 1, &v, 1);
}

/* |r - r'| for r' r with its lowest significand bit flipped. */
static LLVMValueRef one_ulp(ad_fn_ctx *fc, LLVMValueRef r) {
  LLVMTypeRef t = LLVMTypeOf(r);
  unsigned bits = (unsigned)LLVMSizeOfTypeInBits(fc->mc->td, t);
  LLVMTypeRef it = LLVMIntTypeInContext(fc->mc->llctx, bits);
  LLVMValueRef as_int = LLVMBuildBitCast(fc->b, r, it, "");
  LLVMValueRef flipped = LLVMBuildXor(fc->b, as_int, LLVMConstInt(it, 1, 0), "");
  LLVMValueRef neighbour = LLVMBuildBitCast(fc->b, flipped, t, "");
  return fabs_of(fc, LLVMBuildFSub(fc->b, r, neighbour, ""));
}

/* Whether inst's value reaches something other than inactive calls. */
static int reaches_anything(ad_fn_ctx *fc, LLVMValueRef inst) {
  for (LLVMUseRef u = LLVMGetFirstUse(inst); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    const ad_call_rule *rule =
        LLVMIsACallInst(user) ? ad_rule_of_call(fc->mc, user) : NULL;
    if (!rule || !rule->inactive)
      return 1;
  }
  return 0;
}

/* enzymeLogError(value, bound, opcode, callee, module, function, block) */
static int report(ad_fn_ctx *fc, LLVMValueRef inst, LLVMValueRef r,
                  LLVMValueRef bound) {
  LLVMValueRef log = LLVMGetNamedFunction(fc->mc->mod, "enzymeLogError");
  if (!log || !reaches_anything(fc, inst))
    return 0;
  LLVMTypeRef ft = LLVMGlobalGetValueType(log);
  LLVMTypeRef dbl = LLVMDoubleTypeInContext(fc->mc->llctx);
  LLVMTypeRef params[7];
  int fits = LLVMCountParamTypes(ft) == 7;
  if (fits)
    LLVMGetParamTypes(ft, params);
  for (unsigned i = 0; i < 7 && fits; i++)
    fits = i < 2 ? params[i] == dbl
                 : LLVMGetTypeKind(params[i]) == LLVMPointerTypeKind;
  if (!fits)
    return ad_fail(fc->mc, inst,
                   "enzymeLogError is not void(double value, double error, "
                   "const char *opcode, const char *callee, const char "
                   "*module, const char *function, const char *block), the "
                   "form error estimation calls it with");
  LLVMValueRef callee =
      LLVMIsACallInst(inst) || LLVMIsAInvokeInst(inst) ? ad_called_function(inst)
                                                       : NULL;
  size_t n;
  const char *names[5] = {
      opcode_name(inst),
      callee ? LLVMGetValueName2(callee, &n) : "",
      LLVMGetModuleIdentifier(fc->mc->mod, &n),
      LLVMGetValueName2(fc->primal_fn, &n),
      LLVMGetValueName2(LLVMBasicBlockAsValue(LLVMGetInstructionParent(inst)),
                        &n)};
  LLVMValueRef args[7] = {LLVMBuildFPCast(fc->b, r, dbl, ""),
                          LLVMBuildFPCast(fc->b, bound, dbl, "")};
  for (unsigned i = 0; i < 5; i++)
    args[2 + i] = LLVMBuildGlobalString(fc->b, names[i], "enzyme_error_name");
  LLVMBuildCall2(fc->b, ft, log, args, 7, "");
  return 0;
}

int ad_estimates_error(const ad_fn_ctx *fc) {
  return fc->sig && fc->sig->error;
}

LLVMValueRef ad_error_bound(ad_fn_ctx *fc, LLVMValueRef inst, LLVMValueRef r,
                            const ad_error_term *terms, unsigned nterms) {
  LLVMTypeRef t = LLVMTypeOf(r);
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind || fc->width != 1) {
    ad_fail(fc->mc, inst,
            "error estimation of a vector operation is not supported "
            "(scalar floats only)");
    return NULL;
  }
  LLVMValueRef sum = NULL;
  for (unsigned k = 0; k < nterms; k++) {
    if (!terms[k].error)
      continue;
    LLVMValueRef relative = LLVMBuildFDiv(
        fc->b, LLVMBuildFMul(fc->b, terms[k].error, terms[k].primal, ""), r,
        "");
    LLVMValueRef part = terms[k].coef
                            ? LLVMBuildFMul(fc->b, terms[k].coef, relative, "")
                            : relative;
    part = fabs_of(fc, part);
    sum = sum ? LLVMBuildFAdd(fc->b, sum, part, "") : part;
  }
  LLVMValueRef ulp = one_ulp(fc, r);
  LLVMValueRef bound = ulp;
  if (sum) {
    LLVMValueRef two[2] = {ulp, sum};
    bound = ad_call_intrinsic(fc, "llvm.maxnum", &t, 1, two, 2);
  }
  if (!bound)
    return NULL;
  if (report(fc, inst, r, bound) != 0)
    return NULL;
  return bound;
}
