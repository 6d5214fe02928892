/*
 * BLAS and LAPACK rules: a routine's tangent is more calls to BLAS (as
 * Enzyme does), never a loop over elements in IR (LAPACK's potrf and an
 * active beta of a matrix routine loop over columns, a BLAS call each).
 *
 * One row per routine (blas_routines below): its arguments by role, in
 * Fortran order, and its tangent as a list of terms or a small named
 * emitter.  Every row matches under every interface and precision, derived
 * from the name (blas_typed_lookup):
 *   cblas_dgemv     the C interface: by value, a leading layout argument
 *                   (CblasRowMajor 101 / CblasColMajor 102) on level 2/3
 *   dgemv_          Fortran (LP64): every argument by pointer, options
 *                   as characters ('N', 'T', 'U', 'L'), column major,
 *                   optionally followed by the hidden lengths of the
 *                   character arguments (gfortran, Julia's ccalls pass 1)
 *   dgemv_64_       Fortran ILP64 (Julia's libblastrampoline; also the
 *   dgemv64_        OpenBLAS ILP64 suffix): 8-byte integers
 *   s...            the same in single precision
 *   cublasDgemv     cuBLAS (and _v2, _64, _v2_64; S in single): the
 *                   handle first, no layout, scalars by pointer, enums
 *                   by value (CUBLAS_OP_N and FILL_MODE_LOWER 0); both
 *                   modes, but forward refuses _v2's dot and nrm2 (the
 *                   result through a pointer); LAPACK's rows not looked up
 * and through a renamed ccall (`ejlstr$dgemv_64_$libblastrampoline`,
 * registry.c reads the inner name).  The calls a tangent makes are of the
 * same interface and precision, declared next to the primal call
 * (ad_get_or_insert_helper): same calling convention, and a renamed
 * call's tangent calls are renamed from the same library.
 *
 * Activity: a term whose input (an array, a scalar) is inactive is not
 * emitted (a Fortran scalar's slot is active memory whenever the call is,
 * so its term's sizes are 0 at run time where its tangent is 0); an output whose shadow may be the output itself at run time
 * (run-time activity) or an input whose shadow may be itself makes the
 * term's sizes 0 at run time (BLAS returns at once), so no control flow is
 * needed for it.  In-place routines emit their tangent before the primal
 * call, which still reads the old output (the clone is taken out and put
 * back after the tangent work: an active beta's loop makes blocks).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>

#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rules/blas.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"

enum { MAX_ROLES = 14, MAX_TERMS = 3, MAX_ARGS = AD_BLAS_MAX_ARGS };

/* One term of an update of the output: the routine `callee` called with
 * `input` replaced by its shadow (for the rank-2k form of syrk, A kept and
 * B := dA, LDB := LDA).  Terms after the first add (beta = 1).  A row
 * lists its terms, and tangents come before or after the primal call, in
 * the order Enzyme emits them: its ForwardMode/blas.cpp compares call
 * traces. */
typedef struct blas_term {
  unsigned char input;  /* blas_role; R_END ends the list */
  unsigned char callee; /* blas_routine_id */
  unsigned char as_b;   /* the shadow goes in as B (syrk's syr2k term) */
} blas_term;

typedef struct blas_call blas_call;
typedef struct blas_routine {
  const char *base; /* the name without precision and interface */
  unsigned char roles[MAX_ROLES]; /* Fortran order, R_END-terminated */
  unsigned char cblas_layout;     /* the CBLAS form starts with the layout */
  unsigned char returns_real;     /* dot, nrm2 */
  unsigned char output;           /* the array written in place, or R_END */
  /* dbeta * old output: a vector (y), a full matrix, or the triangle
   * `uplo` of an n x n matrix */
  enum { BETA_NONE, BETA_VECTOR, BETA_MATRIX, BETA_TRIANGLE } beta_form;
  blas_term terms[MAX_TERMS];
  int (*tangent)(blas_call *bc); /* NULL: only called by other tangents */
  /* no tangent, but a rule all the same: reverse mode has its adjoint
   * (rev/blas.c), forward mode refuses it by name */
  unsigned char reverse_only;
  /* LAPACK's (potrf, potrs, trtrs; lacpy, lascl): cuBLAS has none, so
   * no cuBLAS name is looked up (Enzyme's stand-ins define a cublasDlascl
   * and cublasDlacpy, which the adjoints call where the program has
   * them) */
  unsigned char lapack;
  const char *math;
} blas_routine;

struct blas_call {
  ad_fn_ctx *fc;
  LLVMValueRef call, clone;
  const blas_routine *rt;
  blas_iface iface;
  unsigned prec;
  LLVMTypeRef real;  /* double or float */
  LLVMTypeRef intty; /* the interface's integer (CBLAS: the call's own) */
  int at[R_COUNT];   /* operand of each role, or -1 */
  unsigned nroles;   /* operands the roles cover (the layout included) */
  unsigned nargs;
  const char *name;  /* the rule name, for messages */
};

static int tangent_update(blas_call *bc);
static int update_lane(blas_call *bc, unsigned lane);
static int tangent_dot(blas_call *bc);
static int dot_lanes(blas_call *bc);
static int nrm2_lanes(blas_call *bc);
static int tangent_nrm2(blas_call *bc);
static int tangent_scal(blas_call *bc);
static int scal_lane(blas_call *bc, unsigned lane, int dalpha);
static int tangent_potrf(blas_call *bc);
static int tangent_potrf_c(blas_call *bc);
static int tangent_copy(blas_call *bc);

#define ROLES(...) .roles = {__VA_ARGS__, R_END}
static const blas_routine blas_routines[RT_COUNT] = {
    [RT_DOT] = {.base = "dot", ROLES(R_N, R_X, R_INCX, R_Y, R_INCY),
                .returns_real = 1, .tangent = tangent_dot,
                .terms = {{R_X, RT_DOT, 0}, {R_Y, RT_DOT, 0}},
                .math = "dr = dot(dx, y) + dot(x, dy)"},
    [RT_NRM2] = {.base = "nrm2", ROLES(R_N, R_X, R_INCX), .returns_real = 1,
                 .tangent = tangent_nrm2,
                 .math = "dr = dot(x, dx) / r (0 where r = 0)"},
    [RT_AXPY] = {.base = "axpy",
                 ROLES(R_N, R_ALPHA, R_X, R_INCX, R_Y, R_INCY),
                 .output = R_Y, .tangent = tangent_update,
                 .terms = {{R_X, RT_AXPY, 0}, {R_ALPHA, RT_AXPY, 0}},
                 .math = "dy += alpha dx + dalpha x"},
    [RT_SCAL] = {.base = "scal", ROLES(R_N, R_ALPHA, R_X, R_INCX),
                 .output = R_X, .tangent = tangent_scal,
                 .math = "dx = alpha dx + dalpha x"},
    [RT_GEMV] = {.base = "gemv",
                 ROLES(R_TRANS, R_M, R_N, R_ALPHA, R_A, R_LDA, R_X, R_INCX,
                       R_BETA, R_Y, R_INCY),
                 .cblas_layout = 1, .output = R_Y, .beta_form = BETA_VECTOR,
                 .tangent = tangent_update,
                 .terms = {{R_X, RT_GEMV, 0}, {R_A, RT_GEMV, 0},
                           {R_ALPHA, RT_GEMV, 0}},
                 .math = "dy = alpha (dA x + A dx) + dalpha A x + beta dy "
                         "+ dbeta y"},
    [RT_SYMV] = {.base = "symv",
                 ROLES(R_UPLO, R_N, R_ALPHA, R_A, R_LDA, R_X, R_INCX, R_BETA,
                       R_Y, R_INCY),
                 .cblas_layout = 1, .output = R_Y, .beta_form = BETA_VECTOR,
                 .tangent = tangent_update,
                 .terms = {{R_X, RT_SYMV, 0}, {R_A, RT_SYMV, 0},
                           {R_ALPHA, RT_SYMV, 0}},
                 .math = "dy = alpha (dA x + A dx) + dalpha A x + beta dy "
                         "+ dbeta y (A, dA symmetric)"},
    [RT_GEMM] = {.base = "gemm",
                 ROLES(R_TRANS, R_TRANSB, R_M, R_N, R_K, R_ALPHA, R_A, R_LDA,
                       R_B, R_LDB, R_BETA, R_C, R_LDC),
                 .cblas_layout = 1, .output = R_C, .beta_form = BETA_MATRIX,
                 .tangent = tangent_update,
                 .terms = {{R_B, RT_GEMM, 0}, {R_A, RT_GEMM, 0},
                           {R_ALPHA, RT_GEMM, 0}},
                 .math = "dC = alpha (dA B + A dB) + dalpha A B + beta dC "
                         "+ dbeta C"},
    [RT_SYRK] = {.base = "syrk",
                 ROLES(R_UPLO, R_TRANS, R_N, R_K, R_ALPHA, R_A, R_LDA, R_BETA,
                       R_C, R_LDC),
                 .cblas_layout = 1, .output = R_C, .beta_form = BETA_TRIANGLE,
                 .tangent = tangent_update,
                 .terms = {{R_A, RT_SYR2K, 1}, {R_ALPHA, RT_SYRK, 0}},
                 .math = "dC = alpha (dA A' + A dA') + dalpha A A' + beta dC "
                         "+ dbeta C (triangle uplo): syr2k(A, dA)"},
    [RT_SYR2K] = {.base = "syr2k",
                  ROLES(R_UPLO, R_TRANS, R_N, R_K, R_ALPHA, R_A, R_LDA, R_B,
                        R_LDB, R_BETA, R_C, R_LDC),
                  .cblas_layout = 1, .output = R_C,
                  .beta_form = BETA_TRIANGLE, .tangent = tangent_update,
                  .terms = {{R_A, RT_SYR2K, 0}, {R_B, RT_SYR2K, 0},
                            {R_ALPHA, RT_SYR2K, 0}},
                  .math = "dC = syr2k(alpha, dA, B) + syr2k(alpha, A, dB) + "
                          "syr2k(dalpha, A, B) + beta dC + dbeta C"},
    [RT_POTRF] = {.base = "potrf", ROLES(R_UPLO, R_N, R_A, R_LDA, R_INFO),
                  .cblas_layout = 1, .output = R_A, .tangent = tangent_potrf,
                  .lapack = 1,
                  .math = "A = L L': dL = L Phi(L^-1 dA L^-T), Phi the lower "
                          "triangle with half its diagonal (A = U'U: dU = "
                          "Phi'(U^-T dA U^-1) U, Phi' the upper one)"},
    [RT_COPY] = {.base = "copy", ROLES(R_N, R_X, R_INCX, R_Y, R_INCY),
                 .output = R_Y, .tangent = tangent_copy,
                 .math = "dy := dx (0 for an inactive x)"},
    /* called by tangents only */
    [RT_TRSM] = {.base = "trsm",
                 ROLES(R_SIDE, R_UPLO, R_TRANS, R_DIAG, R_M, R_N, R_ALPHA, R_A,
                       R_LDA, R_B, R_LDB),
                 .cblas_layout = 1, .math = "B := alpha op(A)^-1 B (or B op(A)^-1)"},
    [RT_TRMM] = {.base = "trmm",
                 ROLES(R_SIDE, R_UPLO, R_TRANS, R_DIAG, R_M, R_N, R_ALPHA, R_A,
                       R_LDA, R_B, R_LDB),
                 .cblas_layout = 1, .output = R_B, .reverse_only = 1,
                 .math = "B := alpha op(A) B (or B op(A))"},
    /* LAPACK's auxiliaries, called by potrf's C-interface tangent (the
     * form Enzyme's BLAS gives them: lascl's info by value) */
    [RT_LACPY] = {.base = "lacpy",
                  ROLES(R_UPLO, R_M, R_N, R_A, R_LDA, R_B, R_LDB),
                  .cblas_layout = 1, .lapack = 1,
                  .math = "B's triangle uplo := A's"},
    [RT_LASCL] = {.base = "lascl",
                  ROLES(R_UPLO, R_KL, R_KU, R_CFROM, R_CTO, R_M, R_N, R_A,
                        R_LDA, R_INFO),
                  .cblas_layout = 1, .lapack = 1,
                  .math = "A's part `type` (uplo) *= cto / cfrom"},
    /* called by reverse mode's adjoints (rev/blas.c) */
    [RT_GER] = {.base = "ger",
                ROLES(R_M, R_N, R_ALPHA, R_X, R_INCX, R_Y, R_INCY, R_A,
                      R_LDA),
                .cblas_layout = 1, .output = R_A,
                .math = "A += alpha x y'"},
    [RT_SYR2] = {.base = "syr2",
                 ROLES(R_UPLO, R_N, R_ALPHA, R_X, R_INCX, R_Y, R_INCY, R_A,
                       R_LDA),
                 .cblas_layout = 1, .output = R_A,
                 .math = "A's triangle uplo += alpha (x y' + y x')"},
    [RT_SYMM] = {.base = "symm",
                 ROLES(R_SIDE, R_UPLO, R_M, R_N, R_ALPHA, R_A, R_LDA, R_B,
                       R_LDB, R_BETA, R_C, R_LDC),
                 .cblas_layout = 1, .output = R_C, .reverse_only = 1,
                 .math = "C := alpha A B (or B A) + beta C, A symmetric from "
                         "its triangle uplo"},
    /* differentiated in reverse mode only */
    [RT_TRMV] = {.base = "trmv",
                 ROLES(R_UPLO, R_TRANS, R_DIAG, R_N, R_A, R_LDA, R_X, R_INCX),
                 .cblas_layout = 1, .output = R_X, .reverse_only = 1,
                 .math = "x := op(A) x, A triangular"},
    /* LAPACK's solves; the C forms are Enzyme's BLAS's (info by pointer) */
    [RT_POTRS] = {.base = "potrs",
                  ROLES(R_UPLO, R_N, R_NRHS, R_A, R_LDA, R_B, R_LDB, R_INFO),
                  .cblas_layout = 1, .output = R_B, .reverse_only = 1,
                  .lapack = 1,
                  .math = "B := S^-1 B, S = L L' (or U'U) from potrf's factor"},
    [RT_TRTRS] = {.base = "trtrs",
                  ROLES(R_UPLO, R_TRANS, R_DIAG, R_N, R_NRHS, R_A, R_LDA, R_B,
                        R_LDB, R_INFO),
                  .cblas_layout = 1, .output = R_B, .reverse_only = 1,
                  .lapack = 1, .math = "B := op(A)^-1 B, A triangular"},
};

