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
 * And the complex functions of <complex.h>, as rows (cfn_data: a
 * holomorphic function's derivative f'(z), or cabs, carg and cpow's
 * tangent), called as
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
#include "ad/rules/rules.h"
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

/* What a row's derivative is computed from: the primal operands z (and w,
 * cpow's exponent), the result r, and the partner's value at z. */
typedef struct cfn_eval {
  LLVMBuilderRef b;
  LLVMTypeRef real;
  cplx z, w, r, partner;
  LLVMValueRef result; /* the primal result, as the call returns it */
} cfn_eval;

/* One row of the <complex.h> table.  A holomorphic function states its
 * derivative f'(z) (`factor`; the tangent is f'(z) dz); cabs, carg and cpow
 * state their tangent from dz and dw (`tangent`). */
typedef struct cfn_data {
  const char *base;          /* the double form's name: "csin" */
  const char *partner;       /* the function called at z for the derivative */
  unsigned char two_operands; /* cpow(z, w); others take z alone */
  unsigned char real_result;  /* cabs, carg: the result is not complex */
  cplx (*factor)(const cfn_eval *e);
  LLVMValueRef (*tangent)(const cfn_eval *e, cplx dz, cplx dw, LLVMTypeRef rt);
} cfn_data;

static cplx unit(const cfn_eval *e) {
  cplx one = {LLVMConstReal(e->real, 1.0), LLVMConstReal(e->real, 0.0)};
  return one;
}
static cplx factor_result(const cfn_eval *e) { return e->r; }
static cplx factor_partner(const cfn_eval *e) { return e->partner; }
static cplx factor_neg_partner(const cfn_eval *e) {
  cplx n = {LLVMBuildFNeg(e->b, e->partner.re, ""),
            LLVMBuildFNeg(e->b, e->partner.im, "")};
  return n;
}
static cplx factor_one_plus_r2(const cfn_eval *e) { /* ctan */
  cplx sq = c_mul(e->b, e->r, e->r);
  cplx f = {LLVMBuildFAdd(e->b, unit(e).re, sq.re, ""), sq.im};
  return f;
}
static cplx factor_one_minus_r2(const cfn_eval *e) { /* ctanh */
  cplx sq = c_mul(e->b, e->r, e->r);
  cplx f = {LLVMBuildFSub(e->b, unit(e).re, sq.re, ""),
            LLVMBuildFNeg(e->b, sq.im, "")};
  return f;
}
static cplx factor_recip_2r(const cfn_eval *e) { /* csqrt */
  cplx two_r = {LLVMBuildFMul(e->b, e->r.re, LLVMConstReal(e->real, 2.0), ""),
                LLVMBuildFMul(e->b, e->r.im, LLVMConstReal(e->real, 2.0), "")};
  return c_div(e->b, unit(e), two_r);
}
static cplx factor_recip_z(const cfn_eval *e) { /* clog */
  return c_div(e->b, unit(e), e->z);
}

/* cabs: (re dre + im dim) / |z| */
static LLVMValueRef tangent_abs(const cfn_eval *e, cplx dz, cplx dw,
                                LLVMTypeRef rt) {
  (void)dw, (void)rt;
  LLVMBuilderRef b = e->b;
  LLVMValueRef dot = LLVMBuildFAdd(b, LLVMBuildFMul(b, e->z.re, dz.re, ""),
                                   LLVMBuildFMul(b, e->z.im, dz.im, ""), "");
  return LLVMBuildFDiv(b, dot, e->result, "");
}
/* carg: (re dim - im dre) / |z|^2 */
static LLVMValueRef tangent_arg(const cfn_eval *e, cplx dz, cplx dw,
                                LLVMTypeRef rt) {
  (void)dw, (void)rt;
  LLVMBuilderRef b = e->b;
  cplx z = e->z;
  LLVMValueRef cross = LLVMBuildFSub(b, LLVMBuildFMul(b, z.re, dz.im, ""),
                                     LLVMBuildFMul(b, z.im, dz.re, ""), "");
  LLVMValueRef n2 = LLVMBuildFAdd(b, LLVMBuildFMul(b, z.re, z.re, ""),
                                  LLVMBuildFMul(b, z.im, z.im, ""), "");
  return LLVMBuildFDiv(b, cross, n2, "");
}
/* cpow(z, w) = r: dr = r (dw log z + w dz / z); the partner is clog */
static LLVMValueRef tangent_pow(const cfn_eval *e, cplx dz, cplx dw,
                                LLVMTypeRef rt) {
  LLVMBuilderRef b = e->b;
  cplx a = c_mul(b, dw, e->partner), q = c_mul(b, e->w, c_div(b, dz, e->z));
  cplx sum = {LLVMBuildFAdd(b, a.re, q.re, ""),
              LLVMBuildFAdd(b, a.im, q.im, "")};
  cplx t = c_mul(b, e->r, sum);
  return make_complex(b, rt, t.re, t.im);
}

