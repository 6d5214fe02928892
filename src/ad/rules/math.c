/*
 * Math call rules (libm and LLVM intrinsics) as data.
 *
 * Each entry names the function in its double, float and long double libm
 * spellings and its LLVM intrinsic base name, and gives, per argument, the
 * partial derivative as a tiny postfix program.  The tangent of the call is
 * sum_k partial_k * dx_k over the active float arguments.  Adding a function
 * is one entry.
 *
 * Programs are parsed once (the first lookup, pthread_once) against the one
 * token table below (math_ops), and checked there: known tokens, arguments
 * within the row's arity, a balanced stack, and operand kinds (an integer
 * argument only where an integer is taken).  A row that fails the check is
 * a bug in this file, reported by ad_math_table_check (tests/ad) and, if a
 * call reaches it, as an internal error.  Tokens (space separated,
 * evaluated on a stack, all in the call's float type T unless noted):
 *   x y z      the call's arguments 0, 1, 2 (integer arguments stay integers)
 *   r          the call's result
 *   <number>   a constant of type T
 *   <n>i       an integer constant (a C int): `2i`
 * and the operators of math_ops.  The same row serves both modes: forward
 * computes dr = sum_k partial_k dx_k, reverse will add partial_k * dr to
 * each x_k's adjoint.  Functions that write floats through pointers
 * (sincos, frexp, modf) have emitters of their own at the end of this
 * file; an integer written through a pointer, which carries no derivative
 * (remquo's quotient), is a row's out-argument (out_args).
 */
#include <pthread.h>
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

/* One row: a function and, per argument, its partial derivative. */
typedef struct math_rule {
  const char *names[4]; /* double, float, long double, "llvm.<base>" */
  unsigned char arity;
  unsigned char int_args; /* bit k: argument k is an integer (no partial) */
  /* bit k: argument k points to an integer the call only writes (remquo's
   * quotient bits): no partial, no tangent, and no program names it; the
   * primal's write stays (the rule writes through pointer arguments) */
  unsigned char out_args;
  const char *partial[3]; /* d result / d argument k, postfix */
  /* the result is one of the arguments (fmin, fmax): partial 0 is an
   * indicator, and the tangent is the chosen argument's, selected rather
   * than weighted, so a NaN or inf tangent of the argument not chosen
   * (sqrt'(0) behind fmax(sqrt(x), eps)) stays out, as in Enzyme */
  unsigned char chooses;
} math_rule;