/* ---- the rows under every interface and precision ---- */

typedef struct blas_variant {
  const blas_routine *rt;
  blas_iface iface;
  unsigned prec;
} blas_variant;

static int emit_blas(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
                     LLVMValueRef clone);

static ad_typed_rule blas_rules[RT_COUNT][IF_COUNT][PREC_COUNT];
static blas_variant blas_variants[RT_COUNT][IF_COUNT][PREC_COUNT];
static char blas_names[RT_COUNT][IF_COUNT][PREC_COUNT][24];
static char blas_types[RT_COUNT][IF_COUNT][PREC_COUNT][MAX_ROLES + 2];
static pthread_once_t blas_built = PTHREAD_ONCE_INIT;

static const char *const iface_prefix[IF_COUNT] = {
    "cblas_", "", "", "", "cublas", "cublas", "cublas", "cublas"};
static const char *const iface_suffix[IF_COUNT] = {
    "", "_", "_64_", "64_", "", "_v2", "_64", "_v2_64"};
static const char prec_letter[PREC_COUNT] = {'d', 's'};
static const char cublas_prec_letter[PREC_COUNT] = {'D', 'S'};

unsigned ad_blas_operand_roles(blas_routine_id id, blas_iface iface,
                               unsigned char *out) {
  const blas_routine *rt = &blas_routines[id];
  unsigned n = 0;
  if (ad_blas_is_cublas(iface))
    out[n++] = R_HANDLE;
  else if (iface == IF_CBLAS && rt->cblas_layout)
    out[n++] = R_LAYOUT;
  for (const unsigned char *r = rt->roles; *r; r++)
    out[n++] = *r;
  if (rt->returns_real && ad_blas_result_by_pointer(iface))
    out[n++] = R_RESULT;
  out[n] = R_END;
  return n;
}

/* The argument classes type analysis learns (registry.h's letters; D and S
 * are arrays of doubles and floats). */
static void type_letters(const blas_routine *rt, blas_iface iface,
                         unsigned prec, char *out) {
  char real = prec == PREC_D ? 'D' : 'S';
  char fint = iface == IF_F77 ? 'I' : 'Z'; /* an int in memory */
  size_t n = 0;
  unsigned char roles[AD_BLAS_MAX_ARGS + 1];
  ad_blas_operand_roles((blas_routine_id)(rt - blas_routines), iface, roles);
  for (const unsigned char *r = roles; *r; r++) {
    role_class c = class_of(*r);
    if (ad_blas_is_cublas(iface))
      /* a scalar by pointer or (Enzyme's cublasDaxpy) by value */
      out[n++] = c == C_ARRAY || c == C_RESULT ? real
                 : c == C_HANDLE ? 'h'
                 : c == C_SCALAR ? '-'
                 : c == C_INFO ? 'I' : 'i';
    else if (*r == R_LAYOUT)
      out[n++] = 'i';
    else if (iface == IF_CBLAS)
      out[n++] = c == C_ARRAY ? real : c == C_SCALAR ? '-' : c == C_INFO ? 'I' : 'i';
    else
      out[n++] = c == C_OPTION ? 'p' : c == C_INT || c == C_INFO ? fint : real;
  }
  out[n] = 0;
}

/* 1 + the operand of the array routine rt updates in place under iface
 * (its output: every routine has one, and reads of it go into it alone),
 * 0 for none (dot, nrm2 and the routines only derivatives call). */
static unsigned char in_place_operand(const blas_routine *rt,
                                      blas_iface iface) {
  if (rt->output == R_END)
    return 0;
  unsigned char roles[AD_BLAS_MAX_ARGS + 1];
  unsigned n = ad_blas_operand_roles((blas_routine_id)(rt - blas_routines),
                                     iface, roles);
  for (unsigned k = 0; k < n; k++)
    if (roles[k] == rt->output)
      return (unsigned char)(k + 1);
  return 0;
}

static void build_blas_rules(void) {
  for (unsigned r = 0; r < RT_COUNT; r++)
    for (unsigned i = 0; i < IF_COUNT; i++)
      for (unsigned p = 0; p < PREC_COUNT; p++) {
        const blas_routine *rt = &blas_routines[r];
        snprintf(blas_names[r][i][p], sizeof blas_names[r][i][p], "%s%c%s%s",
                 iface_prefix[i],
                 ad_blas_is_cublas((blas_iface)i) ? cublas_prec_letter[p]
                                                  : prec_letter[p],
                 rt->base, iface_suffix[i]);
        type_letters(rt, (blas_iface)i, p, blas_types[r][i][p]);
        blas_variants[r][i][p] = (blas_variant){rt, (blas_iface)i, p};
        blas_rules[r][i][p] = (ad_typed_rule){
            {.name = blas_names[r][i][p],
             .emit = emit_blas,
             .data = &blas_variants[r][i][p],
             .writes_pointer_args =
                 rt->output != R_END ||
                 (rt->returns_real && ad_blas_result_by_pointer((blas_iface)i)),
             .updates_in_place = in_place_operand(rt, (blas_iface)i)},
            blas_types[r][i][p]};
      }
}