/* The table: one row per function (its f and l forms share it). */
static const cfn_data cf_exp = {.base = "cexp", .factor = factor_result};
static const cfn_data cf_sin = {
    .base = "csin", .partner = "ccos", .factor = factor_partner};
static const cfn_data cf_cos = {
    .base = "ccos", .partner = "csin", .factor = factor_neg_partner};
static const cfn_data cf_sinh = {
    .base = "csinh", .partner = "ccosh", .factor = factor_partner};
static const cfn_data cf_cosh = {
    .base = "ccosh", .partner = "csinh", .factor = factor_partner};
static const cfn_data cf_tan = {.base = "ctan", .factor = factor_one_plus_r2};
static const cfn_data cf_tanh = {.base = "ctanh",
                                 .factor = factor_one_minus_r2};
static const cfn_data cf_sqrt = {.base = "csqrt", .factor = factor_recip_2r};
static const cfn_data cf_log = {.base = "clog", .factor = factor_recip_z};
static const cfn_data cf_pow = {.base = "cpow",
                                .partner = "clog",
                                .tangent = tangent_pow,
                                .two_operands = 1};
static const cfn_data cf_abs = {
    .base = "cabs", .tangent = tangent_abs, .real_result = 1};
static const cfn_data cf_arg = {
    .base = "carg", .tangent = tangent_arg, .real_result = 1};

/* The call's form, or the refusal naming `mode` when its arguments are not
 * complex numbers this table reads. */
static int cfn_check_form(ad_fn_ctx *fc, const ad_call_rule *rule,
                          LLVMValueRef call, const char *mode, cfn_form *form) {
  const cfn_data *d = rule->data;
  if (LLVMGetNumArgOperands(call) < 1 ||
      cfn_form_of(call, d->two_operands ? 2 : 1, form))
    return ad_fail(fc->mc, call,
                   "no %s rule for %s with this signature (a complex "
                   "argument must be two floating-point values or one pair; "
                   "one passed in memory is not supported)",
                   mode, rule->name);
  return 0;
}

/* What both modes read before a row is applied: z, w, the result r (its
 * parts taken from `result_parts`: the forward pass's clone, the reverse's
 * recorded result) and the partner's value at z. */
