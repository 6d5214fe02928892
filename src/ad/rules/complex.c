/*
 * C99 complex multiplication and division: the runtime helpers clang calls
 * (__muldc3 and friends; on the Annex G slow path, or for every product
 * under -O0 without -fcx-limited-range).  Each takes the real and imaginary
 * parts of both operands and returns the complex result, as {T, T} or, for
 * float on x86-64, <2 x float>.
 *
 *   mul  q = z w:   dq = dz w + z dw                 (two helper products)
 *   div  q = z / w: dq = (dz - q dw) / w             (a product, a quotient)
 *
 * The tangent is computed with the same helpers, declared next to the call
 * under its convention (ir/helpers.c), so NaN and infinity follow C's rules.
 *
 * And the double-precision complex functions of <complex.h>, called as
 * {double, double} f(double re, double im) on x86-64 and AArch64:
 *   cexp' = cexp   csin' = ccos   ccos' = -csin   csinh' = ccosh
 *   ccosh' = csinh   ctan' = 1 + r^2   ctanh' = 1 - r^2
 *   csqrt' = 1 / (2 r)   clog' = 1 / z
 *   cpow(z, w) = r:  dr = r (dw log z + w dz / z)
 *   cabs: (re dre + im dim) / |z|   carg: (re dim - im dre) / |z|^2
 * Their float (cexpf ...) and long double (cexpl ...) forms use the same
 * rules.  A complex argument travels as two scalars (double on x86-64), or
 * as one <2 x T>, [2 x T] or {T, T} value (float complex on x86-64, AArch64
 * homogeneous aggregates); the partner functions are declared the same way.
 * A complex passed in memory (long double complex on x86-64, byval) has no
 * rule and is reported.
 */
#include <stdio.h>
#include <string.h>

#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/tangent/tangent.h"

typedef struct complex_rule_data {
  int divide;
  const char *multiply; /* the helper for products of this precision */
} complex_rule_data;

/* Part k (0 real, 1 imaginary) of a complex result. */
static LLVMValueRef part(LLVMBuilderRef b, LLVMValueRef v, unsigned k) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
    return LLVMBuildExtractElement(
        b, v, LLVMConstInt(LLVMInt32TypeInContext(LLVMGetTypeContext(t)), k, 0), "");
  return LLVMBuildExtractValue(b, v, k, "");
}

static LLVMValueRef make_complex(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef re,
                                 LLVMValueRef im) {
  LLVMValueRef v = LLVMGetPoison(t);
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(t));
    v = LLVMBuildInsertElement(b, v, re, LLVMConstInt(i32, 0, 0), "");
    return LLVMBuildInsertElement(b, v, im, LLVMConstInt(i32, 1, 0), "");
  }
  v = LLVMBuildInsertValue(b, v, re, 0, "");
  return LLVMBuildInsertValue(b, v, im, 1, "");
}

static LLVMValueRef call_helper(ad_fn_ctx *fc, LLVMValueRef helper,
                                LLVMValueRef a, LLVMValueRef b, LLVMValueRef c,
                                LLVMValueRef d) {
  LLVMValueRef args[4] = {a, b, c, d};
  return ad_call_helper(fc->b, helper, args, 4, "");
}

static int emit_complex(ad_fn_ctx *fc, const ad_call_rule *rule,
                        LLVMValueRef call, LLVMValueRef clone) {
  if (!ad_is_active(fc, call))
    return 0;
  const complex_rule_data *d = rule->data;
  LLVMTypeRef ft = LLVMGetCalledFunctionType(call);
  if (LLVMCountParamTypes(ft) != 4 || LLVMGetNumArgOperands(call) != 4)
    return ad_fail(fc->mc, call, "%s: expected 4 arguments", rule->name);
  LLVMValueRef mul = ad_get_or_insert_helper(fc->mc->mod, call, d->multiply, ft);
  if (!mul)
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  LLVMTypeRef rt = LLVMTypeOf(call);
  LLVMValueRef p[4], s[4];
  for (unsigned k = 0; k < 4; k++)
    p[k] = ad_primal(fc, LLVMGetOperand(call, k));
  LLVMValueRef shadows[4];
  for (unsigned k = 0; k < 4; k++)
    shadows[k] = ad_shadow_value(fc, LLVMGetOperand(call, k));
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    for (unsigned k = 0; k < 4; k++)
      s[k] = ad_lane(fc, shadows[k], lane);
    LLVMValueRef t;
    if (!d->divide) {
      LLVMValueRef t1 = call_helper(fc, mul, s[0], s[1], p[2], p[3]);
      LLVMValueRef t2 = call_helper(fc, mul, p[0], p[1], s[2], s[3]);
      t = make_complex(fc->b, rt,
                       LLVMBuildFAdd(fc->b, part(fc->b, t1, 0), part(fc->b, t2, 0), ""),
                       LLVMBuildFAdd(fc->b, part(fc->b, t1, 1), part(fc->b, t2, 1), ""));
    } else {
      LLVMValueRef q_dw = call_helper(fc, mul, part(fc->b, clone, 0),
                                      part(fc->b, clone, 1), s[2], s[3]);
      LLVMValueRef re = LLVMBuildFSub(fc->b, s[0], part(fc->b, q_dw, 0), "");
      LLVMValueRef im = LLVMBuildFSub(fc->b, s[1], part(fc->b, q_dw, 1), "");
      LLVMValueRef divide = LLVMGetCalledValue(clone);
      LLVMValueRef args[4] = {re, im, p[2], p[3]};
      t = LLVMBuildCall2(fc->b, ft, divide, args, 4, "");
      LLVMSetInstructionCallConv(t, LLVMGetInstructionCallConv(clone));
    }
    lanes[lane] = t;
  }
  ad_set_shadow(fc, call, ad_pack(fc, rt, lanes));
  return 0;
}