static int ends_with(const char *s, size_t n, const char *suffix) {
  size_t k = strlen(suffix);
  return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static const ad_typed_rule *blas_typed_lookup(const char *name) {
  size_t n = strlen(name);
  blas_iface iface;
  unsigned prec;
  if (strncmp(name, "cublas", 6) == 0) {
    name += 6, n -= 6;
    if (ends_with(name, n, "_v2_64"))
      iface = IF_CUBLAS_V2_64, n -= 6;
    else if (ends_with(name, n, "_v2"))
      iface = IF_CUBLAS_V2, n -= 3;
    else if (ends_with(name, n, "_64"))
      iface = IF_CUBLAS_64, n -= 3;
    else
      iface = IF_CUBLAS;
    prec = n < 2 ? PREC_COUNT : name[0] == 'D' ? PREC_D
                            : name[0] == 'S' ? PREC_S : PREC_COUNT;
  } else if (strncmp(name, "cblas_", 6) == 0) {
    iface = IF_CBLAS;
    name += 6, n -= 6;
  } else if (ends_with(name, n, "_64_")) {
    iface = IF_F77_64, n -= 4;
  } else if (ends_with(name, n, "64_")) {
    iface = IF_F77_64_OPEN, n -= 3;
  } else if (ends_with(name, n, "_")) {
    iface = IF_F77, n -= 1;
  } else {
    return NULL;
  }
  if (!ad_blas_is_cublas(iface))
    prec = n < 2 ? PREC_COUNT : name[0] == 'd' ? PREC_D
                              : name[0] == 's' ? PREC_S : PREC_COUNT;
  if (prec == PREC_COUNT)
    return NULL;
  for (unsigned r = 0; r < RT_COUNT; r++)
    if (strlen(blas_routines[r].base) == n - 1 &&
        memcmp(blas_routines[r].base, name + 1, n - 1) == 0) {
      if (!blas_routines[r].tangent && !blas_routines[r].reverse_only)
        return NULL;
      if (ad_blas_is_cublas(iface) && blas_routines[r].lapack)
        return NULL;
      pthread_once(&blas_built, build_blas_rules);
      return &blas_rules[r][iface][prec];
    }
  return NULL;
}

static const ad_call_rule *blas_lookup(const char *name) {
  const ad_typed_rule *r = blas_typed_lookup(name);
  return r ? &r->rule : NULL;
}

/* ---- reading the primal call ---- */

static LLVMContextRef ctx_of(blas_call *bc) { return bc->fc->mc->llctx; }
static LLVMBuilderRef b_of(blas_call *bc) { return bc->fc->b; }
static int fortran(const blas_call *bc) { return ad_blas_is_fortran(bc->iface); }
static int cublas(const blas_call *bc) { return ad_blas_is_cublas(bc->iface); }

/* The derivative body's value of role r's operand (the clone's operand). */
static LLVMValueRef prim(blas_call *bc, unsigned r) {
  return LLVMGetOperand(bc->clone, (unsigned)bc->at[r]);
}
static LLVMValueRef orig(blas_call *bc, unsigned r) {
  return LLVMGetOperand(bc->call, (unsigned)bc->at[r]);
}
static int has(const blas_call *bc, unsigned r) { return bc->at[r] >= 0; }

static LLVMValueRef i64_of(blas_call *bc, LLVMValueRef v) {
  return LLVMBuildIntCast2(b_of(bc), v, LLVMInt64TypeInContext(ctx_of(bc)), 1,
                           "");
}

/* An integer role's value, as i64. */
static LLVMValueRef int_value(blas_call *bc, unsigned r) {
  LLVMValueRef v = prim(bc, r);
  if (fortran(bc))
    v = LLVMBuildLoad2(b_of(bc), bc->intty, v, "blas.int");
  return i64_of(bc, v);
}

/* An option's value as i32: a CBLAS enum or a Fortran character. */
static LLVMValueRef option_value(blas_call *bc, unsigned r) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx_of(bc));
  LLVMValueRef v = prim(bc, r);
  if (fortran(bc))
    v = LLVMBuildLoad2(b_of(bc), LLVMInt8TypeInContext(ctx_of(bc)), v, "");
  return LLVMBuildIntCast2(b_of(bc), v, i32, 0, "blas.opt");
}

static const int codes_notrans[] = {111, 'N', 'n', 0};
static const int codes_lower[] = {122, 'L', 'l', 0};
static const int codes_rowmajor[] = {101, 0};

/* option_is under cuBLAS: its enums are 0 for no transpose (CUBLAS_OP_N)
 * and for the lower triangle (CUBLAS_FILL_MODE_LOWER); it has no layout
 * (column-major always). */
static LLVMValueRef cublas_option_is(blas_call *bc, unsigned r,
                                     const int *codes) {
  LLVMTypeRef i1 = LLVMInt1TypeInContext(ctx_of(bc));
  if (codes != codes_notrans && codes != codes_lower)
    return LLVMConstInt(i1, 0, 0);
  return LLVMBuildICmp(b_of(bc), LLVMIntEQ, option_value(bc, r),
                       LLVMConstInt(LLVMInt32TypeInContext(ctx_of(bc)), 0, 0),
                       "");
}

/* Whether option r is one of `codes` (0-terminated): CBLAS enums and
 * characters both, since callers pass either (Enzyme's tests cast the
 * enums to char). */
static LLVMValueRef option_is(blas_call *bc, unsigned r, const int *codes) {
  if (cublas(bc)) /* cuBLAS's own enums: CUBLAS_OP_N, CUBLAS_FILL_MODE_LOWER */
    return cublas_option_is(bc, r, codes);
  LLVMValueRef v = option_value(bc, r), any = NULL;
  for (; *codes; codes++) {
    LLVMValueRef eq = LLVMBuildICmp(
        b_of(bc), LLVMIntEQ, v,
        LLVMConstInt(LLVMInt32TypeInContext(ctx_of(bc)), (unsigned)*codes, 0),
        "");
    any = any ? LLVMBuildOr(b_of(bc), any, eq, "") : eq;
  }
  return any;
}

/* Whether scalar role r comes by pointer (Fortran; cuBLAS, but for
 * Enzyme's stand-in cublasDaxpy, which takes alpha by value): its tangent
 * is then in the pointer's shadow (cuBLAS: host memory, the default
 * CUBLAS_POINTER_MODE_HOST). */
static int scalar_by_pointer(blas_call *bc, unsigned r) {
  return fortran(bc) ||
         (cublas(bc) &&
          LLVMGetTypeKind(LLVMTypeOf(orig(bc, r))) == LLVMPointerTypeKind);
}

/* Whether a scalar role carries a tangent. */
static int scalar_active(blas_call *bc, unsigned r) {
  if (!has(bc, r))
    return 0;
  return scalar_by_pointer(bc, r) ? ad_shadow_or_null(bc->fc, orig(bc, r)) != NULL
                                  : ad_is_active(bc->fc, orig(bc, r));
}

/* Lane `lane` of a scalar role's tangent (0 where a Fortran scalar's
 * shadow is the scalar itself at run time). */
static LLVMValueRef scalar_tangent(blas_call *bc, unsigned r, unsigned lane) {
  ad_fn_ctx *fc = bc->fc;
  if (!scalar_by_pointer(bc, r))
    return ad_lane(fc, ad_shadow_value(fc, orig(bc, r)), lane);
  LLVMValueRef s = ad_lane(fc, ad_shadow_or_null(fc, orig(bc, r)), lane);
  LLVMValueRef v = LLVMBuildLoad2(fc->b, bc->real, s, "blas.dscalar");
  if (ad_shadow_may_equal_primal(fc, orig(bc, r)))
    v = LLVMBuildSelect(fc->b,
                        LLVMBuildICmp(fc->b, LLVMIntEQ, s, prim(bc, r), ""),
                        LLVMConstNull(bc->real), v, "");
  return v;
}

/* Lane `lane` of an array role's shadow, or NULL when it has none; *same
 * gets the run-time "the shadow is the array itself" condition, or NULL. */
static LLVMValueRef array_shadow(blas_call *bc, unsigned r, unsigned lane,
                                 LLVMValueRef *same) {
  ad_fn_ctx *fc = bc->fc;
  *same = NULL;
  if (!has(bc, r))
    return NULL;
  LLVMValueRef sh = ad_shadow_or_null(fc, orig(bc, r));
  if (!sh)
    return NULL;
  LLVMValueRef s = ad_lane(fc, sh, lane);
  if (ad_shadow_may_equal_primal(fc, orig(bc, r)))
    *same = LLVMBuildICmp(fc->b, LLVMIntEQ, s, prim(bc, r), "blas.same");
  return s;
}

static LLVMValueRef either(blas_call *bc, LLVMValueRef a, LLVMValueRef b) {
  return !a ? b : !b ? a : LLVMBuildOr(b_of(bc), a, b, "");
}

/* ---- operands of the calls a tangent makes ---- */

static LLVMValueRef in_memory(blas_call *bc, LLVMTypeRef t, LLVMValueRef v) {
  LLVMValueRef slot = ad_entry_alloca(bc->fc->deriv_fn, t, "blas.arg");
  LLVMBuildStore(b_of(bc), v, slot);
  return slot;
}

/* An integer (any width) as this interface passes it. */
static LLVMValueRef int_operand(blas_call *bc, LLVMValueRef v) {
  v = LLVMBuildIntCast2(b_of(bc), v, bc->intty, 1, "");
  return fortran(bc) ? in_memory(bc, bc->intty, v) : v;
}
static LLVMValueRef int_constant(blas_call *bc, long long k) {
  return int_operand(bc, LLVMConstInt(bc->intty, (unsigned long long)k, 1));
}
static LLVMValueRef real_operand(blas_call *bc, LLVMValueRef v) {
  return fortran(bc) ? in_memory(bc, bc->real, v) : v;
}
static LLVMValueRef real_constant(blas_call *bc, double k) {
  return real_operand(bc, LLVMConstReal(bc->real, k));
}
/* Integer role r, 0 where `zero` holds at run time (the term is skipped:
 * BLAS returns at once on an empty size). */
static LLVMValueRef size_operand(blas_call *bc, unsigned r, LLVMValueRef zero) {
  if (!zero)
    return prim(bc, r);
  LLVMValueRef v = int_value(bc, r);
  return int_operand(bc, LLVMBuildSelect(b_of(bc), zero,
                                         LLVMConstNull(LLVMTypeOf(v)), v, ""));
}

/* Converts v to the parameter type t of an existing declaration. */
static LLVMValueRef coerce_at(LLVMBuilderRef b, LLVMValueRef v, LLVMTypeRef t) {
  LLVMTypeRef vt = LLVMTypeOf(v);
  if (vt == t)
    return v;
  LLVMTypeKind vk = LLVMGetTypeKind(vt), tk = LLVMGetTypeKind(t);
  if (vk == LLVMIntegerTypeKind && tk == LLVMIntegerTypeKind)
    return LLVMBuildIntCast2(b, v, t, 1, "");
  if (vk == LLVMPointerTypeKind && tk == LLVMIntegerTypeKind)
    return LLVMBuildPtrToInt(b, v, t, "");
  if (vk == LLVMIntegerTypeKind && tk == LLVMPointerTypeKind)
    return LLVMBuildIntToPtr(b, v, t, "");
  if (vk == LLVMPointerTypeKind && tk == LLVMPointerTypeKind)
    return LLVMBuildAddrSpaceCast(b, v, t, "");
  if (ad_type_is_float_scalar(vt) && ad_type_is_float_scalar(t))
    return LLVMBuildFPCast(b, v, t, "");
  return NULL;
}
static LLVMValueRef coerce(blas_call *bc, LLVMValueRef v, LLVMTypeRef t) {
  return coerce_at(b_of(bc), v, t);
}

/* A scalar as a declaration of a cuBLAS routine takes it: loaded from
 * the pointer given (scalars are passed by pointer) where it takes a
 * value (Enzyme's stand-in cublasDaxpy), put in memory at the entry of
 * the function where a pointer is given a value. */
static LLVMValueRef scalar_as(LLVMBuilderRef b, LLVMValueRef v, LLVMTypeRef t,
                              LLVMTypeRef real) {
  LLVMTypeRef vt = LLVMTypeOf(v);
  if (LLVMGetTypeKind(vt) == LLVMPointerTypeKind && ad_type_is_float_scalar(t))
    return LLVMBuildLoad2(b, t, v, "blas.scalar");
  if (ad_type_is_float_scalar(vt) && LLVMGetTypeKind(t) == LLVMPointerTypeKind) {
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
    LLVMValueRef slot = ad_entry_alloca(fn, real, "blas.scalar");
    LLVMBuildStore(b, LLVMBuildFPCast(b, v, real, ""), slot);
    return slot;
  }
  return v;
}

