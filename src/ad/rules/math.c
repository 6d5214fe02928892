/*
 * Math call rules (libm and LLVM intrinsics) as data.
 *
 * Each entry names the function in its double, float and long double libm
 * spellings and its LLVM intrinsic base name, and gives, per argument, the
 * partial derivative as a tiny postfix program.  The tangent of the call is
 * sum_k partial_k * dx_k over the active float arguments.  Adding a function
 * is one entry.
 *
 * Program tokens (space separated, evaluated on a stack, all in the call's
 * float type T):
 *   x y z      the call's arguments 0, 1, 2 (integers stay integers)
 *   r          the call's result
 *   <number>   a constant of type T
 *   unary:     neg cos sin exp log sqrt trunc rint digamma sq recip itof dec
 *              (sq: v*v, recip: 1/v, itof: integer -> T, dec: integer - 1)
 *   binary:    + - * / pow copysign ldexp powi lt ge nz
 *              (lt, ge: comparisons as 1.0 / 0.0; `a c nz`: a where c is
 *              nonzero, else 0, a select, so an inf or NaN a is dropped)
 * Functions that write through pointers (sincos, frexp, modf) have custom
 * emitters at the end of this file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"

typedef struct math_rule {
  const char *names[4]; /* double, float, long double, "llvm.<base>" */
  unsigned char arity;
  unsigned char int_args; /* bit k: argument k is an integer */
  const char *partial[3];  /* d result / d argument k, postfix */
  const char *math;
} math_rule;

