/*
 * Math calls with more than one result, in reverse (the forward rules are
 * rules/math.c's emitters for the same names):
 *   sincos(x, *s, *c):  x' += cos x * s' - sin x * c'; s' = c' = 0
 *   llvm.sincos(x) = {s, c}: the same from the result's adjoint
 *   modf(x, *ip) = frac:  x' += frac' (the integral part is piecewise
 *                         constant: ip' = 0)
 *   frexp(x, *e) = m, x = m 2^e:  x' += 2^-e m' (e recomputed from x with
 *                         llvm.frexp, so nothing is read back from memory)
 * The out-parameters' shadows hold the adjoints of the values the call
 * stored; as for a store, they are consumed (zeroed) here.
 */
#include <stdint.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"

typedef enum { OUT_SINCOS, OUT_MODF, OUT_FREXP } out_kind;

/* The out-parameters' operands of the libm form (first, count). */
static unsigned out_params(out_kind k, unsigned *first) {
  *first = 1;
  return k == OUT_SINCOS ? 2 : k == OUT_MODF ? 1 : 0;
}

static int aug_out(ad_rev_fn *r, const ad_rev_call_row *row, LLVMValueRef call,
                   LLVMValueRef clone) {
  (void)clone;
  out_kind k = (out_kind)(uintptr_t)row->data;
  unsigned n = LLVMGetNumArgOperands(call);
  if (n == 1)
    return ad_rev_has_adjoint(r, call) ? (ad_rev_plan_row(r, call, row) ? 0 : -1)
                                       : 0;
  unsigned first, nout = out_params(k, &first);
  unsigned want = k == OUT_SINCOS ? 3 : 2;
  if (n != want)
    return ad_rev_fail_call(r, call, "%s: unexpected arguments", row->name);
  int any = ad_rev_has_adjoint(r, call);
  for (unsigned j = 0; j < nout; j++)
    any |= ad_shadow_or_null(&r->fc, LLVMGetOperand(call, first + j)) != NULL;
  return any ? (ad_rev_plan_row(r, call, row) ? 0 : -1) : 0;
}

/* The adjoint stored in out-parameter p's shadow, read and zeroed, times
 * `partial`, into x's adjoint. */
static void consume_out(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef p,
                        LLVMValueRef x, LLVMValueRef partial) {
  if (!ad_shadow_or_null(&r->fc, p))
    return;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMBasicBlockRef after = ad_rev_guard(r, p);
  LLVMValueRef sp = ad_rev_shadow(r, p);
  LLVMValueRef d = LLVMBuildLoad2(r->rb, t, sp, "");
  LLVMBuildStore(r->rb, LLVMConstNull(t), sp);
  if (partial && ad_rev_has_adjoint(r, x)) {
    LLVMValueRef g = LLVMBuildFMul(r->rb, d, partial, "");
    ad_copy_fmf(g, call);
    ad_rev_accumulate(r, x, g, call);
  }
  ad_rev_guard_end(r, after);
}

static void add_scaled(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef x,
                       LLVMValueRef d, LLVMValueRef partial) {
  if (!ad_rev_has_adjoint(r, x))
    return;
  LLVMValueRef g = partial ? LLVMBuildFMul(r->rb, d, partial, "") : d;
  if (partial)
    ad_copy_fmf(g, call);
  ad_rev_accumulate(r, x, g, call);
}

/* 2^-e for e = the exponent frexp gives x. */
static LLVMValueRef inverse_scale(ad_fn_ctx *here, LLVMValueRef px) {
  LLVMTypeRef t = LLVMTypeOf(px);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(here->mc->llctx);
  LLVMTypeRef ov[2] = {t, i32};
  LLVMValueRef fr = ad_call_intrinsic(here, "llvm.frexp", ov, 2, &px, 1);
  LLVMValueRef m = LLVMBuildExtractValue(here->b, fr, 0, "");
  return ad_frexp_inverse_scale(here->b, px, m);
}

static int rev_out(ad_rev_fn *r, const ad_rev_call_row *row, LLVMValueRef call,
                   const ad_rev_call_plan *p) {
  (void)p;
  out_kind k = (out_kind)(uintptr_t)row->data;
  ad_fn_ctx here = r->fc; /* the partials are evaluated into the reverse */
  here.b = r->rb;
  LLVMValueRef x = LLVMGetOperand(call, 0);
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMTypeRef ov[1] = {t};
  int active_x = ad_rev_has_adjoint(r, x);
  LLVMValueRef px = active_x ? ad_rev_primal(r, x) : NULL;
  int intrinsic = LLVMGetNumArgOperands(call) == 1;
  LLVMValueRef d = ad_rev_has_adjoint(r, call) ? ad_rev_take(r, call) : NULL;
  switch (k) {
  case OUT_SINCOS: {
    LLVMValueRef c = NULL, ns = NULL;
    if (active_x) {
      c = ad_call_intrinsic(&here, "llvm.cos", ov, 1, &px, 1);
      ns = LLVMBuildFNeg(r->rb,
                         ad_call_intrinsic(&here, "llvm.sin", ov, 1, &px, 1), "");
    }
    if (intrinsic) {
      if (d && active_x) {
        add_scaled(r, call, x, LLVMBuildExtractValue(r->rb, d, 0, ""), c);
        add_scaled(r, call, x, LLVMBuildExtractValue(r->rb, d, 1, ""), ns);
      }
      return 0;
    }
    consume_out(r, call, LLVMGetOperand(call, 1), x, c);
    consume_out(r, call, LLVMGetOperand(call, 2), x, ns);
    return 0;
  }
  case OUT_MODF:
    if (intrinsic) {
      if (d)
        add_scaled(r, call, x, LLVMBuildExtractValue(r->rb, d, 0, ""), NULL);
      return 0;
    }
    if (d)
      add_scaled(r, call, x, d, NULL);
    consume_out(r, call, LLVMGetOperand(call, 1), x, NULL);
    return 0;
  case OUT_FREXP:
    if (!d || !active_x)
      return 0;
    add_scaled(r, call, x, intrinsic ? LLVMBuildExtractValue(r->rb, d, 0, "") : d,
               inverse_scale(&here, px));
    return 0;
  }
  return 0;
}

#define OUT(n, k)                                                              \
  {.name = n, .aug = aug_out, .rev = rev_out, .data = (const void *)(uintptr_t)k}
static const ad_rev_call_row mathout_rows[] = {
    OUT("sincos", OUT_SINCOS),     OUT("sincosf", OUT_SINCOS),
    OUT("sincosl", OUT_SINCOS),    OUT("__sincos", OUT_SINCOS),
    OUT("__sincosf", OUT_SINCOS),  OUT("llvm.sincos", OUT_SINCOS),
    OUT("modf", OUT_MODF),         OUT("modff", OUT_MODF),
    OUT("modfl", OUT_MODF),        OUT("llvm.modf", OUT_MODF),
    OUT("frexp", OUT_FREXP),       OUT("frexpf", OUT_FREXP),
    OUT("frexpl", OUT_FREXP),      OUT("llvm.frexp", OUT_FREXP),
};

const ad_rev_call_rows ad_rev_mathout_rows = {
    "mathout", mathout_rows, sizeof mathout_rows / sizeof *mathout_rows};