static const math_rule math_table[] = {
    /* d sin x = cos x */
    {.names = {"sin", "sinf", "sinl", "llvm.sin"},
     .arity = 1,
     .partial = {[0] = "x cos"}},
    /* d cos x = -sin x */
    {.names = {"cos", "cosf", "cosl", "llvm.cos"},
     .arity = 1,
     .partial = {[0] = "x sin neg"}},
    /* d tan x = 1 + tan^2 x */
    {.names = {"tan", "tanf", "tanl", "llvm.tan"},
     .arity = 1,
     .partial = {[0] = "1 r sq +"}},
    /* d asin x = 1 / sqrt(1 - x^2) */
    {.names = {"asin", "asinf", "asinl", "llvm.asin"},
     .arity = 1,
     .partial = {[0] = "1 x sq - sqrt recip"}},
    /* d acos x = -1 / sqrt(1 - x^2) */
    {.names = {"acos", "acosf", "acosl", "llvm.acos"},
     .arity = 1,
     .partial = {[0] = "1 x sq - sqrt recip neg"}},
    /* d atan x = 1 / (1 + x^2) */
    {.names = {"atan", "atanf", "atanl", "llvm.atan"},
     .arity = 1,
     .partial = {[0] = "1 x sq + recip"}},
    /* atan2(y, x), C order: d/dy = x/(x^2+y^2), d/dx = -y/(x^2+y^2)
     * (here x names argument 0 and y argument 1) */
    {.names = {"atan2", "atan2f", "atan2l", "llvm.atan2"},
     .arity = 2,
     .partial = {[0] = "y x sq y sq + /", [1] = "x neg x sq y sq + /"}},
    /* d sinh x = cosh x = (e^x + e^-x) / 2 */
    {.names = {"sinh", "sinhf", "sinhl", "llvm.sinh"},
     .arity = 1,
     .partial = {[0] = "x exp x neg exp + 0.5 *"}},
    /* d cosh x = sinh x = (e^x - e^-x) / 2 */
    {.names = {"cosh", "coshf", "coshl", "llvm.cosh"},
     .arity = 1,
     .partial = {[0] = "x exp x neg exp - 0.5 *"}},
    /* d tanh x = 1 - tanh^2 x */
    {.names = {"tanh", "tanhf", "tanhl", "llvm.tanh"},
     .arity = 1,
     .partial = {[0] = "1 r sq -"}},
    /* d asinh x = 1 / sqrt(x^2 + 1) */
    {.names = {"asinh", "asinhf", "asinhl", NULL},
     .arity = 1,
     .partial = {[0] = "x sq 1 + sqrt recip"}},
    /* d acosh x = 1 / sqrt(x^2 - 1) */
    {.names = {"acosh", "acoshf", "acoshl", NULL},
     .arity = 1,
     .partial = {[0] = "x sq 1 - sqrt recip"}},
    /* d atanh x = 1 / (1 - x^2) */
    {.names = {"atanh", "atanhf", "atanhl", NULL},
     .arity = 1,
     .partial = {[0] = "1 x sq - recip"}},
    /* d e^x = e^x */
    {.names = {"exp", "expf", "expl", "llvm.exp"},
     .arity = 1,
     .partial = {[0] = "r"}},
    /* d 2^x = 2^x ln 2 */
    {.names = {"exp2", "exp2f", "exp2l", "llvm.exp2"},
     .arity = 1,
     .partial = {[0] = "r 0.69314718055994530942 *"}},
    /* d 10^x = 10^x ln 10 */
    {.names = {"exp10", "exp10f", "exp10l", "llvm.exp10"},
     .arity = 1,
     .partial = {[0] = "r 2.30258509299404568402 *"}},
    /* d (e^x - 1) = e^x = r + 1 */
    {.names = {"expm1", "expm1f", "expm1l", NULL},
     .arity = 1,
     .partial = {[0] = "r 1 +"}},
    /* d ln x = 1/x */
    {.names = {"log", "logf", "logl", "llvm.log"},
     .arity = 1,
     .partial = {[0] = "x recip"}},
    /* d log2 x = 1 / (x ln 2) */
    {.names = {"log2", "log2f", "log2l", "llvm.log2"},
     .arity = 1,
     .partial = {[0] = "x 0.69314718055994530942 * recip"}},
    /* d log10 x = 1 / (x ln 10) */
    {.names = {"log10", "log10f", "log10l", "llvm.log10"},
     .arity = 1,
     .partial = {[0] = "x 2.30258509299404568402 * recip"}},
    /* d ln(1+x) = 1/(1+x) */
    {.names = {"log1p", "log1pf", "log1pl", NULL},
     .arity = 1,
     .partial = {[0] = "1 x + recip"}},
    /* d x^y: dx -> y x^(y-1), dy -> x^y ln x, which is 0 (not 0 * -inf) at
     * x = 0, as in Enzyme (its test ForwardMode/pow_zero.c) */
    {.names = {"pow", "powf", "powl", "llvm.pow"},
     .arity = 2,
     .partial = {[0] = "y x y 1 - pow *", [1] = "r x log * x nz"}},
    /* d x^n (integer n) = n x^(n-1) */
    {.names = {NULL, NULL, NULL, "llvm.powi"},
     .arity = 2,
     .int_args = 2,
     .partial = {[0] = "y itof x y dec powi * y itof nz"}},
    /* d sqrt x = 1 / (2 sqrt x), and 0 at x = 0 as in Enzyme, so a zero
     * tangent stays zero instead of becoming inf * 0 = NaN */
    {.names = {"sqrt", "sqrtf", "sqrtl", "llvm.sqrt"},
     .arity = 1,
     .partial = {[0] = "0.5 r / x nz"}},
    /* d cbrt x = cbrt(x) / (3x) */
    {.names = {"cbrt", "cbrtf", "cbrtl", NULL},
     .arity = 1,
     .partial = {[0] = "r 3 x * /"}},
    /* d hypot(x,y) = (x dx + y dy) / hypot */
    {.names = {"hypot", "hypotf", "hypotl", NULL},
     .arity = 2,
     .partial = {[0] = "x r /", [1] = "y r /"}},
    /* d |x| = sign x */
    {.names = {"fabs", "fabsf", "fabsl", "llvm.fabs"},
     .arity = 1,
     .partial = {[0] = "1 x copysign"}},
    /* fmin: the derivative of the argument chosen */
    {.names = {"fmin", "fminf", "fminl", "llvm.minnum"},
     .arity = 2,
     .partial = {[0] = "x y lt", [1] = "x y lt 1 - neg"},
     .chooses = 1},
    {.names = {NULL, NULL, NULL, "llvm.minimum"},
     .arity = 2,
     .partial = {[0] = "x y lt", [1] = "x y lt 1 - neg"},
     .chooses = 1},
    /* fmax: the derivative of the argument chosen */
    {.names = {"fmax", "fmaxf", "fmaxl", "llvm.maxnum"},
     .arity = 2,
     .partial = {[0] = "x y ge", [1] = "x y ge 1 - neg"},
     .chooses = 1},
    {.names = {NULL, NULL, NULL, "llvm.maximum"},
     .arity = 2,
     .partial = {[0] = "x y ge", [1] = "x y ge 1 - neg"},
     .chooses = 1},
    /* fdim(x, y) = x - y where x > y, else +0: d = [x>y] (dx - dy) */
    {.names = {"fdim", "fdimf", "fdiml", NULL},
     .arity = 2,
     .partial = {[0] = "y x lt", [1] = "y x lt neg"}},
    /* d fma(a,b,c) = b da + a db + dc */
    {.names = {"fma", "fmaf", "fmal", "llvm.fma"},
     .arity = 3,
     .partial = {[0] = "y", [1] = "x", [2] = "1"}},
    {.names = {NULL, NULL, NULL, "llvm.fmuladd"},
     .arity = 3,
     .partial = {[0] = "y", [1] = "x", [2] = "1"}},
    /* d copysign(x, y) = sign(x) sign(y) dx */
    {.names = {"copysign", "copysignf", "copysignl", "llvm.copysign"},
     .arity = 2,
     .partial = {[0] = "1 x copysign 1 y copysign *", [1] = "0"}},
    /* d fmod(x,y) = dx - trunc(x/y) dy */
    {.names = {"fmod", "fmodf", "fmodl", NULL},
     .arity = 2,
     .partial = {[0] = "1", [1] = "x y / trunc neg"}},
    /* d remainder(x,y) = dx - rint(x/y) dy */
    {.names = {"remainder", "remainderf", "remainderl", NULL},
     .arity = 2,
     .partial = {[0] = "1", [1] = "x y / rint neg"}},
    /* remquo(x, y, *quo) = remainder(x, y), the low bits of rint(x/y)
     * written through quo (an integer, inactive): remainder's partials */
    {.names = {"remquo", "remquof", "remquol", NULL},
     .arity = 3,
     .out_args = 4,
     .partial = {[0] = "1", [1] = "x y / rint neg"}},
    /* d erf x = 2/sqrt(pi) e^(-x^2) */
    {.names = {"erf", "erff", "erfl", NULL},
     .arity = 1,
     .partial = {[0] = "x sq neg exp 1.12837916709551257390 *"}},
    /* d erfc x = -2/sqrt(pi) e^(-x^2) */
    {.names = {"erfc", "erfcf", "erfcl", NULL},
     .arity = 1,
     .partial = {[0] = "x sq neg exp -1.12837916709551257390 *"}},
    /* d Gamma(x) = Gamma(x) psi(x) */
    {.names = {"tgamma", "tgammaf", "tgammal", NULL},
     .arity = 1,
     .partial = {[0] = "r x digamma *"}},
    /* d ln|Gamma(x)| = psi(x) (digamma: recurrence to x >= 12, then the
     * asymptotic series to the x^-14 term) */
    {.names = {"lgamma", "lgammaf", "lgammal", NULL},
     .arity = 1,
     .partial = {[0] = "x digamma"}},
    /* Bessel functions of the first and second kind: J0' = -J1,
     * J1' = (J0 - J2) / 2 (finite at 0, unlike J0 - J1/x), and
     * Jn' = (J(n-1) - J(n+1)) / 2; Y the same */
    {.names = {"j0", "j0f", "j0l", NULL},
     .arity = 1,
     .partial = {[0] = "x j1 neg"}},
    {.names = {"j1", "j1f", "j1l", NULL},
     .arity = 1,
     .partial = {[0] = "x j0 2i x jn - 0.5 *"}},
    {.names = {"jn", "jnf", "jnl", NULL},
     .arity = 2,
     .int_args = 1,
     .partial = {[1] = "x dec y jn x inc y jn - 0.5 *"}},
    {.names = {"y0", "y0f", "y0l", NULL},
     .arity = 1,
     .partial = {[0] = "x y1 neg"}},
    {.names = {"y1", "y1f", "y1l", NULL},
     .arity = 1,
     .partial = {[0] = "x y0 2i x yn - 0.5 *"}},
    {.names = {"yn", "ynf", "ynl", NULL},
     .arity = 2,
     .int_args = 1,
     .partial = {[1] = "x dec y yn x inc y yn - 0.5 *"}},
    /* d ldexp(x, n) = 2^n dx */
    {.names = {"ldexp", "ldexpf", "ldexpl", "llvm.ldexp"},
     .arity = 2,
     .int_args = 2,
     .partial = {[0] = "1 y ldexp"}},
    {.names = {"scalbn", "scalbnf", "scalbnl", NULL},
     .arity = 2,
     .int_args = 2,
     .partial = {[0] = "1 y ldexp"}},
    /* rounding: piecewise constant, derivative 0 */
    {.names = {"floor", "floorf", "floorl", "llvm.floor"},
     .arity = 1,
     .partial = {[0] = "0"}},
    /* logb x: the exponent, piecewise constant */
    {.names = {"logb", "logbf", "logbl", NULL},
     .arity = 1,
     .partial = {[0] = "0"}},
    {.names = {"ceil", "ceilf", "ceill", "llvm.ceil"},
     .arity = 1,
     .partial = {[0] = "0"}},
    {.names = {"round", "roundf", "roundl", "llvm.round"},
     .arity = 1,
     .partial = {[0] = "0"}},
    {.names = {"trunc", "truncf", "truncl", "llvm.trunc"},
     .arity = 1,
     .partial = {[0] = "0"}},
    {.names = {"rint", "rintf", "rintl", "llvm.rint"},
     .arity = 1,
     .partial = {[0] = "0"}},
    {.names = {"nearbyint", "nearbyintf", "nearbyintl", "llvm.nearbyint"},
     .arity = 1,
     .partial = {[0] = "0"}},
    {.names = {"roundeven", "roundevenf", "roundevenl", "llvm.roundeven"},
     .arity = 1,
     .partial = {[0] = "0"}},
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
unsigned ad_math_table_out_args(size_t i) { return math_table[i].out_args; }

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

/* The row for `name`, or -1. */
static long find_math(const char *name) {
  const char *scalar = vector_abi_scalar(name);
  if (scalar)
    name = scalar;
  for (size_t i = 0; i < ad_math_table_size(); i++)
    for (unsigned w = 0; w < 4; w++)
      if (math_table[i].names[w] &&
          ad_name_matches(name, math_table[i].names[w]))
        return (long)i;
  return -1;
}

/* ---- the program language: parsed once, evaluated per call ---- */

typedef enum math_kind { MK_FLOAT, MK_INT } math_kind;

typedef enum math_opcode {
  MO_ARG,          /* x y z */
  MO_RESULT,       /* r */
  MO_INTRINSIC,    /* an LLVM intrinsic on T (unary or binary) */
  MO_INTRINSIC_TI, /* an LLVM intrinsic on (T, integer): ldexp, powi */
  MO_LIBM,         /* a libm function T -> T, spelled for T (j0, j0f, j0l) */
  MO_LIBM_IT,      /* a libm function (int, T) -> T: jn */
  MO_NEG,
  MO_SQ,
  MO_RECIP,
  MO_ITOF,
  MO_DEC,
  MO_INC,
  MO_DIGAMMA,
  MO_ADD,
  MO_SUB,
  MO_MUL,
  MO_DIV,
  MO_CMP,    /* 1.0 where the comparison holds, else 0.0 */
  MO_NONZERO /* `a c nz`: a where c != 0, else 0, a select, so an inf or
                NaN a is dropped */
} math_opcode;

/* Every token but numbers, with the operand kinds it pops and the kind it
 * pushes (arguments push their own kind). */
typedef struct math_op {
  const char *token;
  math_opcode op;
  unsigned char npop;
  math_kind in[2], out;
  const char *intrinsic;  /* MO_INTRINSIC*, MO_LIBM*: its base name */
  LLVMRealPredicate pred; /* MO_CMP */
  unsigned char arg;      /* MO_ARG: which argument */
} math_op;

#define F MK_FLOAT
#define I MK_INT
static const math_op math_ops[] = {
    {"x", MO_ARG, 0, {F, F}, F, NULL, 0, 0},
    {"y", MO_ARG, 0, {F, F}, F, NULL, 0, 1},
    {"z", MO_ARG, 0, {F, F}, F, NULL, 0, 2},
    {"r", MO_RESULT, 0, {F, F}, F, NULL, 0, 0},
    {"neg", MO_NEG, 1, {F, F}, F, NULL, 0, 0},
    {"sq", MO_SQ, 1, {F, F}, F, NULL, 0, 0},       /* v*v */
    {"recip", MO_RECIP, 1, {F, F}, F, NULL, 0, 0}, /* 1/v */
    {"itof", MO_ITOF, 1, {I, I}, F, NULL, 0, 0},   /* integer -> T */
    {"dec", MO_DEC, 1, {I, I}, I, NULL, 0, 0},     /* integer - 1 */
    {"inc", MO_INC, 1, {I, I}, I, NULL, 0, 0},     /* integer + 1 */
    {"digamma", MO_DIGAMMA, 1, {F, F}, F, NULL, 0, 0},
    {"cos", MO_INTRINSIC, 1, {F, F}, F, "llvm.cos", 0, 0},
    {"sin", MO_INTRINSIC, 1, {F, F}, F, "llvm.sin", 0, 0},
    {"exp", MO_INTRINSIC, 1, {F, F}, F, "llvm.exp", 0, 0},
    {"log", MO_INTRINSIC, 1, {F, F}, F, "llvm.log", 0, 0},
    {"sqrt", MO_INTRINSIC, 1, {F, F}, F, "llvm.sqrt", 0, 0},
    {"trunc", MO_INTRINSIC, 1, {F, F}, F, "llvm.trunc", 0, 0},
    {"rint", MO_INTRINSIC, 1, {F, F}, F, "llvm.rint", 0, 0},
    {"j0", MO_LIBM, 1, {F, F}, F, "j0", 0, 0},
    {"j1", MO_LIBM, 1, {F, F}, F, "j1", 0, 0},
    {"y0", MO_LIBM, 1, {F, F}, F, "y0", 0, 0},
    {"y1", MO_LIBM, 1, {F, F}, F, "y1", 0, 0},
    {"jn", MO_LIBM_IT, 2, {I, F}, F, "jn", 0, 0},
    {"yn", MO_LIBM_IT, 2, {I, F}, F, "yn", 0, 0},
    {"+", MO_ADD, 2, {F, F}, F, NULL, 0, 0},
    {"-", MO_SUB, 2, {F, F}, F, NULL, 0, 0},
    {"*", MO_MUL, 2, {F, F}, F, NULL, 0, 0},
    {"/", MO_DIV, 2, {F, F}, F, NULL, 0, 0},
    {"pow", MO_INTRINSIC, 2, {F, F}, F, "llvm.pow", 0, 0},
    {"copysign", MO_INTRINSIC, 2, {F, F}, F, "llvm.copysign", 0, 0},
    {"ldexp", MO_INTRINSIC_TI, 2, {F, I}, F, "llvm.ldexp", 0, 0},
    {"powi", MO_INTRINSIC_TI, 2, {F, I}, F, "llvm.powi", 0, 0},
    {"lt", MO_CMP, 2, {F, F}, F, NULL, LLVMRealOLT, 0},
    {"ge", MO_CMP, 2, {F, F}, F, NULL, LLVMRealOGE, 0},
    {"nz", MO_NONZERO, 2, {F, F}, F, NULL, 0, 0},
};
#undef F
#undef I

enum { MATH_MAX_CODE = 24, MATH_MAX_STACK = 16 };

typedef struct math_insn {
  const math_op *op; /* NULL: a constant */
  char number[40];   /* a constant's decimal text, read in T's precision */
  int is_int;        /* the constant is an integer (`2i`): a C int */
} math_insn;

typedef struct math_program {
  math_insn code[MATH_MAX_CODE];
  unsigned char n; /* 0: did not parse */
} math_program;

/* A row with its programs parsed, and the rule the registry hands out. */
typedef struct math_entry {
  const math_rule *row;
  math_program partial[3];
  ad_call_rule rule;
} math_entry;

/* Parses `text`, row m's partial for argument k, into *p: known tokens,
 * arguments within the arity, the stack balanced, operand kinds right.
 * 0, or -1 with why. */
static int parse_program(const math_rule *m, unsigned k, const char *text,
                         math_program *p, char *why, size_t whysize) {
  const char *fname = m->names[0] ? m->names[0] : m->names[3];
  math_kind stack[MATH_MAX_STACK];
  int sp = 0;
  p->n = 0;
  for (const char *s = text; *s;) {
    if (*s == ' ' || *s == '\n') {
      s++;
      continue;
    }
    size_t len = strcspn(s, " \n");
    if (p->n == MATH_MAX_CODE || sp == MATH_MAX_STACK) {
      snprintf(why, whysize, "%s: program \"%s\" is too long", fname, text);
      return -1;
    }
    math_insn *in = &p->code[p->n];
    const math_op *op = NULL;
    for (size_t t = 0; t < sizeof math_ops / sizeof *math_ops; t++)
      if (strlen(math_ops[t].token) == len &&
          strncmp(math_ops[t].token, s, len) == 0)
        op = &math_ops[t];
    math_kind out = MK_FLOAT;
    if (op) {
      if (sp < op->npop) {
        snprintf(why, whysize, "%s: stack underflow at '%.*s' in \"%s\"",
                 fname, (int)len, s, text);
        return -1;
      }
      for (unsigned a = 0; a < op->npop; a++)
        if (stack[sp - op->npop + a] != op->in[a]) {
          snprintf(why, whysize, "%s: '%.*s' takes %s as operand %u in \"%s\"",
                   fname, (int)len, s,
                   op->in[a] == MK_INT ? "an integer" : "a float", a + 1, text);
          return -1;
        }
      sp -= op->npop;
      out = op->out;
      if (op->op == MO_ARG) {
        if ((m->out_args >> op->arg) & 1) {
          snprintf(why, whysize,
                   "%s: '%.*s' names out-parameter %u in \"%s\"", fname,
                   (int)len, s, op->arg + 1u, text);
          return -1;
        }
        if (op->arg >= m->arity) {
          snprintf(why, whysize,
                   "%s: '%.*s' names argument %u of %u in \"%s\"", fname,
                   (int)len, s, op->arg + 1u, (unsigned)m->arity, text);
          return -1;
        }
        out = (m->int_args >> op->arg) & 1 ? MK_INT : MK_FLOAT;
      }
    } else {
      char *end;
      if (len >= sizeof in->number) {
        snprintf(why, whysize, "%s: token too long in \"%s\"", fname, text);
        return -1;
      }
      memcpy(in->number, s, len);
      in->number[len] = 0;
      in->is_int = len > 1 && s[len - 1] == 'i';
      if (in->is_int) {
        in->number[len - 1] = 0;
        (void)strtol(in->number, &end, 10);
        out = MK_INT;
      } else {
        (void)strtod(in->number, &end);
      }
      if (end == in->number || *end) {
        snprintf(why, whysize, "%s: unknown token '%s'", fname, in->number);
        return -1;
      }
    }
    stack[sp++] = out;
    in->op = op;
    p->n++;
    s += len;
  }
  if (sp != 1 || stack[0] != MK_FLOAT) {
    snprintf(why, whysize,
             "%s: program \"%s\" for argument %u leaves %d values%s", fname,
             text, k + 1, sp, sp == 1 ? " (an integer)" : "");
    p->n = 0;
    return -1;
  }
  return 0;
}

static int emit_math(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
                     LLVMValueRef clone);

/* The arguments with no partial: integers and out-parameters. */
static unsigned no_partial(const math_rule *m) {
  return (unsigned)m->int_args | m->out_args;
}

#define MATH_ROWS (sizeof math_table / sizeof *math_table)
static math_entry math_entries[MATH_ROWS];
static char math_table_error[256]; /* the first problem found */
static pthread_once_t math_parsed = PTHREAD_ONCE_INIT;

static void table_problem(const char *why) {
  if (!math_table_error[0])
    snprintf(math_table_error, sizeof math_table_error, "%s", why);
}

/* Parses every row's programs, once: a program that does not parse stays
 * empty, and a call that reaches it fails with an internal error instead
 * of a wrong tangent. */
static void parse_math_table(void) {
  for (size_t i = 0; i < MATH_ROWS; i++) {
    const math_rule *m = &math_table[i];
    math_entry *e = &math_entries[i];
    char why[256];
    e->row = m;
    e->rule = (ad_call_rule){.name = m->names[0] ? m->names[0] : m->names[3],
                             .emit = emit_math,
                             .data = e,
                             .writes_pointer_args = m->out_args != 0};
    if (m->arity == 0 || m->arity > 3 || (m->chooses && m->arity != 2)) {
      snprintf(why, sizeof why, "%s: arity %u", e->rule.name,
               (unsigned)m->arity);
      table_problem(why);
      continue;
    }
    if (m->int_args & m->out_args) {
      snprintf(why, sizeof why, "%s: an argument both integer and out",
               e->rule.name);
      table_problem(why);
    }
    for (unsigned k = 0; k < m->arity; k++) {
      int none = (no_partial(m) >> k) & 1;
      if (none != !m->partial[k]) {
        snprintf(why, sizeof why, "%s: argument %u %s", e->rule.name, k + 1,
                 none ? "is an integer or out-parameter but has a partial"
                      : "has no partial");
        table_problem(why);
      } else if (!none && parse_program(m, k, m->partial[k], &e->partial[k],
                                        why, sizeof why) != 0) {
        table_problem(why);
      }
    }
  }
}

typedef struct eval_ctx {
  ad_fn_ctx *fc;
  LLVMTypeRef t; /* the float type T */
  LLVMValueRef *args;
  LLVMValueRef result;
  LLVMValueRef call; /* the primal call (NULL: an instruction's row) */
} eval_ctx;

/* Whether primal float v is never zero, never negative (NaN allowed), by
 * its expression: a positive constant, or a sum of a positive and a
 * non-negative term (a sum of squares plus a softening constant, n-body's
 * r2 = dx^2 + dy^2 + dz^2 + eps).  Rounding keeps such a sum at least its
 * positive term; a product of positives may underflow to 0, so it is
 * only non-negative.  `depth` bounds the walk. */
static int never_zero_or_negative(LLVMValueRef v, int nonneg_is_enough,
                                  unsigned depth) {
  if (LLVMIsAConstantFP(v)) {
    LLVMBool lost = 0;
    double c = LLVMConstRealGetDouble(v, &lost);
    return nonneg_is_enough ? c >= 0 : c > 0;
  }
  if (depth == 0 || !LLVMIsAInstruction(v))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op == LLVMFAdd) {
    LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
    return (never_zero_or_negative(a, nonneg_is_enough, depth - 1) &&
            never_zero_or_negative(b, 1, depth - 1)) ||
           (never_zero_or_negative(a, 1, depth - 1) &&
            never_zero_or_negative(b, nonneg_is_enough, depth - 1));
  }
  if (op == LLVMFMul)
    return nonneg_is_enough && LLVMGetOperand(v, 0) == LLVMGetOperand(v, 1);
  if (op != LLVMCall)
    return 0;
  LLVMValueRef f = ad_called_function(v);
  size_t n = 0;
  const char *name = f ? LLVMGetValueName2(f, &n) : "";
  if (strncmp(name, "llvm.fmuladd.", 13) == 0 ||
      strncmp(name, "llvm.fma.", 9) == 0)
    return LLVMGetOperand(v, 0) == LLVMGetOperand(v, 1) &&
           never_zero_or_negative(LLVMGetOperand(v, 2), nonneg_is_enough,
                                  depth - 1);
  if (strncmp(name, "llvm.fabs.", 10) == 0)
    return nonneg_is_enough;
  return 0;
}