#define L4(d, f, l, i) {d, f, l, i}
static const math_rule math_table[] = {
    /* d sin x = cos x */
    {L4("sin", "sinf", "sinl", "llvm.sin"), 1, 0, {"x cos"}, "cos x"},
    /* d cos x = -sin x */
    {L4("cos", "cosf", "cosl", "llvm.cos"), 1, 0, {"x sin neg"}, "-sin x"},
    /* d tan x = 1 + tan^2 x */
    {L4("tan", "tanf", "tanl", "llvm.tan"), 1, 0, {"1 r sq +"}, "1 + r^2"},
    /* d asin x = 1 / sqrt(1 - x^2) */
    {L4("asin", "asinf", "asinl", "llvm.asin"), 1, 0, {"1 x sq - sqrt recip"},
     "1/sqrt(1-x^2)"},
    /* d acos x = -1 / sqrt(1 - x^2) */
    {L4("acos", "acosf", "acosl", "llvm.acos"), 1, 0,
     {"1 x sq - sqrt recip neg"}, "-1/sqrt(1-x^2)"},
    /* d atan x = 1 / (1 + x^2) */
    {L4("atan", "atanf", "atanl", "llvm.atan"), 1, 0, {"1 x sq + recip"},
     "1/(1+x^2)"},
    /* atan2(y, x), C order: d/dy = x/(x^2+y^2), d/dx = -y/(x^2+y^2)
     * (here x names argument 0 and y argument 1) */
    {L4("atan2", "atan2f", "atan2l", "llvm.atan2"), 2, 0,
     {"y x sq y sq + /", "x neg x sq y sq + /"}, "b/(a^2+b^2), -a/(a^2+b^2)"},
    /* d sinh x = cosh x = (e^x + e^-x) / 2 */
    {L4("sinh", "sinhf", "sinhl", "llvm.sinh"), 1, 0,
     {"x exp x neg exp + 0.5 *"}, "cosh x"},
    /* d cosh x = sinh x = (e^x - e^-x) / 2 */
    {L4("cosh", "coshf", "coshl", "llvm.cosh"), 1, 0,
     {"x exp x neg exp - 0.5 *"}, "sinh x"},
    /* d tanh x = 1 - tanh^2 x */
    {L4("tanh", "tanhf", "tanhl", "llvm.tanh"), 1, 0, {"1 r sq -"}, "1 - r^2"},
    /* d asinh x = 1 / sqrt(x^2 + 1) */
    {L4("asinh", "asinhf", "asinhl", NULL), 1, 0, {"x sq 1 + sqrt recip"},
     "1/sqrt(x^2+1)"},
    /* d acosh x = 1 / sqrt(x^2 - 1) */
    {L4("acosh", "acoshf", "acoshl", NULL), 1, 0, {"x sq 1 - sqrt recip"},
     "1/sqrt(x^2-1)"},
    /* d atanh x = 1 / (1 - x^2) */
    {L4("atanh", "atanhf", "atanhl", NULL), 1, 0, {"1 x sq - recip"},
     "1/(1-x^2)"},
    /* d e^x = e^x */
    {L4("exp", "expf", "expl", "llvm.exp"), 1, 0, {"r"}, "e^x"},
    /* d 2^x = 2^x ln 2 */
    {L4("exp2", "exp2f", "exp2l", "llvm.exp2"), 1, 0,
     {"r 0.69314718055994530942 *"}, "2^x ln2"},
    /* d 10^x = 10^x ln 10 */
    {L4("exp10", "exp10f", "exp10l", "llvm.exp10"), 1, 0,
     {"r 2.30258509299404568402 *"}, "10^x ln10"},
    /* d (e^x - 1) = e^x = r + 1 */
    {L4("expm1", "expm1f", "expm1l", NULL), 1, 0, {"r 1 +"}, "e^x"},
    /* d ln x = 1/x */
    {L4("log", "logf", "logl", "llvm.log"), 1, 0, {"x recip"}, "1/x"},
    /* d log2 x = 1 / (x ln 2) */
    {L4("log2", "log2f", "log2l", "llvm.log2"), 1, 0,
     {"x 0.69314718055994530942 * recip"}, "1/(x ln2)"},
    /* d log10 x = 1 / (x ln 10) */
    {L4("log10", "log10f", "log10l", "llvm.log10"), 1, 0,
     {"x 2.30258509299404568402 * recip"}, "1/(x ln10)"},
    /* d ln(1+x) = 1/(1+x) */
    {L4("log1p", "log1pf", "log1pl", NULL), 1, 0, {"1 x + recip"},
     "1/(1+x)"},
    /* d x^y: dx -> y x^(y-1), dy -> x^y ln x, which is 0 (not 0 * -inf) at
     * x = 0, as in Enzyme (its test ForwardMode/pow_zero.c) */
    {L4("pow", "powf", "powl", "llvm.pow"), 2, 0,
     {"y x y 1 - pow *", "r x log * x nz"}, "y x^(y-1), x^y ln x"},
    /* d x^n (integer n) = n x^(n-1) */
    {L4(NULL, NULL, NULL, "llvm.powi"), 2, 2,
     {"y itof x y dec powi * y itof nz", ""}, "n x^(n-1), and 0 for n = 0"},
    /* d sqrt x = 1 / (2 sqrt x), and 0 at x = 0 as in Enzyme, so a zero
     * tangent stays zero instead of becoming inf * 0 = NaN */
    {L4("sqrt", "sqrtf", "sqrtl", "llvm.sqrt"), 1, 0, {"0.5 r / x nz"},
     "1/(2 sqrt x)"},
    /* d cbrt x = cbrt(x) / (3x) */
    {L4("cbrt", "cbrtf", "cbrtl", NULL), 1, 0, {"r 3 x * /"}, "r/(3x)"},
    /* d hypot(x,y) = (x dx + y dy) / hypot */
    {L4("hypot", "hypotf", "hypotl", NULL), 2, 0, {"x r /", "y r /"},
     "x/r, y/r"},
    /* d |x| = sign x */
    {L4("fabs", "fabsf", "fabsl", "llvm.fabs"), 1, 0, {"1 x copysign"},
     "sign x"},
    /* fmin: the derivative of the argument chosen */
    {L4("fmin", "fminf", "fminl", "llvm.minnum"), 2, 0, {"x y lt", "x y lt 1 - neg"}, "[x<y], [x>=y]"},
    {L4(NULL, NULL, NULL, "llvm.minimum"), 2, 0, {"x y lt", "x y lt 1 - neg"},
     "[x<y], [x>=y]"},
    /* fmax: the derivative of the argument chosen */
    {L4("fmax", "fmaxf", "fmaxl", "llvm.maxnum"), 2, 0, {"x y ge", "x y ge 1 - neg"},
     "[x>=y], [x<y]"},
    {L4(NULL, NULL, NULL, "llvm.maximum"), 2, 0, {"x y ge", "x y ge 1 - neg"},
     "[x>=y], [x<y]"},
    /* fdim(x, y) = x - y where x > y, else +0: d = [x>y] (dx - dy) */
    {L4("fdim", "fdimf", "fdiml", NULL), 2, 0, {"y x lt", "y x lt neg"},
     "[x>y], -[x>y]"},
    /* d fma(a,b,c) = b da + a db + dc */
    {L4("fma", "fmaf", "fmal", "llvm.fma"), 3, 0, {"y", "x", "1"},
     "b, a, 1"},
    {L4(NULL, NULL, NULL, "llvm.fmuladd"), 3, 0, {"y", "x", "1"}, "b, a, 1"},
    /* d copysign(x, y) = sign(x) sign(y) dx */
    {L4("copysign", "copysignf", "copysignl", "llvm.copysign"), 2, 0,
     {"1 x copysign 1 y copysign *", "0"}, "sign x sign y, 0"},
    /* d fmod(x,y) = dx - trunc(x/y) dy */
    {L4("fmod", "fmodf", "fmodl", NULL), 2, 0, {"1", "x y / trunc neg"},
     "1, -trunc(x/y)"},
    /* d remainder(x,y) = dx - rint(x/y) dy */
    {L4("remainder", "remainderf", "remainderl", NULL), 2, 0,
     {"1", "x y / rint neg"}, "1, -rint(x/y)"},
    /* d erf x = 2/sqrt(pi) e^(-x^2) */
    {L4("erf", "erff", "erfl", NULL), 1, 0,
     {"x sq neg exp 1.12837916709551257390 *"}, "2/sqrt(pi) e^-x^2"},
    /* d erfc x = -2/sqrt(pi) e^(-x^2) */
    {L4("erfc", "erfcf", "erfcl", NULL), 1, 0,
     {"x sq neg exp -1.12837916709551257390 *"}, "-2/sqrt(pi) e^-x^2"},
    /* d Gamma(x) = Gamma(x) psi(x) */
    {L4("tgamma", "tgammaf", "tgammal", NULL), 1, 0, {"r x digamma *"},
     "Gamma(x) psi(x)"},
    /* d ln|Gamma(x)| = psi(x) (digamma: recurrence to x >= 12, then the
     * asymptotic series to the x^-14 term) */
    {L4("lgamma", "lgammaf", "lgammal", NULL), 1, 0, {"x digamma"}, "psi(x)"},
    /* d ldexp(x, n) = 2^n dx */
    {L4("ldexp", "ldexpf", "ldexpl", "llvm.ldexp"), 2, 2, {"1 y ldexp", ""},
     "2^n"},
    {L4("scalbn", "scalbnf", "scalbnl", NULL), 2, 2, {"1 y ldexp", ""}, "2^n"},
    /* rounding: piecewise constant, derivative 0 */
    {L4("floor", "floorf", "floorl", "llvm.floor"), 1, 0, {"0"}, "0"},
    /* logb x: the exponent, piecewise constant */
    {L4("logb", "logbf", "logbl", NULL), 1, 0, {"0"}, "0"},
    {L4("ceil", "ceilf", "ceill", "llvm.ceil"), 1, 0, {"0"}, "0"},
    {L4("round", "roundf", "roundl", "llvm.round"), 1, 0, {"0"}, "0"},
    {L4("trunc", "truncf", "truncl", "llvm.trunc"), 1, 0, {"0"}, "0"},
    {L4("rint", "rintf", "rintl", "llvm.rint"), 1, 0, {"0"}, "0"},
    {L4("nearbyint", "nearbyintf", "nearbyintl", "llvm.nearbyint"), 1, 0,
     {"0"}, "0"},
    {L4("roundeven", "roundevenf", "roundevenl", "llvm.roundeven"), 1, 0,
     {"0"}, "0"},
};