static int cfn_begin(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
                     const cfn_form *form, LLVMValueRef *args,
                     LLVMValueRef result, LLVMValueRef result_parts,
                     cfn_eval *e) {
  const cfn_data *d = rule->data;
  LLVMBuilderRef b = fc->b;
  *e = (cfn_eval){.b = b, .real = form->real,
                  .z = cfn_operand(b, form, args, 0), .result = result};
  if (!d->real_result)
    e->r = c_parts(b, result_parts);
  if (d->partner) {
    /* cexpf's partner is ccosf: the partner's base name, this one's suffix. */
    char partner[32];
    snprintf(partner, sizeof partner, "%s%s", d->partner,
             rule->name + strlen(d->base));
    e->partner = call_partner(fc, call, form, partner, e->z);
    if (!e->partner.re)
      return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  if (d->two_operands)
    e->w = cfn_operand(b, form, args, 1);
  return 0;
}

static int emit_complex_fn(ad_fn_ctx *fc, const ad_call_rule *rule,
                           LLVMValueRef call, LLVMValueRef clone) {
  if (!ad_is_active(fc, call))
    return 0;
  const cfn_data *d = rule->data;
  LLVMBuilderRef b = fc->b;
  cfn_form form;
  if (cfn_check_form(fc, rule, call, "forward-mode", &form))
    return -1;
  unsigned nargs = LLVMGetNumArgOperands(call);
  LLVMValueRef pv[4], sh[4];
  for (unsigned k = 0; k < nargs; k++) {
    pv[k] = ad_primal(fc, LLVMGetOperand(call, k));
    sh[k] = ad_shadow_value(fc, LLVMGetOperand(call, k));
  }
  cfn_eval e;
  if (cfn_begin(fc, rule, call, &form, pv, ad_primal(fc, call), clone, &e))
    return -1;
  LLVMTypeRef rt = LLVMTypeOf(call);
  /* f'(z), computed once for every lane */
  cplx fprime = {NULL, NULL};
  if (d->factor)
    fprime = d->factor(&e);
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef lane_sh[4];
    for (unsigned k = 0; k < nargs; k++)
      lane_sh[k] = ad_lane(fc, sh[k], lane);
    cplx dz = cfn_operand(b, &form, lane_sh, 0), dw = {NULL, NULL};
    if (d->two_operands)
      dw = cfn_operand(b, &form, lane_sh, 1);
    if (d->tangent) {
      lanes[lane] = d->tangent(&e, dz, dw, rt);
    } else {
      cplx t = c_mul(b, fprime, dz);
      lanes[lane] = make_complex(b, rt, t.re, t.im);
    }
  }
  ad_set_shadow(fc, call, ad_pack(fc, rt, lanes));
  return 0;
}

/* ---- reverse mode reads the same rows ---- */

static cplx c_conj(LLVMBuilderRef b, cplx z) {
  cplx r = {z.re, LLVMBuildFNeg(b, z.im, "")};
  return r;
}

/* <a, b> over the real and imaginary parts */
static LLVMValueRef c_dot(LLVMBuilderRef b, cplx x, cplx y) {
  return LLVMBuildFAdd(b, LLVMBuildFMul(b, x.re, y.re, ""),
                       LLVMBuildFMul(b, x.im, y.im, ""), "");
}

/* The adjoints of a product/quotient helper's four scalar arguments:
 *   q = z w:  z' += conj(w) q',  w' += conj(z) q'
 *   q = z/w:  z' += q' / conj(w),  w' += -conj(q) z' */
static int complex_helper_adjoints(ad_fn_ctx *fc, const complex_rule_data *d,
                                   LLVMValueRef *args, LLVMValueRef result,
                                   LLVMValueRef dres, LLVMValueRef *dargs) {
  LLVMBuilderRef b = fc->b;
  cplx z = {args[0], args[1]}, w = {args[2], args[3]};
  cplx dq = c_parts(b, dres), dz, dw;
  if (!d->divide) {
    dz = c_mul(b, c_conj(b, w), dq);
    dw = c_mul(b, c_conj(b, z), dq);
  } else {
    cplx q = c_parts(b, result);
    dz = c_div(b, dq, c_conj(b, w));
    cplx t = c_mul(b, c_conj(b, q), dz);
    dw = (cplx){LLVMBuildFNeg(b, t.re, ""), LLVMBuildFNeg(b, t.im, "")};
  }
  dargs[0] = dz.re, dargs[1] = dz.im, dargs[2] = dw.re, dargs[3] = dw.im;
  return 0;
}

int ad_complex_is_rule(const ad_call_rule *rule) {
  return rule && (rule->emit == emit_complex || rule->emit == emit_complex_fn);
}

/*
 * The vector-Jacobian product of a complex row.  A holomorphic row's
 * Jacobian is multiplication by f'(z), so z' += conj(f'(z)) r'; a row
 * stating its tangent (cabs, carg, cpow) is linear in (dz, dw), so each
 * real input's column is the tangent at that unit input, and the input's
 * adjoint is the column's dot product with r'.
 */