int ad_math_never_negative(LLVMValueRef v, int positive) {
  return never_zero_or_negative(v, !positive, 8);
}

/* Whether a row's guard `a c nz` can go: c is argument k of the primal
 * call, which is never zero (sqrt's partial at a softened r2). */
static int guard_needless(const eval_ctx *e, int arg) {
  return e->call && arg >= 0 &&
         (unsigned)arg < LLVMGetNumArgOperands(e->call) &&
         never_zero_or_negative(LLVMGetOperand(e->call, (unsigned)arg), 0, 8);
}

static LLVMValueRef digamma(eval_ctx *e, LLVMValueRef v);

/* A libm function the partial calls (j1 in j0's), spelled for T: the
 * double name, +f for float, +l for x86 long double; NULL for other types
 * (vectors, half, fp128), which libm has no spelling of. */
static LLVMValueRef call_libm(eval_ctx *e, const math_op *op,
                              LLVMValueRef *operands) {
  const char *suffix;
  switch (LLVMGetTypeKind(e->t)) {
  case LLVMDoubleTypeKind:
    suffix = "";
    break;
  case LLVMFloatTypeKind:
    suffix = "f";
    break;
  case LLVMX86_FP80TypeKind:
    suffix = "l";
    break;
  default:
    return NULL;
  }
  char name[32];
  snprintf(name, sizeof name, "%s%s", op->intrinsic, suffix);
  unsigned n = op->op == MO_LIBM_IT ? 2 : 1;
  LLVMTypeRef params[2] = {n == 2 ? LLVMTypeOf(operands[0]) : e->t, e->t};
  LLVMTypeRef ft = LLVMFunctionType(e->t, params, n, 0);
  LLVMValueRef fn = ad_get_or_declare(e->fc->mc->mod, name, ft);
  return fn ? LLVMBuildCall2(e->fc->b, ft, fn, operands, n, "") : NULL;
}