size_t ad_math_table_size(void) {
  return sizeof math_table / sizeof *math_table;
}
const char *ad_math_table_name(size_t i, unsigned which) {
  return i < ad_math_table_size() && which < 4 ? math_table[i].names[which]
                                               : NULL;
}
unsigned ad_math_table_arity(size_t i) { return math_table[i].arity; }
unsigned ad_math_table_int_args(size_t i) { return math_table[i].int_args; }

/*
 * The scalar name behind a vector-ABI variant (libmvec, SVML through
 * -fveclib): _ZGV<isa><mask><lanes><params>_<name>, e.g. _ZGVdN4v_sin.
 * Only unmasked variants whose parameters are all vectors ('v') qualify:
 * their derivative is the scalar rule on vector values.  NULL otherwise.
 */
static const char *vector_abi_scalar(const char *name) {
  if (strncmp(name, "_ZGV", 4) != 0 || !name[4] || name[5] != 'N')
    return NULL;
  const char *p = name + 6;
  while (*p >= '0' && *p <= '9')
    p++;
  if (p == name + 6 || *p != 'v')
    return NULL;
  while (*p == 'v')
    p++;
  return *p == '_' && p[1] ? p + 1 : NULL;
}

static const math_rule *find_math(const char *name, unsigned *which) {
  const char *scalar = vector_abi_scalar(name);
  if (scalar)
    name = scalar;
  for (size_t i = 0; i < ad_math_table_size(); i++)
    for (unsigned w = 0; w < 4; w++)
      if (math_table[i].names[w] &&
          ad_name_matches(name, math_table[i].names[w])) {
        *which = w;
        return &math_table[i];
      }
  return NULL;
}

/* ---- the postfix evaluator ---- */

typedef struct eval_ctx {
  ad_fn_ctx *fc;
  LLVMTypeRef t; /* the float type T */
  LLVMValueRef *args;
  unsigned nargs;
  LLVMValueRef result;
  LLVMValueRef stack[16];
  int sp;
} eval_ctx;

static LLVMValueRef unary_intrinsic(eval_ctx *e, const char *base,
                                    LLVMValueRef v) {
  LLVMTypeRef ov[1] = {e->t};
  return ad_call_intrinsic(e->fc, base, ov, 1, &v, 1);
}

static LLVMValueRef digamma(eval_ctx *e, LLVMValueRef v);