/* ---- <complex.h> functions ---- */

typedef struct cplx {
  LLVMValueRef re, im;
} cplx;

static cplx c_mul(LLVMBuilderRef b, cplx x, cplx y) {
  cplx r = {LLVMBuildFSub(b, LLVMBuildFMul(b, x.re, y.re, ""),
                          LLVMBuildFMul(b, x.im, y.im, ""), ""),
            LLVMBuildFAdd(b, LLVMBuildFMul(b, x.re, y.im, ""),
                          LLVMBuildFMul(b, x.im, y.re, ""), "")};
  return r;
}

static cplx c_div(LLVMBuilderRef b, cplx x, cplx y) {
  LLVMValueRef n = LLVMBuildFAdd(b, LLVMBuildFMul(b, y.re, y.re, ""),
                                 LLVMBuildFMul(b, y.im, y.im, ""), "");
  cplx conj = {y.re, LLVMBuildFNeg(b, y.im, "")};
  cplx t = c_mul(b, x, conj);
  cplx r = {LLVMBuildFDiv(b, t.re, n, ""), LLVMBuildFDiv(b, t.im, n, "")};
  return r;
}

static cplx c_parts(LLVMBuilderRef b, LLVMValueRef v) {
  cplx r = {part(b, v, 0), part(b, v, 1)};
  return r;
}

typedef enum cfn {
  CF_EXP, CF_SIN, CF_COS, CF_SINH, CF_COSH, CF_TAN, CF_TANH, CF_SQRT, CF_LOG,
  CF_POW, CF_ABS, CF_ARG
} cfn;

typedef struct cfn_data {
  cfn op;
  const char *base;    /* the double form's name: "csin" */
  const char *partner; /* the function giving the derivative, or NULL */
} cfn_data;

/* How the call carries its complex operands: each either as two scalar
 * arguments of `real`, or packed in one two-element argument. */
typedef struct cfn_form {
  int split;
  LLVMTypeRef real;
  LLVMTypeRef params[2]; /* the parameters of one complex operand */
  unsigned nparams;
} cfn_form;

static LLVMTypeRef pair_element(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMVectorTypeKind:
    return LLVMGetVectorSize(t) == 2 ? LLVMGetElementType(t) : NULL;
  case LLVMArrayTypeKind:
    return LLVMGetArrayLength2(t) == 2 ? LLVMGetElementType(t) : NULL;
  case LLVMStructTypeKind:
    if (LLVMCountStructElementTypes(t) == 2 &&
        LLVMStructGetTypeAtIndex(t, 0) == LLVMStructGetTypeAtIndex(t, 1))
      return LLVMStructGetTypeAtIndex(t, 0);
    return NULL;
  default:
    return NULL;
  }
}

static int cfn_form_of(LLVMValueRef call, unsigned ncomplex, cfn_form *f) {
  unsigned nargs = LLVMGetNumArgOperands(call);
  LLVMTypeRef t0 = LLVMTypeOf(LLVMGetOperand(call, 0));
  if (nargs == 2 * ncomplex && ad_type_is_float_scalar(t0)) {
    for (unsigned k = 1; k < nargs; k++)
      if (LLVMTypeOf(LLVMGetOperand(call, k)) != t0)
        return -1;
    *f = (cfn_form){1, t0, {t0, t0}, 2};
    return 0;
  }
  LLVMTypeRef e = pair_element(t0);
  if (nargs == ncomplex && e && ad_type_is_float_scalar(e)) {
    for (unsigned k = 1; k < nargs; k++)
      if (LLVMTypeOf(LLVMGetOperand(call, k)) != t0)
        return -1;
    *f = (cfn_form){0, e, {t0, NULL}, 1};
    return 0;
  }
  return -1;
}