LLVMValueRef ad_blas_emit(const ad_blas_site *site, LLVMBuilderRef b,
                          blas_routine_id id, LLVMValueRef *ops,
                          LLVMValueRef *hidden_ops, LLVMTypeRef ret) {
  ad_module_ctx *mc = site->mc;
  const blas_routine *rt = &blas_routines[id];
  pthread_once(&blas_built, build_blas_rules);
  const char *callee = blas_names[id][site->iface][site->prec];
  LLVMValueRef args[MAX_ARGS];
  unsigned char role_of[MAX_ARGS];
  LLVMTypeRef types[MAX_ARGS];
  unsigned n = 0, options = 0;
  int cublas = ad_blas_is_cublas(site->iface);
  if (cublas) {
    if (!site->handle) {
      ad_fail(mc, site->primal, "%s: internal: no handle for %s", site->name,
              rt->base);
      return NULL;
    }
    role_of[n] = R_HANDLE;
    args[n++] = site->handle;
  } else if (site->iface == IF_CBLAS && rt->cblas_layout) {
    if (!site->layout) {
      ad_fail(mc, site->primal, "%s: internal: no layout for %s", site->name,
              rt->base);
      return NULL;
    }
    args[n++] = site->layout;
  }
  for (const unsigned char *r = rt->roles; *r; r++) {
    if (!ops[*r]) {
      ad_fail(mc, site->primal, "%s: internal: no operand for a role of %s",
              site->name, rt->base);
      return NULL;
    }
    options += class_of(*r) == C_OPTION;
    role_of[n] = *r;
    args[n++] = ops[*r];
  }
  int by_pointer = rt->returns_real && ad_blas_result_by_pointer(site->iface);
  if (by_pointer) {
    if (!ops[R_RESULT]) {
      ad_fail(mc, site->primal, "%s: internal: no result pointer for %s",
              site->name, rt->base);
      return NULL;
    }
    role_of[n] = R_RESULT;
    args[n++] = ops[R_RESULT];
  }
  unsigned hidden = 0;
  if (ad_blas_is_fortran(site->iface) && site->hidden_len)
    for (unsigned k = 0; k < options && n < MAX_ARGS; k++, hidden++)
      args[n++] = hidden_ops ? hidden_ops[k]
                             : LLVMConstInt(site->hidden_len, 1, 0);
  for (unsigned k = 0; k < n; k++)
    types[k] = LLVMTypeOf(args[k]);
  LLVMTypeRef rty = rt->returns_real && !by_pointer
                        ? (ret ? ret : site->real)
                    : cublas ? LLVMInt32TypeInContext(mc->llctx) /* status */
                             : LLVMVoidTypeInContext(mc->llctx);
  LLVMValueRef fn = ad_get_or_insert_helper(mc->mod, site->primal, callee,
                                            LLVMFunctionType(rty, types, n, 0));
  if (!fn) {
    ad_fail(mc, site->primal, "%s: out of memory", site->name);
    return NULL;
  }
  /* an existing declaration (the primal's own, or the program's) decides
   * the operand types */
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
  unsigned np = LLVMCountParamTypes(ft), nroles = n - hidden;
  if (np > MAX_ARGS || np > n || (np < nroles && !LLVMIsFunctionVarArg(ft))) {
    ad_fail(mc, site->primal,
            "%s: %s is declared with %u parameters; its derivative passes %u",
            site->name, callee, np, n);
    return NULL;
  }
  if (np < n && !LLVMIsFunctionVarArg(ft))
    n = np; /* hidden lengths the declaration does not take */
  LLVMTypeRef pt[MAX_ARGS];
  LLVMGetParamTypes(ft, pt);
  for (unsigned k = 0; k < np; k++) {
    if (cublas && k < nroles && class_of(role_of[k]) == C_SCALAR)
      args[k] = scalar_as(b, args[k], pt[k], site->real);
    if (!(args[k] = coerce_at(b, args[k], pt[k]))) {
      ad_fail(mc, site->primal,
              "%s: parameter %u of %s has another type than its derivative "
              "passes",
              site->name, k + 1, callee);
      return NULL;
    }
  }
  LLVMValueRef c = ad_call_helper(b, fn, args, n, "blas.t");
  /* a narrow option (cuBLAS's enums as a char) extended as the callee
   * expects it */
  static const char *const ext[] = {"signext", "zeroext"};
  for (unsigned k = 0; k < np; k++)
    for (unsigned e = 0; e < 2; e++) {
      unsigned kind = LLVMGetEnumAttributeKindForName(ext[e], strlen(ext[e]));
      LLVMAttributeRef at = LLVMGetEnumAttributeAtIndex(fn, k + 1, kind);
      if (at)
        LLVMAddCallSiteAttribute(c, k + 1, at);
    }
  if (LLVMInstructionGetDebugLoc(site->primal))
    LLVMInstructionSetDebugLoc(c, LLVMInstructionGetDebugLoc(site->primal));
  return c;
}

/*
 * Emits routine `id` of this call's interface and precision with the
 * operands `ops` gives per role (operand form; the layout is the primal's),
 * declared next to the primal call.  A Fortran call with hidden lengths
 * passes them on (the primal's own for the same routine, else 1 each).
 * The call's result (NULL on failure, reported).
 */
static LLVMValueRef emit_routine(blas_call *bc, blas_routine_id id,
                                 LLVMValueRef *ops) {
  const blas_routine *rt = &blas_routines[id];
  int with_hidden = fortran(bc) && bc->nargs > bc->nroles;
  ad_blas_site site = {
      .mc = bc->fc->mc, .primal = bc->call, .iface = bc->iface,
      .prec = bc->prec, .real = bc->real,
      .layout = bc->iface == IF_CBLAS && rt->cblas_layout ? prim(bc, R_LAYOUT)
                                                          : NULL,
      .handle = has(bc, R_HANDLE) ? prim(bc, R_HANDLE) : NULL,
      .hidden_len = with_hidden
                        ? LLVMTypeOf(LLVMGetOperand(bc->clone, bc->nroles))
                        : NULL,
      .name = bc->name};
  LLVMValueRef own[MAX_ARGS];
  LLVMValueRef *hidden = NULL;
  if (with_hidden) {
    unsigned options = 0;
    for (const unsigned char *r = rt->roles; *r; r++)
      options += class_of(*r) == C_OPTION;
    for (unsigned k = 0; k < options && k < MAX_ARGS; k++)
      own[k] = rt == bc->rt && bc->nroles + k < bc->nargs
                   ? LLVMGetOperand(bc->clone, bc->nroles + k)
                   : LLVMConstInt(site.hidden_len, 1, 0);
    hidden = own;
  }
  return ad_blas_emit(&site, b_of(bc), id, ops, hidden,
                      rt == bc->rt ? LLVMTypeOf(bc->call) : bc->real);
}

/* The primal operands of every role this call has. */
static void primal_operands(blas_call *bc, LLVMValueRef *ops) {
  for (unsigned r = 0; r < R_COUNT; r++)
    ops[r] = has(bc, r) ? prim(bc, r) : NULL;
}

/* The size roles of routine id: zeroed together to skip a call. */
static void zero_sizes(blas_call *bc, blas_routine_id id, LLVMValueRef *ops,
                       LLVMValueRef zero) {
  if (!zero)
    return;
  for (const unsigned char *r = blas_routines[id].roles; *r; r++)
    if (*r == R_M || *r == R_N || *r == R_K)
      ops[*r] = size_operand(bc, *r, zero);
}

/* ---- tangents ---- */

/* Active values into an output with no shadow: refused, but for an
 * enzyme_const buffer nothing reads back, where the tangent is dropped (0),
 * as in Enzyme. */
static int no_shadow_for_output(blas_call *bc) {
  if (ad_fwd_into_unread_constant(bc->fc, orig(bc, bc->rt->output)))
    return 0;
  return ad_fail(bc->fc->mc, bc->call,
                 "%s writes active values into memory with no shadow "
                 "(argument %d: a constant argument whose memory the "
                 "function may read back, or unknown memory)",
                 bc->name, bc->at[bc->rt->output] + 1);
}

/* The clone taken out of its block while the tangent work that must see
 * the old output is emitted, then put back at the builder. */
static int take_out_clone(blas_call *bc) {
  if (LLVMGetNextInstruction(bc->clone))
    return ad_fail(bc->fc->mc, bc->call,
                   "%s: internal: the primal clone is not the last "
                   "instruction of its block",
                   bc->name);
  LLVMInstructionRemoveFromParent(bc->clone);
  return 0;
}
static void put_back_clone(blas_call *bc) {
  LLVMInsertIntoBuilder(b_of(bc), bc->clone);
}

/* Emits a tangent that reads the primal's inputs before the primal call
 * overwrites them: the clone is taken out while `emit` writes, and put
 * back after it (also on failure: the clone belongs to its block). */
static int before_primal(blas_call *bc, int (*emit)(blas_call *)) {
  if (take_out_clone(bc) != 0)
    return -1;
  int rc = emit(bc);
  put_back_clone(bc);
  return rc;
}

/* A counted loop j = 0 .. count-1 (i64) emitted at the builder: between
 * loop_begin and loop_end the builder is in its body. */
typedef struct blas_loop {
  LLVMBasicBlockRef pre, head, done;
  LLVMValueRef j;
} blas_loop;

static void loop_begin(blas_call *bc, LLVMValueRef count, blas_loop *l,
                       const char *name) {
  LLVMBuilderRef b = b_of(bc);
  LLVMContextRef c = ctx_of(bc);
  LLVMValueRef fn = bc->fc->deriv_fn;
  l->pre = LLVMGetInsertBlock(b);
  l->head = LLVMAppendBasicBlockInContext(c, fn, name);
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c, fn, name);
  l->done = LLVMAppendBasicBlockInContext(c, fn, name);
  LLVMBuildBr(b, l->head);
  LLVMPositionBuilderAtEnd(b, l->head);
  l->j = LLVMBuildPhi(b, LLVMInt64TypeInContext(c), "blas.j");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, l->j, count, ""), body,
                  l->done);
  LLVMPositionBuilderAtEnd(b, body);
}

static void loop_end(blas_call *bc, blas_loop *l) {
  LLVMBuilderRef b = b_of(bc);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx_of(bc));
  LLVMValueRef next = LLVMBuildAdd(b, l->j, LLVMConstInt(i64, 1, 0), "");
  LLVMBasicBlockRef body_end = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, l->head);
  LLVMValueRef in_v[2] = {LLVMConstNull(i64), next};
  LLVMBasicBlockRef in_b[2] = {l->pre, body_end};
  LLVMAddIncoming(l->j, in_v, in_b, 2);
  LLVMPositionBuilderAtEnd(b, l->done);
}