/* One token; 0 or -1 (the token is unknown or the stack is wrong). */
static int eval_token(eval_ctx *e, const char *tok, size_t len) {
  LLVMBuilderRef b = e->fc->b;
  char buf[48];
  if (len >= sizeof buf)
    return -1;
  memcpy(buf, tok, len);
  buf[len] = 0;
  LLVMValueRef *st = e->stack;
#define NEED(n)                                                                \
  do {                                                                         \
    if (e->sp < (n))                                                           \
      return -1;                                                               \
  } while (0)
  if (len == 1 && (buf[0] == 'x' || buf[0] == 'y' || buf[0] == 'z')) {
    unsigned k = (unsigned)(buf[0] - 'x');
    if (k >= e->nargs || e->sp >= 16)
      return -1;
    st[e->sp++] = e->args[k];
    return 0;
  }
  if (len == 1 && buf[0] == 'r') {
    if (!e->result || e->sp >= 16)
      return -1;
    st[e->sp++] = e->result;
    return 0;
  }
  char *end;
  (void)strtod(buf, &end);
  if (end != buf && *end == 0) {
    if (e->sp >= 16)
      return -1;
    /* from the decimal text in T's own precision (ln 10 to long double's
     * or fp128's digits, not double's) */
    st[e->sp++] = LLVMConstRealOfStringAndSize(e->t, buf, (unsigned)len);
    return 0;
  }
  static const struct {
    const char *tok, *intrinsic;
  } unary_intrinsics[] = {{"cos", "llvm.cos"},     {"sin", "llvm.sin"},
                          {"exp", "llvm.exp"},     {"log", "llvm.log"},
                          {"sqrt", "llvm.sqrt"},   {"trunc", "llvm.trunc"},
                          {"rint", "llvm.rint"}};
  for (size_t i = 0; i < sizeof unary_intrinsics / sizeof *unary_intrinsics;
       i++)
    if (strcmp(buf, unary_intrinsics[i].tok) == 0) {
      NEED(1);
      st[e->sp - 1] =
          unary_intrinsic(e, unary_intrinsics[i].intrinsic, st[e->sp - 1]);
      return st[e->sp - 1] ? 0 : -1;
    }
  if (strcmp(buf, "neg") == 0) {
    NEED(1);
    st[e->sp - 1] = LLVMBuildFNeg(b, st[e->sp - 1], "");
    return 0;
  }
  if (strcmp(buf, "sq") == 0) {
    NEED(1);
    st[e->sp - 1] = LLVMBuildFMul(b, st[e->sp - 1], st[e->sp - 1], "");
    return 0;
  }
  if (strcmp(buf, "recip") == 0) {
    NEED(1);
    st[e->sp - 1] = LLVMBuildFDiv(b, ad_const_fp(e->t, 1.0), st[e->sp - 1], "");
    return 0;
  }
  if (strcmp(buf, "itof") == 0) {
    NEED(1);
    st[e->sp - 1] = LLVMBuildSIToFP(b, st[e->sp - 1], e->t, "");
    return 0;
  }
  if (strcmp(buf, "dec") == 0) {
    NEED(1);
    LLVMValueRef v = st[e->sp - 1];
    st[e->sp - 1] = LLVMBuildSub(b, v, LLVMConstInt(LLVMTypeOf(v), 1, 0), "");
    return 0;
  }
  if (strcmp(buf, "digamma") == 0) {
    NEED(1);
    st[e->sp - 1] = digamma(e, st[e->sp - 1]);
    return st[e->sp - 1] ? 0 : -1;
  }
  NEED(2);
  LLVMValueRef l = st[e->sp - 2], r = st[e->sp - 1], v = NULL;
  if (strcmp(buf, "+") == 0)
    v = LLVMBuildFAdd(b, l, r, "");
  else if (strcmp(buf, "-") == 0)
    v = LLVMBuildFSub(b, l, r, "");
  else if (strcmp(buf, "*") == 0)
    v = LLVMBuildFMul(b, l, r, "");
  else if (strcmp(buf, "/") == 0)
    v = LLVMBuildFDiv(b, l, r, "");
  else if (strcmp(buf, "nz") == 0)
    v = LLVMBuildSelect(
        b, LLVMBuildFCmp(b, LLVMRealUNE, r, LLVMConstNull(LLVMTypeOf(r)), ""),
        l, LLVMConstNull(LLVMTypeOf(l)), "");
  else if (strcmp(buf, "lt") == 0 || strcmp(buf, "ge") == 0)
    v = LLVMBuildUIToFP(
        b,
        LLVMBuildFCmp(b, buf[0] == 'l' ? LLVMRealOLT : LLVMRealOGE, l, r, ""),
        e->t, "");
  else if (strcmp(buf, "pow") == 0 || strcmp(buf, "copysign") == 0) {
    LLVMTypeRef ov[1] = {e->t};
    LLVMValueRef a2[2] = {l, r};
    v = ad_call_intrinsic(e->fc, buf[0] == 'p' ? "llvm.pow" : "llvm.copysign",
                          ov, 1, a2, 2);
  } else if (strcmp(buf, "ldexp") == 0 || strcmp(buf, "powi") == 0) {
    LLVMTypeRef ov[2] = {e->t, LLVMTypeOf(r)};
    LLVMValueRef a2[2] = {l, r};
    v = ad_call_intrinsic(e->fc, buf[0] == 'l' ? "llvm.ldexp" : "llvm.powi",
                          ov, 2, a2, 2);
  } else
    return -1;
  if (!v)
    return -1;
  e->sp--;
  st[e->sp - 1] = v;
  return 0;
#undef NEED
}

/* The next whitespace-separated token of a rule program at *p (advancing
 * *p), or NULL at the end. */
static const char *next_token(const char **p, size_t *len) {
  while (**p == ' ' || **p == '\n')
    (*p)++;
  if (!**p)
    return NULL;
  const char *s = *p;
  while (**p && **p != ' ' && **p != '\n')
    (*p)++;
  *len = (size_t)(*p - s);
  return s;
}