/* The value of a parsed program, emitted at the builder; NULL if it did
 * not parse (or digamma on a vector). */
static LLVMValueRef eval_program(eval_ctx *e, const math_program *p) {
  LLVMBuilderRef b = e->fc->b;
  LLVMValueRef st[MATH_MAX_STACK];
  int from_arg[MATH_MAX_STACK]; /* the argument a stack value is, or -1 */
  int sp = 0;
  if (!p->n)
    return NULL;
  for (unsigned i = 0; i < p->n; i++) {
    const math_insn *in = &p->code[i];
    const math_op *op = in->op;
    if (!op) {
      from_arg[sp] = -1;
      st[sp++] = in->is_int
                     ? LLVMConstInt(LLVMInt32TypeInContext(e->fc->mc->llctx),
                                    (unsigned long long)strtol(in->number, NULL, 10),
                                    1)
                     : LLVMConstRealOfStringAndSize(e->t, in->number,
                                                    (unsigned)strlen(in->number));
      continue;
    }
    LLVMValueRef l = op->npop == 2 ? st[sp - 2] : op->npop ? st[sp - 1] : NULL;
    LLVMValueRef r = op->npop == 2 ? st[sp - 1] : NULL, v = NULL;
    LLVMValueRef pair[2] = {l, r};
    switch (op->op) {
    case MO_ARG:
      v = e->args[op->arg];
      break;
    case MO_RESULT:
      v = e->result;
      break;
    case MO_INTRINSIC: {
      LLVMTypeRef ov[1] = {e->t};
      v = ad_call_intrinsic(e->fc, op->intrinsic, ov, 1, pair, op->npop);
      break;
    }
    case MO_INTRINSIC_TI: {
      LLVMTypeRef ov[2] = {e->t, LLVMTypeOf(r)};
      v = ad_call_intrinsic(e->fc, op->intrinsic, ov, 2, pair, 2);
      break;
    }
    case MO_NEG:
      v = LLVMBuildFNeg(b, l, "");
      break;
    case MO_SQ:
      v = LLVMBuildFMul(b, l, l, "");
      break;
    case MO_RECIP:
      v = LLVMBuildFDiv(b, ad_const_fp(e->t, 1.0), l, "");
      break;
    case MO_ITOF:
      v = LLVMBuildSIToFP(b, l, e->t, "");
      break;
    case MO_DEC:
      v = LLVMBuildSub(b, l, LLVMConstInt(LLVMTypeOf(l), 1, 0), "");
      break;
    case MO_INC:
      v = LLVMBuildAdd(b, l, LLVMConstInt(LLVMTypeOf(l), 1, 0), "");
      break;
    case MO_LIBM:
    case MO_LIBM_IT:
      v = call_libm(e, op, pair);
      break;
    case MO_DIGAMMA:
      v = digamma(e, l);
      break;
    case MO_ADD:
      v = LLVMBuildFAdd(b, l, r, "");
      break;
    case MO_SUB:
      v = LLVMBuildFSub(b, l, r, "");
      break;
    case MO_MUL:
      v = LLVMBuildFMul(b, l, r, "");
      break;
    case MO_DIV:
      v = LLVMBuildFDiv(b, l, r, "");
      break;
    case MO_CMP:
      v = LLVMBuildUIToFP(b, LLVMBuildFCmp(b, op->pred, l, r, ""), e->t, "");
      break;
    case MO_NONZERO:
      if (guard_needless(e, from_arg[sp - 1])) {
        v = l;
        break;
      }
      v = LLVMBuildSelect(
          b, LLVMBuildFCmp(b, LLVMRealUNE, r, LLVMConstNull(LLVMTypeOf(r)), ""),
          l, LLVMConstNull(LLVMTypeOf(l)), "");
      break;
    }
    if (!v)
      return NULL;
    sp -= op->npop;
    from_arg[sp] = op->op == MO_ARG ? (int)op->arg : -1;
    st[sp++] = v;
  }
  return st[0];
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
  fn = ad_add_generated_function(mc->mod, name, ft);
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
    if (!(no_partial(m) & (1u << k)))
      return LLVMTypeOf(LLVMGetOperand(call, k));
  return LLVMTypeOf(call);
}