/* base[i]; base may be an integer holding the address (Julia's Ptr as
 * i64) */
static LLVMValueRef element(blas_call *bc, LLVMValueRef base, LLVMValueRef i) {
  if (LLVMGetTypeKind(LLVMTypeOf(base)) != LLVMPointerTypeKind)
    base = LLVMBuildIntToPtr(b_of(bc), base,
                             LLVMPointerTypeInContext(ctx_of(bc), 0), "");
  return LLVMBuildGEP2(b_of(bc), bc->real, base, &i, 1, "");
}

/* dout += dbeta * out (the old output), per vector or column. */
static int beta_term(blas_call *bc, LLVMValueRef dout, LLVMValueRef same_out,
                     unsigned lane) {
  const blas_routine *rt = bc->rt;
  LLVMBuilderRef b = b_of(bc);
  LLVMContextRef c = ctx_of(bc);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef dbeta = scalar_tangent(bc, R_BETA, lane);
  LLVMValueRef ops[R_COUNT] = {0};
  if (rt->beta_form == BETA_VECTOR) {
    LLVMValueRef len = rt == &blas_routines[RT_GEMV]
                           ? LLVMBuildSelect(b, option_is(bc, R_TRANS, codes_notrans),
                                             int_value(bc, R_M),
                                             int_value(bc, R_N), "")
                           : int_value(bc, R_N);
    LLVMValueRef skip = either(
        bc, same_out,
        LLVMBuildFCmp(b, LLVMRealOEQ, dbeta, LLVMConstNull(bc->real), ""));
    len = LLVMBuildSelect(b, skip, LLVMConstNull(i64), len, "");
    ops[R_N] = int_operand(bc, len);
    ops[R_ALPHA] = real_operand(bc, dbeta);
    ops[R_X] = prim(bc, R_Y);
    ops[R_INCX] = ops[R_INCY] = prim(bc, R_INCY);
    ops[R_Y] = dout;
    return emit_routine(bc, RT_AXPY, ops) ? 0 : -1;
  }
  /* a matrix: one axpy per column (per row in row-major), over the whole
   * column or over its part in triangle uplo */
  LLVMValueRef rowmajor = !fortran(bc) && !cublas(bc)
                               ? option_is(bc, R_LAYOUT, codes_rowmajor)
                                       : LLVMConstInt(LLVMInt1TypeInContext(c), 0, 0);
  LLVMValueRef outer, inner = NULL, lower_cm = NULL;
  if (rt->beta_form == BETA_MATRIX) {
    LLVMValueRef m = int_value(bc, R_M), n = int_value(bc, R_N);
    outer = LLVMBuildSelect(b, rowmajor, m, n, "");
    inner = LLVMBuildSelect(b, rowmajor, n, m, "");
  } else {
    outer = int_value(bc, R_N);
    /* a row-major upper triangle is a column-major lower one */
    lower_cm = LLVMBuildXor(b, option_is(bc, R_UPLO, codes_lower), rowmajor, "");
  }
  LLVMValueRef skip = LLVMBuildFCmp(b, LLVMRealOEQ, dbeta,
                                    LLVMConstNull(bc->real), "");
  skip = either(bc, skip, same_out);
  outer = LLVMBuildSelect(b, skip, LLVMConstNull(i64), outer, "");
  LLVMValueRef ld = int_value(bc, R_LDC);
  LLVMValueRef alpha = real_operand(bc, dbeta), one = int_constant(bc, 1);
  blas_loop loop;
  loop_begin(bc, outer, &loop, "blas.dbeta");
  LLVMValueRef j = loop.j;
  LLVMValueRef start = LLVMBuildMul(b, j, ld, "");
  LLVMValueRef len = inner;
  if (lower_cm) {
    LLVMValueRef n = int_value(bc, R_N);
    start = LLVMBuildAdd(b, start,
                         LLVMBuildSelect(b, lower_cm, j, LLVMConstNull(i64), ""), "");
    len = LLVMBuildSelect(b, lower_cm, LLVMBuildSub(b, n, j, ""),
                          LLVMBuildAdd(b, j, LLVMConstInt(i64, 1, 0), ""), "");
  }
  ops[R_N] = int_operand(bc, len);
  ops[R_ALPHA] = alpha;
  ops[R_X] = element(bc, prim(bc, R_C), start);
  ops[R_Y] = element(bc, dout, start);
  ops[R_INCX] = ops[R_INCY] = one;
  if (!emit_routine(bc, RT_AXPY, ops))
    return -1;
  loop_end(bc, &loop);
  return 0;
}

/* Whether term t's input carries a tangent. */
static int term_active(blas_call *bc, const blas_term *t) {
  if (class_of(t->input) == C_SCALAR)
    return scalar_active(bc, t->input);
  return has(bc, t->input) && ad_shadow_or_null(bc->fc, orig(bc, t->input));
}

/*
 * An output updated linearly (axpy, gemv, symv, gemm, syrk, syr2k):
 * dout = beta dout + the row's terms + dbeta out.  The first term carries
 * the primal's beta onto dout; with no term, the routine with alpha = 0
 * scales dout alone (BLAS's own handling of beta, 0 included).
 */
static int tangent_update(blas_call *bc) {
  ad_fn_ctx *fc = bc->fc;
  const blas_routine *rt = bc->rt;
  int beta = has(bc, R_BETA);
  int any = beta && scalar_active(bc, R_BETA);
  for (const blas_term *t = rt->terms; t->input; t++)
    any |= term_active(bc, t);
  if (!ad_shadow_or_null(fc, orig(bc, rt->output)))
    return any ? no_shadow_for_output(bc) : 0;
  if (!any && !beta)
    return 0; /* axpy onto a shadow with nothing active: dy unchanged */
  if (take_out_clone(bc) != 0)
    return -1;
  int rc = 0;
  for (unsigned lane = 0; lane < fc->width && rc == 0; lane++)
    rc = update_lane(bc, lane);
  put_back_clone(bc); /* also on failure: the clone belongs to its block */
  return rc;
}

/* One lane of tangent_update, before the primal. */
static int update_lane(blas_call *bc, unsigned lane) {
  ad_fn_ctx *fc = bc->fc;
  const blas_routine *rt = bc->rt;
  int beta = has(bc, R_BETA);
  blas_routine_id self = (blas_routine_id)(rt - blas_routines);
  LLVMValueRef same_out;
  LLVMValueRef dout = array_shadow(bc, rt->output, lane, &same_out);
  int pending_beta = beta;
  for (const blas_term *t = rt->terms; t->input; t++) {
    if (!term_active(bc, t))
      continue;
    LLVMValueRef ops[R_COUNT], same_in = NULL;
    primal_operands(bc, ops);
    if (class_of(t->input) == C_SCALAR) {
      /* a Fortran scalar's slot is active memory whenever the call is
       * (it writes through its pointers): skip a zero tangent's term */
      LLVMValueRef d = scalar_tangent(bc, t->input, lane);
      if (scalar_by_pointer(bc, t->input))
        same_in = LLVMBuildFCmp(fc->b, LLVMRealOEQ, d,
                                LLVMConstNull(bc->real), "blas.zero");
      ops[t->input] = real_operand(bc, d);
    } else
      ops[t->as_b ? R_B : t->input] =
          array_shadow(bc, t->input, lane, &same_in);
    if (t->as_b)
      ops[R_LDB] = prim(bc, R_LDA);
    if (pending_beta && same_in) {
      /* this term may be skipped at run time: scale on its own */
      LLVMValueRef sops[R_COUNT];
      primal_operands(bc, sops);
      sops[R_ALPHA] = real_constant(bc, 0.0);
      sops[rt->output] = dout;
      zero_sizes(bc, self, sops, same_out);
      if (!emit_routine(bc, self, sops))
        return -1;
      pending_beta = 0;
    }
    ops[rt->output] = dout;
    if (beta && !pending_beta)
      ops[R_BETA] = real_constant(bc, 1.0);
    pending_beta = 0;
    zero_sizes(bc, (blas_routine_id)t->callee, ops, either(bc, same_out, same_in));
    if (!emit_routine(bc, (blas_routine_id)t->callee, ops))
      return -1;
  }
  if (pending_beta && rt->beta_form == BETA_TRIANGLE && !fortran(bc) &&
      !cublas(bc) &&
      LLVMGetNamedFunction(fc->mc->mod, blas_names[RT_LASCL][bc->iface][bc->prec])) {
    /* dC := beta dC on the triangle alone: where the program's BLAS has
     * a C-interface lascl (Enzyme's does, and scales with it), by lascl;
     * CBLAS proper has none, so elsewhere by the routine with alpha 0 */
    LLVMValueRef ops[R_COUNT] = {0};
    ops[R_UPLO] = prim(bc, R_UPLO);
    ops[R_KL] = ops[R_KU] = int_constant(bc, 0);
    ops[R_CFROM] = real_constant(bc, 1.0);
    ops[R_CTO] = prim(bc, R_BETA);
    ops[R_M] = ops[R_N] = size_operand(bc, R_N, same_out);
    ops[R_A] = dout;
    ops[R_LDA] = prim(bc, R_LDC);
    ops[R_INFO] = LLVMConstNull(bc->intty);
    if (!emit_routine(bc, RT_LASCL, ops))
      return -1;
    pending_beta = 0;
  }
  if (pending_beta) {
    LLVMValueRef ops[R_COUNT];
    primal_operands(bc, ops);
    ops[R_ALPHA] = real_constant(bc, 0.0);
    ops[rt->output] = dout;
    zero_sizes(bc, self, ops, same_out);
    if (!emit_routine(bc, self, ops))
      return -1;
  }
  if (beta && scalar_active(bc, R_BETA) &&
      beta_term(bc, dout, same_out, lane) != 0)
    return -1;
  return 0;
}

/* dot: dr = dot(dx, y) + dot(x, dy), before the primal. */
static int tangent_dot(blas_call *bc) {
  return ad_is_active(bc->fc, bc->call) ? before_primal(bc, dot_lanes) : 0;
}

static int dot_lanes(blas_call *bc) {
  ad_fn_ctx *fc = bc->fc;
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef sum = NULL;
    for (const blas_term *t = bc->rt->terms; t->input; t++) {
      LLVMValueRef ops[R_COUNT], same;
      primal_operands(bc, ops);
      if (!(ops[t->input] = array_shadow(bc, t->input, lane, &same)))
        continue;
      zero_sizes(bc, RT_DOT, ops, same);
      LLVMValueRef d = emit_routine(bc, RT_DOT, ops);
      if (!d)
        return -1;
      sum = sum ? LLVMBuildFAdd(fc->b, sum, d, "") : d;
    }
    lanes[lane] = sum ? sum : LLVMConstNull(LLVMTypeOf(bc->call));
  }
  ad_set_shadow(fc, bc->call, ad_pack(fc, LLVMTypeOf(bc->call), lanes));
  return 0;
}