static LLVMValueRef eval_program(eval_ctx *e, const char *prog) {
  e->sp = 0;
  const char *p = prog, *s;
  size_t len;
  while ((s = next_token(&p, &len))) {
    if (eval_token(e, s, len) != 0)
      return NULL;
  }
  return e->sp == 1 ? e->stack[0] : NULL;
}

/* psi(x): recurrence psi(x) = psi(x+1) - 1/x up to x >= 12, then the
 * asymptotic series ln x - 1/2x - sum_k B_2k / (2k x^2k) to k = 7, which is
 * accurate to x86_fp80 precision there.  Built once per float type as an
 * internal function. */
static LLVMValueRef digamma_function(ad_module_ctx *mc, LLVMTypeRef t) {
  char name[64];
  char *tn = LLVMPrintTypeToString(t);
  snprintf(name, sizeof name, "tanjit.digamma.%s", tn);
  LLVMDisposeMessage(tn);
  LLVMValueRef fn = LLVMGetNamedFunction(mc->mod, name);
  if (fn)
    return fn;
  LLVMTypeRef ft = LLVMFunctionType(t, &t, 1, 0);
  fn = LLVMAddFunction(mc->mod, name, ft);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMContextRef c = mc->llctx;
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fn, "loop");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c, fn, "body");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMValueRef x = LLVMGetParam(fn, 0);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef v = LLVMBuildPhi(b, t, "v"), acc = LLVMBuildPhi(b, t, "acc");
  LLVMValueRef small = LLVMBuildAnd(
      b, LLVMBuildFCmp(b, LLVMRealOLT, v, LLVMConstReal(t, 12.0), ""),
      LLVMBuildFCmp(b, LLVMRealOGT, v, LLVMConstReal(t, -1e6), ""), "");
  LLVMBuildCondBr(b, small, body, done);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef acc1 =
      LLVMBuildFSub(b, acc, LLVMBuildFDiv(b, LLVMConstReal(t, 1.0), v, ""), "");
  LLVMValueRef v1 = LLVMBuildFAdd(b, v, LLVMConstReal(t, 1.0), "");
  LLVMBuildBr(b, loop);
  LLVMValueRef iv[2] = {x, v1}, ia[2] = {LLVMConstReal(t, 0.0), acc1};
  LLVMBasicBlockRef ib[2] = {entry, body};
  LLVMAddIncoming(v, iv, ib, 2);
  LLVMAddIncoming(acc, ia, ib, 2);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMValueRef inv = LLVMBuildFDiv(b, LLVMConstReal(t, 1.0), v, "");
  LLVMValueRef inv2 = LLVMBuildFMul(b, inv, inv, "");
  /* sum_k (-1)^(k+1) |B_2k| / (2k x^2k), k = 1..7, by Horner in 1/x^2;
   * from x >= 12 the first term left out is below 3e-18 */
  /* as fractions, folded in T's precision */
  static const double bernoulli_terms[][2] = {{1, 12},  {1, 120}, {1, 252},
                                              {1, 240}, {1, 132}, {691, 32760},
                                              {1, 12}};
  const int nterms = (int)(sizeof bernoulli_terms / sizeof *bernoulli_terms);
#define TERM(k)                                                                \
  LLVMBuildFDiv(b, LLVMConstReal(t, bernoulli_terms[k][0]),                    \
                LLVMConstReal(t, bernoulli_terms[k][1]), "")
  LLVMValueRef series = TERM(nterms - 1);
  for (int k = nterms - 2; k >= 0; k--)
    series = LLVMBuildFSub(b, TERM(k), LLVMBuildFMul(b, inv2, series, ""), "");
#undef TERM
  series = LLVMBuildFMul(b, inv2, series, "");
  unsigned id = LLVMLookupIntrinsicID("llvm.log", 8);
  LLVMValueRef logd = LLVMGetIntrinsicDeclaration(mc->mod, id, &t, 1);
  LLVMValueRef lg =
      LLVMBuildCall2(b, LLVMIntrinsicGetType(c, id, &t, 1), logd, &v, 1, "");
  LLVMValueRef res = LLVMBuildFSub(
      b, LLVMBuildFAdd(b, acc, lg, ""),
      LLVMBuildFAdd(b, LLVMBuildFMul(b, LLVMConstReal(t, 0.5), inv, ""), series,
                    ""),
      "");
  /* below -1e6 the recurrence is too long and the series does not apply */
  LLVMValueRef bad = LLVMBuildFCmp(b, LLVMRealOLE, v, LLVMConstReal(t, -1e6), "");
  res = LLVMBuildSelect(b, bad, LLVMConstReal(t, __builtin_nan("")), res, "");
  LLVMBuildRet(b, res);
  LLVMDisposeBuilder(b);
  return fn;
}

static LLVMValueRef digamma(eval_ctx *e, LLVMValueRef v) {
  if (LLVMGetTypeKind(e->t) == LLVMVectorTypeKind)
    return NULL;
  LLVMValueRef fn = digamma_function(e->fc->mc, e->t);
  return LLVMBuildCall2(e->fc->b, LLVMGlobalGetValueType(fn), fn, &v, 1, "");
}

