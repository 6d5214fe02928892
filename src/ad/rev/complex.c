/*
 * Complex calls in reverse: the <complex.h> functions (cexp, cabs, cpow,
 * ...) and the product/quotient helpers clang calls (__muldc3, __divdc3,
 * ...).  Their rows live in rules/complex.c, which forward mode reads as
 * tangents; reverse mode asks the same rows for the vector-Jacobian
 * product (ad_complex_adjoints): a holomorphic f gives z' += conj(f'(z)) r'.
 */
#include <stdint.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/rules/rules.h"

static int aug_complex(ad_rev_fn *r, const ad_rev_call_row *row,
                       LLVMValueRef call, LLVMValueRef clone) {
  (void)clone;
  if (!ad_rev_has_adjoint(r, call))
    return 0;
  if (LLVMGetNumArgOperands(call) > 4)
    return ad_rev_fail_call(r, call, "%s: unexpected arguments",
                            ad_value_name(ad_called_function(call)));
  return ad_rev_plan_row(r, call, row) ? 0 : -1;
}

static int rev_complex(ad_rev_fn *r, const ad_rev_call_row *row,
                       LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)row;
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef args[4], dargs[4];
  for (unsigned k = 0; k < n; k++)
    args[k] = ad_rev_primal(r, LLVMGetOperand(call, k));
  LLVMValueRef result = ad_rev_primal(r, call);
  LLVMValueRef d = ad_rev_take(r, call);
  ad_fn_ctx here = r->fc; /* the rows are evaluated into the reverse */
  here.b = r->rb;
  if (ad_complex_adjoints(&here, p->rule, call, args, result, d, dargs) != 0)
    return -1;
  for (unsigned k = 0; k < n; k++)
    if (dargs[k])
      ad_rev_accumulate(r, LLVMGetOperand(call, k), dargs[k], call);
  return 0;
}

const ad_rev_call_row ad_rev_complex_row = {
    .name = "complex", .aug = aug_complex, .rev = rev_complex};