/* nrm2: r = |x|, dr = dot(x, dx) / r; 0 where r = 0 (|x| has no
 * derivative at 0; 0 is its least subgradient).  As Enzyme does, before
 * the primal, with r from a call of its own (the trace its test expects;
 * one more O(n) call). */
static int tangent_nrm2(blas_call *bc) {
  return ad_is_active(bc->fc, bc->call) ? before_primal(bc, nrm2_lanes) : 0;
}

static int nrm2_lanes(blas_call *bc) {
  ad_fn_ctx *fc = bc->fc;
  LLVMTypeRef t = LLVMTypeOf(bc->call);
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef ops[R_COUNT], same;
    primal_operands(bc, ops);
    ops[R_Y] = array_shadow(bc, R_X, lane, &same);
    if (!ops[R_Y]) {
      lanes[lane] = LLVMConstNull(t);
      continue;
    }
    ops[R_INCY] = ops[R_INCX];
    zero_sizes(bc, RT_DOT, ops, same);
    LLVMValueRef d = emit_routine(bc, RT_DOT, ops);
    if (!d)
      return -1;
    d = coerce(bc, d, t);
    LLVMValueRef nops[R_COUNT];
    primal_operands(bc, nops);
    LLVMValueRef r = emit_routine(bc, RT_NRM2, nops);
    if (!r)
      return -1;
    r = coerce(bc, r, t);
    LLVMValueRef zero = LLVMBuildFCmp(fc->b, LLVMRealOEQ, r,
                                      LLVMConstNull(t), "");
    lanes[lane] = LLVMBuildSelect(fc->b, zero, LLVMConstNull(t),
                                  LLVMBuildFDiv(fc->b, d, r, ""),
                                  "blas.dnrm2");
  }
  ad_set_shadow(fc, bc->call, ad_pack(fc, t, lanes));
  return 0;
}

/* scal: x := alpha x; dx := alpha dx + dalpha x (the old x: before the
 * primal). */
static int tangent_scal(blas_call *bc) {
  ad_fn_ctx *fc = bc->fc;
  int dalpha = scalar_active(bc, R_ALPHA);
  if (!ad_shadow_or_null(fc, orig(bc, R_X)))
    return dalpha ? no_shadow_for_output(bc) : 0;
  if (take_out_clone(bc) != 0)
    return -1;
  int rc = 0;
  for (unsigned lane = 0; lane < fc->width && rc == 0; lane++)
    rc = scal_lane(bc, lane, dalpha);
  put_back_clone(bc);
  return rc;
}

static int scal_lane(blas_call *bc, unsigned lane, int dalpha) {
  ad_fn_ctx *fc = bc->fc;
  LLVMValueRef ops[R_COUNT], same;
  primal_operands(bc, ops);
  ops[R_X] = array_shadow(bc, R_X, lane, &same);
  zero_sizes(bc, RT_SCAL, ops, same);
  LLVMValueRef dx = ops[R_X];
  if (!emit_routine(bc, RT_SCAL, ops))
    return -1;
  if (!dalpha)
    return 0;
  primal_operands(bc, ops);
  LLVMValueRef d = scalar_tangent(bc, R_ALPHA, lane);
  ops[R_ALPHA] = real_operand(bc, d);
  ops[R_Y] = dx;
  ops[R_INCY] = ops[R_INCX];
  zero_sizes(bc, RT_AXPY, ops,
             either(bc, same,
                    scalar_by_pointer(bc, R_ALPHA)
                        ? LLVMBuildFCmp(fc->b, LLVMRealOEQ, d,
                                        LLVMConstNull(bc->real), "")
                        : NULL));
  if (!emit_routine(bc, RT_AXPY, ops))
    return -1;
  return 0;
}

/* copy: dy := dx; an inactive x zeroes dy (scal by 0 with |incy|, which
 * visits the elements a negative incy does: scal skips incx <= 0). */
static int tangent_copy(blas_call *bc) {
  ad_fn_ctx *fc = bc->fc;
  int dx = ad_shadow_or_null(fc, orig(bc, R_X)) != NULL;
  if (!ad_shadow_or_null(fc, orig(bc, R_Y)))
    return dx ? no_shadow_for_output(bc) : 0;
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef ops[R_COUNT], same_out, same_in = NULL;
    primal_operands(bc, ops);
    ops[R_Y] = array_shadow(bc, R_Y, lane, &same_out);
    if (dx) {
      ops[R_X] = array_shadow(bc, R_X, lane, &same_in);
      /* where dx is x itself (inactive memory), dy := 0 instead */
      zero_sizes(bc, RT_COPY, ops, either(bc, same_out, same_in));
      if (!emit_routine(bc, RT_COPY, ops))
        return -1;
      if (!same_in)
        continue;
    }
    LLVMValueRef zops[R_COUNT];
    primal_operands(bc, zops);
    LLVMValueRef inc = int_value(bc, R_INCY);
    LLVMValueRef neg = LLVMBuildNeg(fc->b, inc, "");
    zops[R_INCX] = int_operand(
        bc, LLVMBuildSelect(fc->b,
                            LLVMBuildICmp(fc->b, LLVMIntSLT, inc,
                                          LLVMConstNull(LLVMTypeOf(inc)), ""),
                            neg, inc, ""));
    zops[R_ALPHA] = real_constant(bc, 0.0);
    zops[R_X] = ops[R_Y];
    /* dx present: only where it is x itself; else always (but not where
     * dy is y itself) */
    LLVMValueRef skip = same_out;
    if (dx)
      skip = either(bc, skip, LLVMBuildNot(fc->b, same_in, ""));
    zero_sizes(bc, RT_SCAL, zops, skip);
    if (!emit_routine(bc, RT_SCAL, zops))
      return -1;
  }
  return 0;
}

/* A character option of a Fortran call, chosen at run time. */
static LLVMValueRef char_operand(blas_call *bc, LLVMValueRef cond, char yes,
                                 char no) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx_of(bc));
  return in_memory(bc, i8,
                   LLVMBuildSelect(b_of(bc), cond,
                                   LLVMConstInt(i8, (unsigned char)yes, 0),
                                   LLVMConstInt(i8, (unsigned char)no, 0), ""));
}

/* A triangular solve or product with the factor on the n x n work matrix
 * w: side and transpose chosen by the factor's triangle. */
static int factor_call(blas_call *bc, blas_routine_id id, LLVMValueRef lower,
                       char side_lower, char side_upper, char trans_lower,
                       char trans_upper, LLVMValueRef nop, LLVMValueRef w) {
  LLVMValueRef ops[R_COUNT] = {0};
  ops[R_SIDE] = char_operand(bc, lower, side_lower, side_upper);
  ops[R_UPLO] = prim(bc, R_UPLO);
  ops[R_TRANS] = char_operand(bc, lower, trans_lower, trans_upper);
  ops[R_DIAG] = char_operand(bc, lower, 'N', 'N');
  ops[R_M] = ops[R_N] = ops[R_LDB] = nop;
  ops[R_ALPHA] = real_constant(bc, 1.0);
  ops[R_A] = prim(bc, R_A);
  ops[R_LDA] = prim(bc, R_LDA);
  ops[R_B] = w;
  return emit_routine(bc, id, ops) ? 0 : -1;
}

/* Column j of the uplo triangle of an n x n matrix: rows [off, off + len). */
static void triangle_column(blas_call *bc, LLVMValueRef lower, LLVMValueRef j,
                            LLVMValueRef n, LLVMValueRef *off,
                            LLVMValueRef *len) {
  LLVMBuilderRef b = b_of(bc);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx_of(bc));
  *off = LLVMBuildSelect(b, lower, j, LLVMConstNull(i64), "");
  *len = LLVMBuildSelect(b, lower, LLVMBuildSub(b, n, j, ""),
                         LLVMBuildAdd(b, j, LLVMConstInt(i64, 1, 0), ""), "");
}

/* base + row + col * ld, i64 indices */
static LLVMValueRef at_rc(blas_call *bc, LLVMValueRef base, LLVMValueRef row,
                          LLVMValueRef col, LLVMValueRef ld) {
  LLVMBuilderRef b = b_of(bc);
  return element(bc, base,
                 LLVMBuildAdd(b, row, LLVMBuildMul(b, col, ld, ""), ""));
}

/*
 * potrf (LAPACK, Fortran): A := L with A = L L' (uplo 'L'; 'U': A = U'U).
 * After the primal, per lane, in a work matrix W (n x n, malloc'd):
 * W := dA symmetrized from its uplo triangle (what potrf reads), W :=
 * L^-1 W L^-T by two trsm, Phi(W) (the other triangle zeroed, the diagonal
 * halved), W := L W by trmm (for 'U': U^-T W U^-1, then W U), and the uplo
 * triangle of W copied back into dA's (the other triangle, which potrf
 * does not touch, keeps its tangent).  A failed factorization (info != 0)
 * leaves dA as it is.
 */