/* ---- emitters ---- */

static LLVMTypeRef float_type_of(const math_rule *m, LLVMValueRef call) {
  for (unsigned k = 0; k < m->arity; k++)
    if (!(m->int_args & (1u << k)))
      return LLVMTypeOf(LLVMGetOperand(call, k));
  return LLVMTypeOf(call);
}

/* Functions whose result is one of their arguments (fmin, fmax), by
 * intrinsic base name: partial 0 is an indicator, and the tangent is the
 * chosen argument's, selected rather than weighted, so a NaN or inf tangent
 * of the argument not chosen (sqrt'(0) behind fmax(sqrt(x), eps)) stays out,
 * as in Enzyme. */
static const char *const choosing_rules[] = {"llvm.minnum", "llvm.minimum",
                                             "llvm.maxnum", "llvm.maximum"};

static int rule_chooses(const math_rule *m) {
  for (size_t i = 0; i < sizeof choosing_rules / sizeof *choosing_rules; i++)
    if (m->names[3] && strcmp(m->names[3], choosing_rules[i]) == 0)
      return 1;
  return 0;
}

/* fmin/fmax: select(partial 0 != 0, dx, dy), lane by lane. */
static int emit_choice(ad_fn_ctx *fc, eval_ctx *e, const math_rule *m,
                       LLVMValueRef call, const char *name) {
  LLVMValueRef first = eval_program(e, m->partial[0]);
  if (!first)
    return ad_fail(fc->mc, call,
                   "internal: bad derivative program \"%s\" for %s",
                   m->partial[0], name);
  LLVMValueRef x = LLVMGetOperand(call, 0), y = LLVMGetOperand(call, 1);
  /* C's fmin/fmax return the other argument when one is NaN: a NaN y
   * chooses x (the comparisons alone would choose y). */
  LLVMValueRef py = ad_primal(fc, y);
  LLVMValueRef take_first = LLVMBuildOr(
      fc->b, LLVMBuildFCmp(fc->b, LLVMRealONE, first, LLVMConstNull(e->t), ""),
      LLVMBuildFCmp(fc->b, LLVMRealUNO, py, py, ""), "");
  LLVMValueRef dx = ad_is_active(fc, x) ? ad_shadow_value(fc, x) : NULL;
  LLVMValueRef dy = ad_is_active(fc, y) ? ad_shadow_value(fc, y) : NULL;
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++)
    lanes[lane] = LLVMBuildSelect(
        fc->b, take_first, dx ? ad_lane(fc, dx, lane) : LLVMConstNull(e->t),
        dy ? ad_lane(fc, dy, lane) : LLVMConstNull(e->t), "");
  ad_set_shadow(fc, call, ad_pack(fc, LLVMTypeOf(call), lanes));
  return 0;
}

static int emit_math(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
                     LLVMValueRef clone) {
  (void)rule;
  char buf[256];
  unsigned which;
  const char *name = ad_call_rule_name(fc->mc->engine, call, buf, sizeof buf);
  const math_rule *m = name ? find_math(name, &which) : NULL;
  if (!m)
    return ad_fail(fc->mc, call, "internal: math rule for %s vanished",
                   name ? name : "?");
  if (LLVMGetNumArgOperands(call) != m->arity)
    return ad_fail(fc->mc, call, "call to %s has %u arguments, expected %u",
                   name, LLVMGetNumArgOperands(call), m->arity);
  if (!ad_is_active(fc, call))
    return 0;
  eval_ctx e;
  memset(&e, 0, sizeof e);
  LLVMValueRef args[3];
  ad_term terms[3];
  unsigned nterms = 0;
  e.fc = fc;
  e.t = float_type_of(m, call);
  e.args = args;
  e.nargs = m->arity;
  e.result = clone;
  for (unsigned k = 0; k < m->arity; k++)
    args[k] = ad_primal(fc, LLVMGetOperand(call, k));
  if (rule_chooses(m))
    return emit_choice(fc, &e, m, call, name);
  for (unsigned k = 0; k < m->arity; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if ((m->int_args & (1u << k)) || !ad_is_active(fc, a))
      continue;
    LLVMValueRef coef = eval_program(&e, m->partial[k]);
    if (!coef)
      return ad_fail(fc->mc, call,
                     "internal: bad derivative program \"%s\" for %s",
                     m->partial[k], name);
    terms[nterms].coef = coef;
    terms[nterms].tangent = ad_shadow_value(fc, a);
    terms[nterms].negate = 0;
    nterms++;
  }
  ad_set_shadow(fc, call,
                ad_lincomb(fc, LLVMTypeOf(call), terms, nterms, NULL, call));
  return 0;
}