/* Complex operand k of the call, from its primal or (lane of) shadow
 * values: `v` holds one value per argument. */
static cplx cfn_operand(LLVMBuilderRef b, const cfn_form *f, LLVMValueRef *v,
                        unsigned k) {
  if (f->split) {
    cplx r = {v[2 * k], v[2 * k + 1]};
    return r;
  }
  return c_parts(b, v[k]);
}

/* Calls the <complex.h> function `name` on z, declared like `call`'s callee:
 * same convention and complex form. */
static cplx call_partner(ad_fn_ctx *fc, LLVMValueRef call, const cfn_form *f,
                         const char *name, cplx z) {
  LLVMTypeRef ft = LLVMFunctionType(LLVMTypeOf(call), (LLVMTypeRef *)f->params,
                                    f->nparams, 0);
  LLVMValueRef fn = ad_get_or_insert_helper(fc->mc->mod, call, name, ft);
  if (!fn) {
    cplx none = {NULL, NULL};
    return none;
  }
  LLVMValueRef args[2] = {z.re, z.im};
  if (!f->split)
    args[0] = make_complex(fc->b, f->params[0], z.re, z.im);
  return c_parts(fc->b, ad_call_helper(fc->b, fn, args, f->nparams, ""));
}

static int emit_complex_fn(ad_fn_ctx *fc, const ad_call_rule *rule,
                           LLVMValueRef call, LLVMValueRef clone) {
  if (!ad_is_active(fc, call))
    return 0;
  const cfn_data *d = rule->data;
  LLVMBuilderRef b = fc->b;
  unsigned ncomplex = d->op == CF_POW ? 2 : 1;
  cfn_form form;
  if (LLVMGetNumArgOperands(call) < 1 || cfn_form_of(call, ncomplex, &form))
    return ad_fail(fc->mc, call,
                   "no forward-mode rule for %s with this signature (a complex "
                   "argument must be two floating-point values or one pair; "
                   "one passed in memory is not supported)",
                   rule->name);
  /* cexpf's partner is ccosf: the partner's base name, this one's suffix. */
  char partner[32] = "";
  if (d->partner)
    snprintf(partner, sizeof partner, "%s%s", d->partner,
             rule->name + strlen(d->base));
  unsigned nargs = LLVMGetNumArgOperands(call);
  LLVMValueRef pv[4], sh[4];
  for (unsigned k = 0; k < nargs; k++) {
    pv[k] = ad_primal(fc, LLVMGetOperand(call, k));
    sh[k] = ad_shadow_value(fc, LLVMGetOperand(call, k));
  }
  cplx z = cfn_operand(b, &form, pv, 0);
  LLVMTypeRef rt = LLVMTypeOf(call), real = form.real;
  LLVMValueRef one = LLVMConstReal(real, 1.0), zero = LLVMConstReal(real, 0.0);
  /* the factor f'(z), computed once for every lane */
  cplx fprime = {NULL, NULL};
  cplx r = {NULL, NULL};
  if (d->op != CF_ABS && d->op != CF_ARG)
    r = c_parts(b, clone);
  switch (d->op) {
  case CF_EXP:
    fprime = r;
    break;
  case CF_SIN: case CF_COS: case CF_SINH: case CF_COSH:
    fprime = call_partner(fc, call, &form, partner, z);
    if (!fprime.re)
      return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    if (d->op == CF_COS) {
      fprime.re = LLVMBuildFNeg(b, fprime.re, "");
      fprime.im = LLVMBuildFNeg(b, fprime.im, "");
    }
    break;
  case CF_TAN: case CF_TANH: {
    cplx sq = c_mul(b, r, r);
    fprime.re = d->op == CF_TAN ? LLVMBuildFAdd(b, one, sq.re, "")
                                : LLVMBuildFSub(b, one, sq.re, "");
    fprime.im = d->op == CF_TAN ? sq.im : LLVMBuildFNeg(b, sq.im, "");
    break;
  }
  case CF_SQRT: {
    cplx two_r = {LLVMBuildFMul(b, r.re, LLVMConstReal(real, 2.0), ""),
                  LLVMBuildFMul(b, r.im, LLVMConstReal(real, 2.0), "")};
    cplx unit = {one, zero};
    fprime = c_div(b, unit, two_r);
    break;
  }
  case CF_LOG: {
    cplx unit = {one, zero};
    fprime = c_div(b, unit, z);
    break;
  }
  default:
    break;
  }
  cplx log_z = {NULL, NULL}, w = {NULL, NULL};
  if (d->op == CF_POW) {
    log_z = call_partner(fc, call, &form, partner, z);
    if (!log_z.re)
      return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    w = cfn_operand(b, &form, pv, 1);
  }
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef lane_sh[4];
    for (unsigned k = 0; k < nargs; k++)
      lane_sh[k] = ad_lane(fc, sh[k], lane);
    cplx dz = cfn_operand(b, &form, lane_sh, 0);
    switch (d->op) {
    case CF_ABS: {
      LLVMValueRef dot = LLVMBuildFAdd(b, LLVMBuildFMul(b, z.re, dz.re, ""),
                                       LLVMBuildFMul(b, z.im, dz.im, ""), "");
      lanes[lane] = LLVMBuildFDiv(b, dot, ad_primal(fc, call), "");
      continue;
    }
    case CF_ARG: {
      LLVMValueRef cross = LLVMBuildFSub(b, LLVMBuildFMul(b, z.re, dz.im, ""),
                                         LLVMBuildFMul(b, z.im, dz.re, ""), "");
      LLVMValueRef n2 = LLVMBuildFAdd(b, LLVMBuildFMul(b, z.re, z.re, ""),
                                      LLVMBuildFMul(b, z.im, z.im, ""), "");
      lanes[lane] = LLVMBuildFDiv(b, cross, n2, "");
      continue;
    }
    case CF_POW: {
      cplx dw = cfn_operand(b, &form, lane_sh, 1);
      cplx a = c_mul(b, dw, log_z), q = c_mul(b, w, c_div(b, dz, z));
      cplx sum = {LLVMBuildFAdd(b, a.re, q.re, ""), LLVMBuildFAdd(b, a.im, q.im, "")};
      cplx t = c_mul(b, r, sum);
      lanes[lane] = make_complex(b, rt, t.re, t.im);
      continue;
    }
    default: {
      cplx t = c_mul(b, fprime, dz);
      lanes[lane] = make_complex(b, rt, t.re, t.im);
    }
    }
  }
  ad_set_shadow(fc, call, ad_pack(fc, rt, lanes));
  return 0;
}