/* fmin/fmax: select(partial 0 != 0, dx, dy), lane by lane. */
static int emit_choice(ad_fn_ctx *fc, eval_ctx *e, const math_entry *me,
                       LLVMValueRef call) {
  LLVMValueRef first = eval_program(e, &me->partial[0]);
  if (!first)
    return ad_fail(fc->mc, call,
                   "internal: bad derivative program \"%s\" for %s",
                   me->row->partial[0], me->rule.name);
  LLVMValueRef x = LLVMGetOperand(call, 0), y = LLVMGetOperand(call, 1);
  /* C's fmin/fmax return the other argument when one is NaN: a NaN y
   * chooses x (the comparisons alone would choose y). */
  LLVMValueRef py = ad_primal(fc, y);
  LLVMValueRef take_first = LLVMBuildOr(
      fc->b, LLVMBuildFCmp(fc->b, LLVMRealONE, first, LLVMConstNull(e->t), ""),
      LLVMBuildFCmp(fc->b, LLVMRealUNO, py, py, ""), "");
  LLVMValueRef dx = ad_is_active(fc, x) ? ad_shadow_value(fc, x) : NULL;
  LLVMValueRef dy = ad_is_active(fc, y) ? ad_shadow_value(fc, y) : NULL;
  ad_set_shadow(fc, call,
                ad_select_tangent(fc, LLVMTypeOf(call), take_first, dx, dy));
  return 0;
}