/* Stores lane values into the shadow of pointer `p` (if it has one). */
static int store_shadow_lanes(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef p,
                              LLVMValueRef shadow_val) {
  LLVMValueRef sp = ad_shadow_or_null(fc, p);
  if (!sp) {
    if (LLVMIsConstant(shadow_val) && LLVMIsNull(shadow_val))
      return 0;
    return ad_fail(fc->mc, call,
                   "%s writes an active result through a pointer with no shadow",
                   ad_value_name(ad_called_function(call)));
  }
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef v = ad_lane(fc, shadow_val, lane);
    /* an out-parameter in inactive memory keeps the primal's result */
    LLVMBuildStore(fc->b, v,
                   ad_guard_shadow_pointer(fc, p, ad_lane(fc, sp, lane),
                                           LLVMTypeOf(v), NULL));
  }
  return 0;
}

/* Tangent dx scaled by coef, all lanes. */
static LLVMValueRef scaled(ad_fn_ctx *fc, LLVMValueRef x, LLVMValueRef coef) {
  ad_term t = {coef, ad_shadow_or_null(fc, x), 0};
  return ad_lincomb(fc, LLVMTypeOf(x), &t, 1, NULL, NULL);
}

/* The shadow of a two-member result {a, b} (LLVM 20+'s llvm.sincos and
 * llvm.modf return their pair instead of writing through pointers). */
static void set_pair_shadow(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef da,
                            LLVMValueRef db) {
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef agg = LLVMGetPoison(LLVMTypeOf(call));
    agg = LLVMBuildInsertValue(fc->b, agg, ad_lane(fc, da, lane), 0, "");
    lanes[lane] = LLVMBuildInsertValue(fc->b, agg, ad_lane(fc, db, lane), 1, "");
  }
  ad_set_shadow(fc, call, ad_pack(fc, LLVMTypeOf(call), lanes));
}

/* sincos(x, *s, *c): ds = cos x dx, dc = -sin x dx */
static int emit_sincos(ad_fn_ctx *fc, const ad_call_rule *r, LLVMValueRef call,
                       LLVMValueRef clone) {
  (void)r;
  (void)clone;
  if (LLVMGetNumArgOperands(call) == 1) { /* llvm.sincos: {sin, cos} */
    if (!ad_is_active(fc, call))
      return 0;
    LLVMValueRef x = LLVMGetOperand(call, 0), px = ad_primal(fc, x);
    LLVMTypeRef ov[1] = {LLVMTypeOf(x)};
    LLVMValueRef c = ad_call_intrinsic(fc, "llvm.cos", ov, 1, &px, 1);
    LLVMValueRef s = ad_call_intrinsic(fc, "llvm.sin", ov, 1, &px, 1);
    set_pair_shadow(fc, call, scaled(fc, x, c),
                    scaled(fc, x, LLVMBuildFNeg(fc->b, s, "")));
    return 0;
  }
  if (LLVMGetNumArgOperands(call) != 3)
    return ad_fail(fc->mc, call, "sincos takes 3 arguments");
  LLVMValueRef x = LLVMGetOperand(call, 0);
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef px = ad_primal(fc, x);
  LLVMTypeRef ov[1] = {t};
  LLVMValueRef c = ad_call_intrinsic(fc, "llvm.cos", ov, 1, &px, 1);
  LLVMValueRef s = ad_call_intrinsic(fc, "llvm.sin", ov, 1, &px, 1);
  if (store_shadow_lanes(fc, call, LLVMGetOperand(call, 1), scaled(fc, x, c)))
    return -1;
  return store_shadow_lanes(fc, call, LLVMGetOperand(call, 2),
                            scaled(fc, x, LLVMBuildFNeg(fc->b, s, "")));
}

/* modf(x, *ip): d frac = dx, d *ip = 0 */
static int emit_modf(ad_fn_ctx *fc, const ad_call_rule *r, LLVMValueRef call,
                     LLVMValueRef clone) {
  (void)r;
  (void)clone;
  LLVMValueRef x = LLVMGetOperand(call, 0);
  if (LLVMGetNumArgOperands(call) == 1) { /* llvm.modf: {frac, int} */
    if (ad_is_active(fc, call))
      set_pair_shadow(fc, call, ad_shadow_value(fc, x),
                      LLVMConstNull(ad_shadow_type(fc, LLVMTypeOf(x))));
    return 0;
  }
  if (ad_is_active(fc, call))
    ad_set_shadow(fc, call, ad_shadow_value(fc, x));
  LLVMValueRef ip = LLVMGetOperand(call, 1);
  LLVMValueRef sp = ad_shadow_or_null(fc, ip);
  if (sp)
    for (unsigned lane = 0; lane < fc->width; lane++)
      LLVMBuildStore(fc->b, LLVMConstNull(LLVMTypeOf(x)),
                     ad_guard_shadow_pointer(fc, ip, ad_lane(fc, sp, lane),
                                             LLVMTypeOf(x), NULL));
  return 0;
}

/* frexp(x, *e) = m with x = m 2^e: dm = 2^-e dx (e read back after the
 * call); the exponent's shadow is the exponent itself (an integer). */