int ad_complex_adjoints(ad_fn_ctx *fc, const ad_call_rule *rule,
                        LLVMValueRef call, LLVMValueRef *args,
                        LLVMValueRef result, LLVMValueRef dres,
                        LLVMValueRef *dargs) {
  unsigned nargs = LLVMGetNumArgOperands(call);
  for (unsigned k = 0; k < nargs && k < 4; k++)
    dargs[k] = NULL;
  if (rule->emit == emit_complex) {
    if (nargs != 4)
      return ad_fail(fc->mc, call, "%s: expected 4 arguments", rule->name);
    return complex_helper_adjoints(fc, rule->data, args, result, dres, dargs);
  }
  const cfn_data *d = rule->data;
  LLVMBuilderRef b = fc->b;
  unsigned nops = d->two_operands ? 2 : 1;
  cfn_form form;
  cfn_eval e;
  if (cfn_check_form(fc, rule, call, "reverse-mode", &form) ||
      cfn_begin(fc, rule, call, &form, args, result, result, &e))
    return -1;
  LLVMTypeRef rt = LLVMTypeOf(call);
  cplx adj[2];
  if (d->factor) {
    adj[0] = c_mul(b, c_conj(b, d->factor(&e)), c_parts(b, dres));
  } else {
    LLVMValueRef one = LLVMConstReal(form.real, 1.0);
    LLVMValueRef zero = LLVMConstReal(form.real, 0.0);
    cplx units[2] = {{one, zero}, {zero, one}}, none = {zero, zero};
    for (unsigned op = 0; op < nops; op++) {
      LLVMValueRef parts[2];
      for (unsigned j = 0; j < 2; j++) {
        cplx dz = op == 0 ? units[j] : none, dw = op == 1 ? units[j] : none;
        LLVMValueRef col = d->tangent(&e, dz, dw, rt);
        parts[j] = d->real_result ? LLVMBuildFMul(b, col, dres, "")
                                  : c_dot(b, c_parts(b, col), c_parts(b, dres));
      }
      adj[op] = (cplx){parts[0], parts[1]};
    }
  }
  for (unsigned op = 0; op < nops; op++) {
    if (form.split) {
      dargs[2 * op] = adj[op].re;
      dargs[2 * op + 1] = adj[op].im;
    } else {
      dargs[op] = make_complex(b, form.params[0], adj[op].re, adj[op].im);
    }
  }
  return 0;
}

static const complex_rule_data mul_d = {.multiply = "__muldc3"},
                               mul_s = {.multiply = "__mulsc3"},
                               mul_x = {.multiply = "__mulxc3"},
                               div_d = {.divide = 1, .multiply = "__muldc3"},
                               div_s = {.divide = 1, .multiply = "__mulsc3"},
                               div_x = {.divide = 1, .multiply = "__mulxc3"};

#define COMPLEX(n, d) {.name = n, .emit = emit_complex, .data = &d}
static const ad_call_rule complex_rules[] = {
    COMPLEX("__muldc3", mul_d), COMPLEX("__mulsc3", mul_s),
    COMPLEX("__mulxc3", mul_x), COMPLEX("__divdc3", div_d),
    COMPLEX("__divsc3", div_s), COMPLEX("__divxc3", div_x),
#define CFN(n, d) {.name = n, .emit = emit_complex_fn, .data = &d}
#define CFN3(n, data) CFN(n, data), CFN(n "f", data), CFN(n "l", data)
    CFN3("cexp", cf_exp),   CFN3("csin", cf_sin),   CFN3("ccos", cf_cos),
    CFN3("csinh", cf_sinh), CFN3("ccosh", cf_cosh), CFN3("ctan", cf_tan),
    CFN3("ctanh", cf_tanh), CFN3("csqrt", cf_sqrt), CFN3("clog", cf_log),
    CFN3("cpow", cf_pow),   CFN3("cabs", cf_abs),   CFN3("carg", cf_arg),
};

static const ad_call_rule *complex_lookup(const char *name) {
  for (size_t i = 0; i < sizeof complex_rules / sizeof *complex_rules; i++)
    if (strcmp(name, complex_rules[i].name) == 0)
      return &complex_rules[i];
  return NULL;
}

const ad_rule_family ad_complex_family = {
    .name = "complex",
    .lookup = complex_lookup,
};