/* Error estimation: the result's bound from the row's partials
 * (tangent/error_bound.c). */
static int emit_math_error(ad_fn_ctx *fc, eval_ctx *e, const math_entry *me,
                           LLVMValueRef call, LLVMValueRef clone) {
  const math_rule *m = me->row;
  ad_error_term terms[3];
  unsigned nterms = 0;
  for (unsigned k = 0; k < m->arity; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if ((no_partial(m) & (1u << k)) || !ad_is_active(fc, a))
      continue;
    LLVMValueRef coef = eval_program(e, &me->partial[k]);
    if (!coef)
      return ad_fail(fc->mc, call,
                     "internal: bad derivative program \"%s\" for %s",
                     m->partial[k], me->rule.name);
    terms[nterms].primal = e->args[k];
    terms[nterms].coef = coef;
    terms[nterms].error = ad_shadow_value(fc, a);
    nterms++;
  }
  LLVMValueRef bound = ad_error_bound(fc, call, clone, terms, nterms);
  if (!bound)
    return -1;
  ad_set_shadow(fc, call, bound);
  return 0;
}

static int emit_math(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
                     LLVMValueRef clone) {
  const math_entry *me = rule->data;
  const math_rule *m = me->row;
  if (LLVMGetNumArgOperands(call) != m->arity)
    return ad_fail(fc->mc, call, "call to %s has %u arguments, expected %u",
                   ad_value_name(ad_called_function(call)),
                   LLVMGetNumArgOperands(call), m->arity);
  if (!ad_is_active(fc, call))
    return 0;
  LLVMValueRef args[3];
  ad_term terms[3];
  unsigned nterms = 0;
  eval_ctx e = {.fc = fc,
                .t = float_type_of(m, call),
                .args = args,
                .result = clone,
                .call = call};
  for (unsigned k = 0; k < m->arity; k++)
    args[k] = ad_primal(fc, LLVMGetOperand(call, k));
  if (m->chooses)
    return emit_choice(fc, &e, me, call);
  if (ad_estimates_error(fc))
    return emit_math_error(fc, &e, me, call, clone);
  for (unsigned k = 0; k < m->arity; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if ((no_partial(m) & (1u << k)) || !ad_is_active(fc, a))
      continue;
    LLVMValueRef coef = eval_program(&e, &me->partial[k]);
    if (!coef)
      return ad_fail(fc->mc, call,
                     "internal: bad derivative program \"%s\" for %s",
                     m->partial[k], me->rule.name);
    terms[nterms].coef = coef;
    terms[nterms].tangent = ad_shadow_value(fc, a);
    terms[nterms].negate = 0;
    nterms++;
  }
  ad_set_shadow(fc, call,
                ad_lincomb(fc, LLVMTypeOf(call), terms, nterms, NULL, call));
  return 0;
}