static const cfn_data cf_exp = {CF_EXP, "cexp", NULL},
                      cf_sin = {CF_SIN, "csin", "ccos"},
                      cf_cos = {CF_COS, "ccos", "csin"},
                      cf_sinh = {CF_SINH, "csinh", "ccosh"},
                      cf_cosh = {CF_COSH, "ccosh", "csinh"},
                      cf_tan = {CF_TAN, "ctan", NULL},
                      cf_tanh = {CF_TANH, "ctanh", NULL},
                      cf_sqrt = {CF_SQRT, "csqrt", NULL},
                      cf_log = {CF_LOG, "clog", NULL},
                      cf_pow = {CF_POW, "cpow", "clog"},
                      cf_abs = {CF_ABS, "cabs", NULL},
                      cf_arg = {CF_ARG, "carg", NULL};

static const complex_rule_data mul_d = {0, "__muldc3"}, mul_s = {0, "__mulsc3"},
                                mul_x = {0, "__mulxc3"}, div_d = {1, "__muldc3"},
                                div_s = {1, "__mulsc3"}, div_x = {1, "__mulxc3"};

#define COMPLEX(n, data) {n, emit_complex, &data, 0, 0, 0}
static const ad_call_rule complex_rules[] = {
    COMPLEX("__muldc3", mul_d), COMPLEX("__mulsc3", mul_s),
    COMPLEX("__mulxc3", mul_x), COMPLEX("__divdc3", div_d),
    COMPLEX("__divsc3", div_s), COMPLEX("__divxc3", div_x),
#define CFN(n, data) {n, emit_complex_fn, &data, 0, 0, 0}
#define CFN3(n, data) CFN(n, data), CFN(n "f", data), CFN(n "l", data)
    CFN3("cexp", cf_exp),   CFN3("csin", cf_sin),   CFN3("ccos", cf_cos),
    CFN3("csinh", cf_sinh), CFN3("ccosh", cf_cosh), CFN3("ctan", cf_tan),
    CFN3("ctanh", cf_tanh), CFN3("csqrt", cf_sqrt), CFN3("clog", cf_log),
    CFN3("cpow", cf_pow),   CFN3("cabs", cf_abs),   CFN3("carg", cf_arg),
};

const ad_call_rule *ad_complex_lookup(const char *name) {
  for (size_t i = 0; i < sizeof complex_rules / sizeof *complex_rules; i++)
    if (strcmp(name, complex_rules[i].name) == 0)
      return &complex_rules[i];
  return NULL;
}