static int tangent_potrf(blas_call *bc) {
  ad_fn_ctx *fc = bc->fc;
  if (!ad_shadow_or_null(fc, orig(bc, R_A)))
    return 0;
  if (!fortran(bc))
    return tangent_potrf_c(bc);
  LLVMBuilderRef b = fc->b;
  LLVMContextRef c = ctx_of(bc);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef malloc_t = LLVMFunctionType(ptr, &i64, 1, 0);
  LLVMTypeRef free_t = LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0);
  /* plain C allocation, whatever library the factorization came from */
  LLVMValueRef fn_malloc =
      ad_get_or_insert_helper(fc->mc->mod, NULL, "malloc", malloc_t);
  LLVMValueRef fn_free =
      ad_get_or_insert_helper(fc->mc->mod, NULL, "free", free_t);
  if (!fn_malloc || !fn_free)
    return ad_fail(fc->mc, bc->call, "%s: out of memory", bc->name);
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef same;
    LLVMValueRef dA = array_shadow(bc, R_A, lane, &same);
    LLVMValueRef n = int_value(bc, R_N), ld = int_value(bc, R_LDA);
    LLVMValueRef info = LLVMBuildLoad2(b, bc->intty, prim(bc, R_INFO), "");
    LLVMValueRef skip = either(
        bc, same,
        LLVMBuildICmp(b, LLVMIntNE, info, LLVMConstNull(bc->intty), ""));
    n = LLVMBuildSelect(b, skip, LLVMConstNull(i64), n, "");
    LLVMValueRef lower = option_is(bc, R_UPLO, codes_lower);
    LLVMValueRef bytes = LLVMBuildMul(
        b, LLVMBuildMul(b, n, n, ""),
        LLVMConstInt(i64, LLVMABISizeOfType(fc->mc->td, bc->real), 0), "");
    bytes = LLVMBuildAdd(b, bytes, LLVMConstInt(i64, 8, 0), ""); /* never 0 */
    LLVMValueRef w = ad_call_helper(b, fn_malloc, &bytes, 1, "blas.work");
    LLVMValueRef nop = int_operand(bc, n), one = int_constant(bc, 1);
    LLVMValueRef off, len, ops[R_COUNT] = {0};
    /* W := dA symmetrized: column j's part of the triangle into W's
     * column j and row j */
    blas_loop loop;
    loop_begin(bc, n, &loop, "blas.potrf.sym");
    triangle_column(bc, lower, loop.j, n, &off, &len);
    ops[R_N] = int_operand(bc, len);
    ops[R_X] = at_rc(bc, dA, off, loop.j, ld);
    ops[R_INCX] = ops[R_INCY] = one;
    ops[R_Y] = at_rc(bc, w, off, loop.j, n);
    if (!emit_routine(bc, RT_COPY, ops))
      return -1;
    ops[R_Y] = at_rc(bc, w, loop.j, off, n);
    ops[R_INCY] = int_operand(bc, n);
    if (!emit_routine(bc, RT_COPY, ops))
      return -1;
    loop_end(bc, &loop);
    /* W := L^-1 W L^-T ('U': U^-T W U^-1) */
    if (factor_call(bc, RT_TRSM, lower, 'L', 'L', 'N', 'T', nop, w) != 0 ||
        factor_call(bc, RT_TRSM, lower, 'R', 'R', 'T', 'N', nop, w) != 0)
      return -1;
    /* Phi: the other triangle zeroed (column j: rows [0, j) for 'L',
     * (j, n) for 'U'), then the diagonal halved */
    loop_begin(bc, n, &loop, "blas.potrf.phi");
    LLVMValueRef j1 = LLVMBuildAdd(b, loop.j, LLVMConstInt(i64, 1, 0), "");
    memset(ops, 0, sizeof ops);
    ops[R_N] = int_operand(
        bc, LLVMBuildSelect(b, lower, loop.j, LLVMBuildSub(b, n, j1, ""), ""));
    ops[R_ALPHA] = real_constant(bc, 0.0);
    ops[R_X] = at_rc(bc, w,
                     LLVMBuildSelect(b, lower, LLVMConstNull(i64), j1, ""),
                     loop.j, n);
    ops[R_INCX] = one;
    if (!emit_routine(bc, RT_SCAL, ops))
      return -1;
    loop_end(bc, &loop);
    ops[R_N] = nop;
    ops[R_ALPHA] = real_constant(bc, 0.5);
    ops[R_X] = w;
    ops[R_INCX] =
        int_operand(bc, LLVMBuildAdd(b, n, LLVMConstInt(i64, 1, 0), ""));
    if (!emit_routine(bc, RT_SCAL, ops))
      return -1;
    /* W := L W ('U': W U) */
    if (factor_call(bc, RT_TRMM, lower, 'L', 'R', 'N', 'N', nop, w) != 0)
      return -1;
    /* dA's triangle := W's */
    loop_begin(bc, n, &loop, "blas.potrf.back");
    triangle_column(bc, lower, loop.j, n, &off, &len);
    memset(ops, 0, sizeof ops);
    ops[R_N] = int_operand(bc, len);
    ops[R_X] = at_rc(bc, w, off, loop.j, n);
    ops[R_Y] = at_rc(bc, dA, off, loop.j, ld);
    ops[R_INCX] = ops[R_INCY] = one;
    if (!emit_routine(bc, RT_COPY, ops))
      return -1;
    loop_end(bc, &loop);
    ad_call_helper(b, fn_free, &w, 1, "");
  }
  return 0;
}

/* An option derived from potrf's uplo for the calls of its C-interface
 * tangent, in the type the primal passes uplo: a CBLAS enum where uplo is
 * one (CblasUpper 121 / CblasLower 122), else a character in uplo's case
 * where `keep_case` (Enzyme's BLAS maps 'l' to 'n', 'L' to 'N'). */
static LLVMValueRef uplo_derived(blas_call *bc, LLVMValueRef lower, char lo,
                                 char up, int enum_lo, int enum_up,
                                 int keep_case) {
  LLVMBuilderRef b = b_of(bc);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx_of(bc));
  static const int codes_enum[] = {121, 122, 0};
  LLVMValueRef u = option_value(bc, R_UPLO);
  LLVMValueRef c = LLVMBuildSelect(b, lower, LLVMConstInt(i32, (unsigned char)lo, 0),
                                   LLVMConstInt(i32, (unsigned char)up, 0), "");
  if (keep_case)
    c = LLVMBuildOr(b, c, LLVMBuildAnd(b, u, LLVMConstInt(i32, 0x20, 0), ""), "");
  LLVMValueRef e = LLVMBuildSelect(b, lower, LLVMConstInt(i32, (unsigned)enum_lo, 0),
                                   LLVMConstInt(i32, (unsigned)enum_up, 0), "");
  LLVMValueRef v = LLVMBuildSelect(b, option_is(bc, R_UPLO, codes_enum), e, c,
                                   "blas.opt");
  return LLVMBuildIntCast2(b, v, LLVMTypeOf(prim(bc, R_UPLO)), 0, "");
}

/*
 * potrf through a C interface, cblas_dpotrf(layout, uplo, n, A, lda, info)
 * (the name Enzyme's BLAS gives LAPACKE's form): the tangent of the
 * Fortran form (tangent_potrf above), computed in place in dA with calls
 * of the same interface, in the order Enzyme emits them (its BLAS test
 * compares the traces): after the primal,
 *   T := dA's other triangle (lacpy); dA symmetrized from triangle uplo
 *   (n - 1 copies, one per row or column); dA := L^-1 dA L^-T (two trsm;
 *   'U': U^-T dA U^-1); Phi: the diagonal halved (scal), the other
 *   triangle zeroed (lascl by 0, the diagonal kept aside in t and put
 *   back); dA := L dA (trmm; 'U': dA U); the other triangle restored from
 *   T, the diagonal kept.
 * Row and column major both: the copies step by the layout's strides, the
 * other calls take the layout.  A status pointer that is not null and
 * reports a failed factorization leaves dA as it is.
 */