LLVMValueRef ad_math_eval_text(ad_fn_ctx *fc, const char *program,
                               unsigned arity, LLVMTypeRef t,
                               LLVMValueRef *args, LLVMValueRef result) {
  math_rule row = {.names = {"instruction"}, .arity = (unsigned char)arity};
  math_program p;
  char why[256];
  if (arity == 0 || arity > 3 ||
      parse_program(&row, 0, program, &p, why, sizeof why) != 0) {
    ad_fail(fc->mc, NULL, "internal: bad partial \"%s\"", program);
    return NULL;
  }
  eval_ctx e = {.fc = fc, .t = t, .args = args, .result = result};
  return eval_program(&e, &p);
}

int ad_math_is_row(const ad_call_rule *rule) {
  return rule && rule->emit == emit_math;
}

int ad_math_is_sqrt(const ad_call_rule *rule) {
  return ad_math_is_row(rule) &&
         strcmp(((const math_entry *)rule->data)->row->names[0], "sqrt") == 0;
}

/* The same row read backwards (reverse mode): each argument's partial,
 * evaluated at fc->b on the values given. */
int ad_math_partials(ad_fn_ctx *fc, const ad_call_rule *rule,
                     LLVMValueRef call, LLVMValueRef *args,
                     LLVMValueRef result, LLVMValueRef *partials,
                     int *chooses) {
  const math_entry *me = rule->data;
  const math_rule *m = me->row;
  if (LLVMGetNumArgOperands(call) != m->arity)
    return ad_fail(fc->mc, call, "call to %s has %u arguments, expected %u",
                   ad_value_name(ad_called_function(call)),
                   LLVMGetNumArgOperands(call), m->arity);
  eval_ctx e = {.fc = fc,
                .t = float_type_of(m, call),
                .args = args,
                .result = result,
                .call = call};
  *chooses = m->chooses;
  for (unsigned k = 0; k < m->arity; k++) {
    partials[k] = NULL;
    if ((no_partial(m) & (1u << k)) || (m->chooses && k > 0))
      continue;
    partials[k] = eval_program(&e, &me->partial[k]);
    if (!partials[k])
      return ad_fail(fc->mc, call,
                     "internal: bad derivative program \"%s\" for %s",
                     m->partial[k], me->rule.name);
  }
  return 0;
}

