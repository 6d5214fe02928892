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
 * under its convention (helpers.c), so NaN and infinity follow C's rules.
 *
 * And the double-precision complex functions of <complex.h>, called as
 * {double, double} f(double re, double im) on x86-64 and AArch64:
 *   cexp' = cexp   csin' = ccos   ccos' = -csin   csinh' = ccosh
 *   ccosh' = csinh   ctan' = 1 + r^2   ctanh' = 1 - r^2
 *   csqrt' = 1 / (2 r)   clog' = 1 / z
 *   cpow(z, w) = r:  dr = r (dw log z + w dz / z)
 *   cabs: (re dre + im dim) / |z|   carg: (re dim - im dre) / |z|^2
 * (float complex travels as <2 x float>, long double complex in memory:
 * those have no rule yet and are reported.)
 */
#include <string.h>

#include "ad/engine.h"

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
  LLVMValueRef lanes[64];
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
  const char *partner; /* the function giving the derivative, or NULL */
} cfn_data;

/* Calls the <complex.h> function `name` on z, declared like `call`'s callee
 * (same convention; a 2-argument {double, double} signature). */
static cplx call_partner(ad_fn_ctx *fc, LLVMValueRef call, const char *name, cplx z) {
  LLVMTypeRef d = LLVMDoubleTypeInContext(fc->mc->llctx);
  LLVMTypeRef params[2] = {d, d}, fields[2] = {d, d};
  LLVMTypeRef ft = LLVMFunctionType(LLVMStructTypeInContext(fc->mc->llctx, fields, 2, 0),
                                    params, 2, 0);
  LLVMValueRef f = ad_get_or_insert_helper(fc->mc->mod, call, name, ft);
  LLVMValueRef args[2] = {z.re, z.im};
  return c_parts(fc->b, ad_call_helper(fc->b, f, args, 2, ""));
}

static int emit_complex_fn(ad_fn_ctx *fc, const ad_call_rule *rule,
                           LLVMValueRef call, LLVMValueRef clone) {
  if (!ad_is_active(fc, call))
    return 0;
  const cfn_data *d = rule->data;
  LLVMBuilderRef b = fc->b;
  unsigned want = d->op == CF_POW ? 4 : 2;
  LLVMTypeRef dbl = LLVMDoubleTypeInContext(fc->mc->llctx);
  if (LLVMGetNumArgOperands(call) != want ||
      LLVMTypeOf(LLVMGetOperand(call, 0)) != dbl)
    return ad_fail(fc->mc, call,
                   "no forward-mode rule for %s with this signature (only the "
                   "double-precision form, complex passed as two doubles)",
                   rule->name);
  cplx z = {ad_primal(fc, LLVMGetOperand(call, 0)), ad_primal(fc, LLVMGetOperand(call, 1))};
  LLVMValueRef sh[4];
  for (unsigned k = 0; k < want; k++)
    sh[k] = ad_shadow_value(fc, LLVMGetOperand(call, k));
  LLVMTypeRef rt = LLVMTypeOf(call);
  LLVMValueRef one = LLVMConstReal(dbl, 1.0), zero = LLVMConstReal(dbl, 0.0);
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
    fprime = call_partner(fc, call, d->partner, z);
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
    cplx two_r = {LLVMBuildFMul(b, r.re, LLVMConstReal(dbl, 2.0), ""),
                  LLVMBuildFMul(b, r.im, LLVMConstReal(dbl, 2.0), "")};
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
    log_z = call_partner(fc, call, d->partner, z);
    w.re = ad_primal(fc, LLVMGetOperand(call, 2));
    w.im = ad_primal(fc, LLVMGetOperand(call, 3));
  }
  LLVMValueRef lanes[64];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    cplx dz = {ad_lane(fc, sh[0], lane), ad_lane(fc, sh[1], lane)};
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
      cplx dw = {ad_lane(fc, sh[2], lane), ad_lane(fc, sh[3], lane)};
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

static const cfn_data cf_exp = {CF_EXP, NULL}, cf_sin = {CF_SIN, "ccos"},
                      cf_cos = {CF_COS, "csin"}, cf_sinh = {CF_SINH, "ccosh"},
                      cf_cosh = {CF_COSH, "csinh"}, cf_tan = {CF_TAN, NULL},
                      cf_tanh = {CF_TANH, NULL}, cf_sqrt = {CF_SQRT, NULL},
                      cf_log = {CF_LOG, NULL}, cf_pow = {CF_POW, "clog"},
                      cf_abs = {CF_ABS, NULL}, cf_arg = {CF_ARG, NULL};

static const complex_rule_data mul_d = {0, "__muldc3"}, mul_s = {0, "__mulsc3"},
                                mul_x = {0, "__mulxc3"}, div_d = {1, "__muldc3"},
                                div_s = {1, "__mulsc3"}, div_x = {1, "__mulxc3"};

#define COMPLEX(n, data) {n, emit_complex, &data, 0, 0, 0}
static const ad_call_rule complex_rules[] = {
    COMPLEX("__muldc3", mul_d), COMPLEX("__mulsc3", mul_s),
    COMPLEX("__mulxc3", mul_x), COMPLEX("__divdc3", div_d),
    COMPLEX("__divsc3", div_s), COMPLEX("__divxc3", div_x),
#define CFN(n, data) {n, emit_complex_fn, &data, 0, 0, 0}
    CFN("cexp", cf_exp),   CFN("csin", cf_sin),   CFN("ccos", cf_cos),
    CFN("csinh", cf_sinh), CFN("ccosh", cf_cosh), CFN("ctan", cf_tan),
    CFN("ctanh", cf_tanh), CFN("csqrt", cf_sqrt), CFN("clog", cf_log),
    CFN("cpow", cf_pow),   CFN("cabs", cf_abs),   CFN("carg", cf_arg),
};

const ad_call_rule *ad_complex_lookup(const char *name) {
  for (size_t i = 0; i < sizeof complex_rules / sizeof *complex_rules; i++)
    if (strcmp(name, complex_rules[i].name) == 0)
      return &complex_rules[i];
  return NULL;
}