static int tangent_potrf_c(blas_call *bc) {
  ad_fn_ctx *fc = bc->fc;
  LLVMBuilderRef b = fc->b;
  LLVMContextRef c = ctx_of(bc);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef malloc_t = LLVMFunctionType(ptr, &i64, 1, 0);
  LLVMTypeRef free_t = LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0);
  LLVMValueRef fn_malloc =
      ad_get_or_insert_helper(fc->mc->mod, NULL, "malloc", malloc_t);
  LLVMValueRef fn_free =
      ad_get_or_insert_helper(fc->mc->mod, NULL, "free", free_t);
  if (!fn_malloc || !fn_free)
    return ad_fail(fc->mc, bc->call, "%s: out of memory", bc->name);
  LLVMTypeRef info_t = LLVMInt32TypeInContext(c);
  LLVMValueRef info_at = prim(bc, R_INFO), failed = NULL;
  /* A null status pointer (Enzyme's test passes one; clang -O2 makes it
   * poison where the callee never reads it) reads as success. */
  if (!LLVMIsUndef(info_at) && !LLVMIsPoison(info_at) &&
      !(LLVMIsConstant(info_at) && LLVMIsNull(info_at))) {
    LLVMValueRef ok = ad_entry_alloca(fc->deriv_fn, info_t, "blas.info0");
    LLVMBuildStore(b, LLVMConstNull(info_t), ok);
    if (LLVMGetTypeKind(LLVMTypeOf(info_at)) != LLVMPointerTypeKind)
      info_at = LLVMBuildIntToPtr(b, info_at, ptr, "");
    info_at = LLVMBuildSelect(b, LLVMBuildIsNull(b, info_at, ""), ok, info_at, "");
    failed = LLVMBuildICmp(b, LLVMIntNE,
                           LLVMBuildLoad2(b, info_t, info_at, "blas.info"),
                           LLVMConstNull(info_t), "");
  }
  LLVMValueRef lower = option_is(bc, R_UPLO, codes_lower);
  LLVMValueRef rowmajor = option_is(bc, R_LAYOUT, codes_rowmajor);
  LLVMValueRef flip = uplo_derived(bc, lower, 'U', 'L', 121, 122, 1);
  LLVMValueRef normal = uplo_derived(bc, lower, 'N', 'T', 111, 112, 1);
  LLVMValueRef trans = uplo_derived(bc, lower, 'T', 'N', 112, 111, 1);
  LLVMValueRef side = uplo_derived(bc, lower, 'L', 'R', 141, 142, 0);
  LLVMValueRef left = uplo_derived(bc, lower, 'L', 'L', 141, 141, 0);
  LLVMValueRef right = uplo_derived(bc, lower, 'R', 'R', 142, 142, 0);
  LLVMValueRef notrans = uplo_derived(bc, lower, 'N', 'N', 111, 111, 0);
  LLVMValueRef nonunit = uplo_derived(bc, lower, 'N', 'N', 131, 131, 0);
  LLVMValueRef one_i = int_constant(bc, 1), zero_i = int_constant(bc, 0);
  LLVMValueRef size = LLVMConstInt(i64, LLVMABISizeOfType(fc->mc->td, bc->real), 0);
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef same;
    LLVMValueRef dA = array_shadow(bc, R_A, lane, &same);
    LLVMValueRef n = int_value(bc, R_N), ld = int_value(bc, R_LDA);
    LLVMValueRef skip = either(bc, same, failed);
    if (skip)
      n = LLVMBuildSelect(b, skip, LLVMConstNull(i64), n, "");
    LLVMValueRef nop = int_operand(bc, n), ldop = int_operand(bc, ld);
    LLVMValueRef diag_inc =
        int_operand(bc, LLVMBuildAdd(b, ld, LLVMConstInt(i64, 1, 0), ""));
    /* T (n x n, leading dimension n) and t (n), never 0 bytes */
    LLVMValueRef eight = LLVMConstInt(i64, 8, 0);
    LLVMValueRef tri_bytes = LLVMBuildAdd(
        b, LLVMBuildMul(b, LLVMBuildMul(b, n, n, ""), size, ""), eight, "");
    LLVMValueRef diag_bytes = LLVMBuildAdd(b, LLVMBuildMul(b, n, size, ""), eight, "");
    LLVMValueRef tri = ad_call_helper(b, fn_malloc, &tri_bytes, 1, "blas.tri");
    LLVMValueRef diag = ad_call_helper(b, fn_malloc, &diag_bytes, 1, "blas.diag");
    LLVMValueRef ops[R_COUNT] = {0};
    /* T := dA's other triangle */
    ops[R_UPLO] = flip;
    ops[R_M] = ops[R_N] = ops[R_LDB] = nop;
    ops[R_A] = dA, ops[R_LDA] = ldop, ops[R_B] = tri;
    if (!emit_routine(bc, RT_LACPY, ops))
      return -1;
    /* the strides of a row and of a column in this layout */
    LLVMValueRef step_down = LLVMBuildSelect(b, rowmajor, ld, LLVMConstInt(i64, 1, 0), "");
    LLVMValueRef step_right = LLVMBuildSelect(b, rowmajor, LLVMConstInt(i64, 1, 0), ld, "");
    /* dA(j + 1.., j) -> dA(j, j + 1..) for 'L' (the mirror for 'U') */
    blas_loop loop;
    loop_begin(bc, LLVMBuildSub(b, n, LLVMConstInt(i64, 1, 0), ""), &loop,
               "blas.potrf.sym");
    LLVMValueRef j = loop.j, j1 = LLVMBuildAdd(b, j, LLVMConstInt(i64, 1, 0), "");
    LLVMValueRef below = LLVMBuildAdd(b, LLVMBuildMul(b, j1, step_down, ""),
                                      LLVMBuildMul(b, j, step_right, ""), "");
    LLVMValueRef beside = LLVMBuildAdd(b, LLVMBuildMul(b, j, step_down, ""),
                                       LLVMBuildMul(b, j1, step_right, ""), "");
    memset(ops, 0, sizeof ops);
    ops[R_N] = int_operand(bc, LLVMBuildSub(b, n, j1, ""));
    ops[R_X] = element(bc, dA, LLVMBuildSelect(b, lower, below, beside, ""));
    ops[R_INCX] = int_operand(bc, LLVMBuildSelect(b, lower, step_down, step_right, ""));
    ops[R_Y] = element(bc, dA, LLVMBuildSelect(b, lower, beside, below, ""));
    ops[R_INCY] = int_operand(bc, LLVMBuildSelect(b, lower, step_right, step_down, ""));
    if (!emit_routine(bc, RT_COPY, ops))
      return -1;
    loop_end(bc, &loop);
    /* dA := L^-1 dA L^-T ('U': U^-T dA U^-1) */
    memset(ops, 0, sizeof ops);
    ops[R_UPLO] = prim(bc, R_UPLO);
    ops[R_DIAG] = nonunit;
    ops[R_M] = ops[R_N] = nop;
    ops[R_ALPHA] = real_constant(bc, 1.0);
    ops[R_A] = prim(bc, R_A), ops[R_LDA] = prim(bc, R_LDA);
    ops[R_B] = dA, ops[R_LDB] = ldop;
    ops[R_SIDE] = left, ops[R_TRANS] = normal;
    if (!emit_routine(bc, RT_TRSM, ops))
      return -1;
    ops[R_SIDE] = right, ops[R_TRANS] = trans;
    if (!emit_routine(bc, RT_TRSM, ops))
      return -1;
    LLVMValueRef trmm_ops[R_COUNT];
    memcpy(trmm_ops, ops, sizeof ops);
    trmm_ops[R_SIDE] = side, trmm_ops[R_TRANS] = notrans;
    /* Phi: half the diagonal, the other triangle 0 */
    memset(ops, 0, sizeof ops);
    ops[R_N] = nop, ops[R_ALPHA] = real_constant(bc, 0.5);
    ops[R_X] = dA, ops[R_INCX] = diag_inc;
    if (!emit_routine(bc, RT_SCAL, ops))
      return -1;
    LLVMValueRef to_diag[R_COUNT] = {0}, from_diag[R_COUNT] = {0};
    to_diag[R_N] = from_diag[R_N] = nop;
    to_diag[R_X] = dA, to_diag[R_INCX] = diag_inc;
    to_diag[R_Y] = diag, to_diag[R_INCY] = one_i;
    from_diag[R_X] = diag, from_diag[R_INCX] = one_i;
    from_diag[R_Y] = dA, from_diag[R_INCY] = diag_inc;
    if (!emit_routine(bc, RT_COPY, to_diag))
      return -1;
    memset(ops, 0, sizeof ops);
    ops[R_UPLO] = flip, ops[R_KL] = ops[R_KU] = zero_i;
    ops[R_CFROM] = real_constant(bc, 1.0), ops[R_CTO] = real_constant(bc, 0.0);
    ops[R_M] = ops[R_N] = nop, ops[R_A] = dA, ops[R_LDA] = ldop;
    ops[R_INFO] = LLVMConstNull(bc->intty); /* by value in this form */
    if (!emit_routine(bc, RT_LASCL, ops) || !emit_routine(bc, RT_COPY, from_diag))
      return -1;
    /* dA := L dA ('U': dA U) */
    if (!emit_routine(bc, RT_TRMM, trmm_ops))
      return -1;
    /* the other triangle back, the new diagonal kept */
    if (!emit_routine(bc, RT_COPY, to_diag))
      return -1;
    memset(ops, 0, sizeof ops);
    ops[R_UPLO] = flip;
    ops[R_M] = ops[R_N] = ops[R_LDA] = nop;
    ops[R_A] = tri, ops[R_B] = dA, ops[R_LDB] = ldop;
    if (!emit_routine(bc, RT_LACPY, ops) || !emit_routine(bc, RT_COPY, from_diag))
      return -1;
    ad_call_helper(b, fn_free, &tri, 1, "");
    ad_call_helper(b, fn_free, &diag, 1, "");
  }
  return 0;
}

/* Reads the call against its row, then runs the row's tangent. */
static int emit_blas(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
                     LLVMValueRef clone) {
  const blas_variant *v = rule->data;
  blas_call bc = {.fc = fc, .call = call, .clone = clone, .rt = v->rt,
                  .iface = v->iface, .prec = v->prec, .name = rule->name};
  for (unsigned r = 0; r < R_COUNT; r++)
    bc.at[r] = -1;
  unsigned char roles[MAX_ARGS + 1];
  unsigned k = ad_blas_operand_roles((blas_routine_id)(v->rt - blas_routines),
                                     v->iface, roles);
  for (unsigned j = 0; j < k; j++)
    bc.at[roles[j]] = (int)j;
  bc.nroles = k;
  bc.nargs = LLVMGetNumArgOperands(call);
  if (bc.nargs < bc.nroles || (!fortran(&bc) && bc.nargs > bc.nroles))
    return ad_fail(fc->mc, call, "%s takes %u arguments, not %u", rule->name,
                   bc.nroles, bc.nargs);
  if (bc.nargs > bc.nroles + 4 || bc.nargs > MAX_ARGS)
    return ad_fail(fc->mc, call,
                   "%s: %u arguments past its %u (only hidden character "
                   "lengths may follow)",
                   rule->name, bc.nargs - bc.nroles, bc.nroles);
  bc.real = v->prec == PREC_D ? LLVMDoubleTypeInContext(fc->mc->llctx)
                              : LLVMFloatTypeInContext(fc->mc->llctx);
  bc.intty = v->iface == IF_F77 ? LLVMInt32TypeInContext(fc->mc->llctx)
                                : LLVMInt64TypeInContext(fc->mc->llctx);
  for (unsigned r = 1; r < R_COUNT; r++) {
    if (!has(&bc, r))
      continue;
    LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(call, (unsigned)bc.at[r]));
    role_class c = class_of(r);
    int want_pointer = c == C_ARRAY || c == C_INFO || c == C_HANDLE ||
                       c == C_RESULT || fortran(&bc);
    if (c == C_SCALAR && ad_blas_is_cublas(bc.iface))
      continue; /* by pointer, or by value (Enzyme's cublasDaxpy) */
    /* an array may come as an integer holding its address (Julia's Ptr as
     * i64): its shadow is one too */
    int address = LLVMGetTypeKind(t) == LLVMPointerTypeKind ||
                  (c == C_ARRAY && LLVMGetTypeKind(t) == LLVMIntegerTypeKind &&
                   LLVMGetIntTypeWidth(t) == 8 * LLVMPointerSize(fc->mc->td));
    if (want_pointer && !address)
      return ad_fail(fc->mc, call, "%s: argument %d is not a pointer",
                     rule->name, bc.at[r] + 1);
    if (!want_pointer && c == C_INT) {
      if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind)
        return ad_fail(fc->mc, call, "%s: argument %d is not an integer",
                       rule->name, bc.at[r] + 1);
      bc.intty = t; /* CBLAS: the library's own int */
    }
  }
  /* cuBLAS _v2's dot and nrm2 write their result through a pointer
   * (host or device memory): their tangents are reverse mode's only
   * (rev/blas.c); the value-returning forms are taken */
  int result_by_pointer = ad_blas_is_cublas(v->iface) && v->rt->returns_real &&
                          ad_blas_result_by_pointer(v->iface);
  if (!v->rt->tangent || result_by_pointer ||
      (ad_blas_is_cublas(v->iface) && v->rt->lapack)) {
    for (unsigned k = 0; k < bc.nroles; k++)
      if (ad_shadow_or_null(fc, LLVMGetOperand(call, k)))
        return ad_fail(fc->mc, call, "no forward-mode rule for a call to %s%s",
                       rule->name,
                       result_by_pointer
                           ? " (its result goes through a pointer, which "
                             "forward mode does not follow; reverse mode "
                             "does, and forward mode takes the cuBLAS "
                             "forms that return it)"
                           : "");
    return 0;
  }
  return v->rt->tangent(&bc);
}

int ad_blas_rule_info(const ad_call_rule *rule, blas_routine_id *id,
                      blas_iface *iface, unsigned *prec) {
  if (!rule || rule->emit != emit_blas)
    return 0;
  const blas_variant *v = rule->data;
  *id = (blas_routine_id)(v->rt - blas_routines);
  *iface = v->iface;
  *prec = v->prec;
  return 1;
}

const unsigned char *ad_blas_roles(blas_routine_id id, int *cblas_layout) {
  *cblas_layout = blas_routines[id].cblas_layout;
  return blas_routines[id].roles;
}

int ad_blas_returns_real(blas_routine_id id) {
  return blas_routines[id].returns_real;
}

unsigned ad_blas_output(blas_routine_id id) { return blas_routines[id].output; }

const char *ad_blas_name(blas_routine_id id, blas_iface iface, unsigned prec) {
  pthread_once(&blas_built, build_blas_rules);
  return blas_names[id][iface][prec];
}

const ad_rule_family ad_blas_family = {
    .name = "blas",
    .lookup = blas_lookup,
    .typed_lookup = blas_typed_lookup,
};