/* Stores lane values into the shadow of pointer `p` (if it has one). */
static int store_shadow_lanes(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef p,
                              LLVMValueRef shadow_val) {
  LLVMValueRef sp = ad_shadow_or_null(fc, p);
  if (!sp) {
    if (LLVMIsConstant(shadow_val) && LLVMIsNull(shadow_val))
      return 0;
    /* an enzyme_const buffer nothing reads back: the primal's result is
     * all it needs, as for a store (pointer_access.c) */
    if (ad_fwd_into_unread_constant(fc, p))
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
  LLVMTypeRef i32 = LLVMInt32TypeInContext(fc->mc->llctx);
  int intrinsic = LLVMGetNumArgOperands(call) == 1;
  LLVMValueRef e;
  if (intrinsic)
    e = LLVMBuildExtractValue(fc->b, clone, 1, "");
  else
    e = LLVMBuildLoad2(fc->b, i32, ad_primal(fc, LLVMGetOperand(call, 1)), "");
  LLVMValueRef m =
      intrinsic ? LLVMBuildExtractValue(fc->b, clone, 0, "") : clone;
  LLVMValueRef coef =
      ad_frexp_inverse_scale(fc->b, LLVMGetOperand(clone, 0), m);
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

static const ad_call_rule math_out_rules[] = {
    {.name = "sincos", .emit = emit_sincos, .writes_pointer_args = 1},
    {.name = "sincosf", .emit = emit_sincos, .writes_pointer_args = 1},
    {.name = "sincosl", .emit = emit_sincos, .writes_pointer_args = 1},
    /* glibc's own names for them */
    {.name = "__sincos", .emit = emit_sincos, .writes_pointer_args = 1},
    {.name = "__sincosf", .emit = emit_sincos, .writes_pointer_args = 1},
    {.name = "modf", .emit = emit_modf, .writes_pointer_args = 1},
    {.name = "modff", .emit = emit_modf, .writes_pointer_args = 1},
    {.name = "modfl", .emit = emit_modf, .writes_pointer_args = 1},
    {.name = "frexp", .emit = emit_frexp, .writes_pointer_args = 1},
    {.name = "frexpf", .emit = emit_frexp, .writes_pointer_args = 1},
    {.name = "frexpl", .emit = emit_frexp, .writes_pointer_args = 1},
    {.name = "llvm.frexp", .emit = emit_frexp},
    {.name = "llvm.modf", .emit = emit_modf},
    {.name = "llvm.sincos", .emit = emit_sincos},
};

static const ad_call_rule *math_lookup(const char *name) {
  for (size_t i = 0; i < sizeof math_out_rules / sizeof *math_out_rules; i++)
    if (ad_name_matches(name, math_out_rules[i].name))
      return &math_out_rules[i];
  long row = find_math(name);
  if (row < 0)
    return NULL;
  pthread_once(&math_parsed, parse_math_table);
  return &math_entries[row].rule;
}

const ad_rule_family ad_math_family = {
    .name = "math",
    .lookup = math_lookup,
};

int ad_math_program_check(const char *program, unsigned arity,
                          unsigned int_args, char *why, size_t whysize) {
  math_rule row = {.names = {"f"},
                   .arity = (unsigned char)arity,
                   .int_args = (unsigned char)int_args};
  math_program p;
  if (arity == 0 || arity > 3) {
    snprintf(why, whysize, "f: arity %u", arity);
    return -1;
  }
  return parse_program(&row, 0, program, &p, why, whysize);
}

int ad_math_table_check(char *why, size_t whysize) {
  pthread_once(&math_parsed, parse_math_table);
  if (!math_table_error[0])
    return 0;
  snprintf(why, whysize, "%s", math_table_error);
  return -1;
}