static int emit_frexp(ad_fn_ctx *fc, const ad_call_rule *r, LLVMValueRef call,
                      LLVMValueRef clone) {
  (void)r;
  LLVMValueRef x = LLVMGetOperand(call, 0);
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(fc->mc->llctx);
  int intrinsic = LLVMGetNumArgOperands(call) == 1;
  LLVMValueRef e;
  if (intrinsic)
    e = LLVMBuildExtractValue(fc->b, clone, 1, "");
  else
    e = LLVMBuildLoad2(fc->b, i32, ad_primal(fc, LLVMGetOperand(call, 1)), "");
  LLVMValueRef ne = LLVMBuildNeg(fc->b, e, "");
  LLVMTypeRef ov[2] = {t, LLVMTypeOf(ne)};
  LLVMValueRef a2[2] = {ad_const_fp(t, 1.0), ne};
  LLVMValueRef coef = ad_call_intrinsic(fc, "llvm.ldexp", ov, 2, a2, 2);
  LLVMValueRef dm = scaled(fc, x, coef);
  if (!intrinsic) {
    LLVMValueRef sp = ad_shadow_or_null(fc, LLVMGetOperand(call, 1));
    if (sp)
      for (unsigned lane = 0; lane < fc->width; lane++)
        LLVMBuildStore(fc->b, e, ad_lane(fc, sp, lane));
    if (ad_is_active(fc, call))
      ad_set_shadow(fc, call, dm);
    return 0;
  }
  if (!ad_is_active(fc, call))
    return 0;
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef agg = LLVMGetPoison(LLVMTypeOf(call));
    agg = LLVMBuildInsertValue(fc->b, agg, ad_lane(fc, dm, lane), 0, "");
    lanes[lane] = LLVMBuildInsertValue(fc->b, agg, e, 1, "");
  }
  ad_set_shadow(fc, call, ad_pack(fc, LLVMTypeOf(call), lanes));
  return 0;
}

static const ad_call_rule math_generic = {"math", emit_math, NULL, 0, 0, 0};

static const ad_call_rule math_out_rules[] = {
    {"sincos", emit_sincos, NULL, 1, 0, 0},
    {"sincosf", emit_sincos, NULL, 1, 0, 0},
    {"sincosl", emit_sincos, NULL, 1, 0, 0},
    {"modf", emit_modf, NULL, 1, 0, 0},
    {"modff", emit_modf, NULL, 1, 0, 0},
    {"modfl", emit_modf, NULL, 1, 0, 0},
    {"frexp", emit_frexp, NULL, 1, 0, 0},
    {"frexpf", emit_frexp, NULL, 1, 0, 0},
    {"frexpl", emit_frexp, NULL, 1, 0, 0},
    {"llvm.frexp", emit_frexp, NULL, 0, 0, 0},
    {"llvm.modf", emit_modf, NULL, 0, 0, 0},
    {"llvm.sincos", emit_sincos, NULL, 0, 0, 0},
};

const ad_call_rule *ad_math_lookup(const char *name) {
  unsigned which;
  for (size_t i = 0; i < sizeof math_out_rules / sizeof *math_out_rules; i++)
    if (ad_name_matches(name, math_out_rules[i].name))
      return &math_out_rules[i];
  return find_math(name, &which) ? &math_generic : NULL;
}

int ad_math_table_check(char *why, size_t whysize) {
  /* A syntactic check of every program: tokens known, stack balanced. */
  static const char *const known[] = {
      "x",    "y",     "z",     "r",     "neg", "cos",      "sin",
      "exp",  "log",   "sqrt",  "trunc", "rint", "digamma", "sq",
      "recip", "itof", "dec",   "+",     "-",   "*",        "/",
      "pow",  "copysign", "ldexp", "powi", "lt", "ge", "nz"};
  static const signed char effect[] = {1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1,
                                       -1, -1, -1};
  _Static_assert(sizeof known / sizeof *known == sizeof effect,
                 "token table and stack effects in lockstep");
  for (size_t i = 0; i < ad_math_table_size(); i++) {
    const math_rule *m = &math_table[i];
    for (unsigned k = 0; k < m->arity; k++) {
      if (m->int_args & (1u << k))
        continue;
      const char *p = m->partial[k];
      int depth = 0;
      const char *s;
      size_t len;
      while (p && (s = next_token(&p, &len))) {
        int found = 0;
        for (size_t t = 0; t < sizeof known / sizeof *known; t++)
          if (strlen(known[t]) == len && strncmp(known[t], s, len) == 0) {
            depth += effect[t];
            found = 1;
          }
        if (!found) {
          char tmp[48];
          snprintf(tmp, sizeof tmp, "%.*s", (int)(len < 40 ? len : 40), s);
          char *end;
          strtod(tmp, &end);
          if (end == tmp || *end) {
            snprintf(why, whysize, "%s: unknown token '%s'",
                     m->names[0] ? m->names[0] : m->names[3], tmp);
            return -1;
          }
          depth++;
        }
        if (depth < 1) {
          snprintf(why, whysize, "%s: stack underflow in \"%s\"",
                   m->names[0] ? m->names[0] : m->names[3], m->partial[k]);
          return -1;
        }
      }
      if (depth != 1) {
        snprintf(why, whysize, "%s: program \"%s\" leaves %d values",
                 m->names[0] ? m->names[0] : m->names[3], m->partial[k], depth);
        return -1;
      }
    }
  }
  return 0;
}
