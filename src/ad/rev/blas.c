/*
 * BLAS in reverse: each adjoint is more BLAS calls of the primal's
 * interface and precision (rules/blas.h: the forward family's routine
 * table, read here by role), accumulated into the shadows (+=), never a
 * loop over elements in IR (a matrix's column loop calls BLAS per column).
 *
 * The augmented pass keeps, in one malloc'd block recorded on the tape,
 * the values of the call's integer, option and scalar arguments (read
 * before the call: Fortran passes them through memory the program may
 * change later) and, for every array the adjoint reads, where it reads
 * it: the program's own array when nothing may write it between the call
 * and the reverse (rev/overwritten.c: Enzyme's overwritten arguments;
 * blas_runtime's fake addresses are never read), else a copy taken before
 * the primal call (so an in-place output, gemm's C with beta, scal's x,
 * is cached as it was read; potrf's factor and trtrs's solution, which
 * their adjoints read, after it).  A copy is packed as Enzyme's caches
 * are (its BLAS tests compare the calls) where the program has the
 * routine: a matrix by lacpy with leading dimension its row count, a
 * vector by copy with increment 1, the adjoint reading the copy with
 * those strides (cld); else the span the call reads is memcpy'd and read
 * with the call's strides.  Each copy is a buffer of its own
 * (tanjit.blas.alloc); the reverse frees them and the block after the
 * adjoint.  Where the routines Enzyme's adjoints call exist, each
 * adjoint is Enzyme's call sequence, so its BLAS test's traces match;
 * symv's is followed where it is wrong (no term on dA's diagonal).
 *
 * Per routine (d: the adjoints, held by the shadows; c: cached inputs):
 *   dot   r = x.y        dx += dr cy; dy += dr cx
 *   nrm2  r = |x|        dx += (dr / r) cx (0 where r = 0; r again by
 *                        nrm2 on cx, as Enzyme does)
 *   axpy  y += a x       da += cx.dy; dx += a dy
 *   scal  x := a x       da += cx.dx; dx := a dx
 *   copy  y := x         dx += dy; dy := 0
 *   gemv  y := a op(A) x + b y
 *                        da += (op(cA) cx).dy; dA += a dy cx' (ger; op =
 *                        T: a cx dy'); dx += a op(cA)' dy; db += cy.dy;
 *                        dy := b dy
 *   gemm  C := a op(A) op(B) + b C
 *                        dA += a dC op(cB)' (op(A) = A'; a op(cB) dC');
 *                        dB += a op(cA)' dC (op(B) = B'; a dC' op(cA));
 *                        da += sum(op(cA) op(cB) * dC); db += sum(cC *
 *                        dC) (a dot per column); dC := b dC (the
 *                        program's C lascl if it has one, else gemm
 *                        with alpha 0)
 * cuBLAS (the handle first, scalars by pointer): the adjoint's calls are
 * cuBLAS's and never read an array on the host; copies and scratch
 * arrays are cudaMalloc'd (a copy filled by cublas copy, scratch zeroed
 * by cudaMemset) and cudaFree'd after the adjoint; _v2's dot takes dr
 * from its result's shadow (axpy_v2 with it as alpha, then cudaMemset);
 * scal's x is recovered as x / alpha where the program has no cudaMalloc.
 * Run-time activity: an array whose shadow is itself at run time is
 * inactive, so its term's calls are branched around (Enzyme's tests count
 * the calls); an output whose shadow is itself skips every term.
 * symv, syrk, symm, trmv, trmm, potrf, potrs and trtrs: at their
 * adjoints below.  Other routines of the table (syr2k, trsm, ...) have
 * no reverse rule: refused, naming the routine.
 */
#include <stdint.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"
#include "ad/rules/blas.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"

/* The cache block: one 8-byte slot per role (its value), one per array
 * role (its copy), one per stride role (the copy's stride: the primal's,
 * or a packed copy's leading dimension or increment 1). */
enum {
  SLOT_COPY = R_COUNT, SLOT_STRIDE = 2 * R_COUNT,
  SLOT_MAPPED = 3 * R_COUNT, /* per array role: the bytes mapped, 0: malloc'd */
  SLOTS = 4 * R_COUNT
};

typedef struct rev_blas {
  ad_rev_fn *r;
  LLVMValueRef call;
  blas_routine_id id;
  blas_iface iface;
  unsigned prec;
  LLVMTypeRef real, intty, i64;
  int at[R_COUNT];
  unsigned nroles, nargs;
  const char *name;
  ad_blas_site site;
  LLVMBuilderRef b;             /* where the values are read */
  LLVMValueRef fn;              /* the function b is in (aug or reverse) */
  LLVMValueRef val[R_COUNT];    /* ints and options as i64, scalars real */
  LLVMValueRef copy[R_COUNT];   /* the cached arrays (reverse) */
  LLVMValueRef cld[R_COUNT];    /* by stride role (R_LDA, R_INCX, ...): the
                                   stride of copy[its array] (i64) */
  unsigned char recovered_x;    /* scal's copy[R_X] is alpha x (cache_plan) */
} rev_blas;

typedef struct rev_blas_row {
  int (*adjoint)(rev_blas *rb);
  /* the arrays the adjoint reads, each when any of its `when` roles is
   * active; a matrix's stored shape rows x cols (roles), swapped where
   * option `by` says transposed (0: never) */
  struct {
    unsigned char array;
    unsigned char when[3];
    unsigned char rows, cols, by;
    unsigned char tri; /* a packed copy takes the call's triangle (uplo) */
  } cache[3];
  /* whether the adjoint reads its copies with their own strides
   * (copy_inc), so that they may be packed */
  unsigned char packs;
} rev_blas_row;

static int adjoint_dot(rev_blas *rb);
static int adjoint_nrm2(rev_blas *rb);
static int adjoint_axpy(rev_blas *rb);
static int adjoint_scal(rev_blas *rb);
static int adjoint_copy(rev_blas *rb);
static int adjoint_gemv(rev_blas *rb);
static int adjoint_gemm(rev_blas *rb);
static int adjoint_symv(rev_blas *rb);
static int adjoint_syrk(rev_blas *rb);
static int adjoint_trmv(rev_blas *rb);
static LLVMValueRef matrix_dot(rev_blas *rb, LLVMValueRef X, LLVMValueRef ldx,
                               LLVMValueRef Y, LLVMValueRef ldy,
                               LLVMValueRef inner, LLVMValueRef outer,
                               LLVMValueRef lower);
static LLVMValueRef lower_in_memory(rev_blas *rb);
static int adjoint_trmm(rev_blas *rb);
static int adjoint_symm(rev_blas *rb);
static int adjoint_trtrs(rev_blas *rb);
static int adjoint_potrs(rev_blas *rb);
static int adjoint_potrf(rev_blas *rb);

static const rev_blas_row rev_rows[RT_COUNT] = {
    [RT_DOT] = {adjoint_dot, {{R_X, {R_Y}}, {R_Y, {R_X}}}, 1},
    [RT_NRM2] = {adjoint_nrm2, {{R_X, {R_X}}}, 1},
    [RT_AXPY] = {adjoint_axpy, {{R_X, {R_ALPHA}}}, 1},
    [RT_SCAL] = {adjoint_scal, {{R_X, {R_ALPHA}}}, 1},
    [RT_COPY] = {adjoint_copy, {{0}}, 1},
    [RT_GEMV] = {adjoint_gemv,
                 {{R_A, {R_X, R_ALPHA}, R_M, R_N, 0}, {R_X, {R_A, R_ALPHA}},
                  {R_Y, {R_BETA}}}, 1},
    [RT_GEMM] = {adjoint_gemm,
                 {{R_A, {R_B, R_ALPHA}, R_M, R_K, R_TRANS},
                  {R_B, {R_A, R_ALPHA}, R_K, R_N, R_TRANSB},
                  {R_C, {R_BETA}, R_M, R_N, 0}}, 1},
    [RT_SYMV] = {adjoint_symv,
                 {{R_A, {R_X, R_ALPHA}, R_N, R_N, 0, 1}, {R_X, {R_A, R_ALPHA}},
                  {R_Y, {R_BETA}}}, 1},
    [RT_SYRK] = {adjoint_syrk,
                 {{R_A, {R_A, R_ALPHA}, R_N, R_K, R_TRANS},
                  {R_C, {R_BETA}, R_N, R_N, 0}}, 1},
    [RT_TRMV] = {adjoint_trmv, {{R_A, {R_X}, R_N, R_N, 0, 1}, {R_X, {R_A}}}, 1},
    [RT_TRMM] = {adjoint_trmm,
                 {{R_A, {R_B}, R_M, R_N, R_SIDE},
                  {R_B, {R_A, R_ALPHA}, R_M, R_N, 0}}, 1},
    [RT_SYMM] = {adjoint_symm,
                 {{R_A, {R_B, R_ALPHA}, R_M, R_N, R_SIDE},
                  {R_B, {R_A, R_ALPHA}, R_M, R_N, 0},
                  {R_C, {R_BETA}, R_M, R_N, 0}}, 1},
    [RT_TRTRS] = {adjoint_trtrs,
                  {{R_A, {R_B}, R_N, R_N, 0, 1}, {R_B, {R_A}, R_N, R_NRHS, 0}}, 1},
    [RT_POTRF] = {adjoint_potrf, {{R_A, {R_A}, R_N, R_N, 0, 1}}, 1},
    [RT_POTRS] = {adjoint_potrs,
                  {{R_A, {R_B}, R_N, R_N, 0, 1}, {R_B, {R_A}, R_N, R_NRHS, 0}}, 1},
};

/* An option's value: its CBLAS enum and characters (0-terminated), and
 * cuBLAS's enum (CUBLAS_OP_N, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT,
 * CUBLAS_SIDE_LEFT); -1: not a cuBLAS value. */
typedef struct option_code {
  int cublas;
  int codes[10];
} option_code;
static const option_code codes_notrans = {0, {111, 'N', 'n', 0}};
static const option_code codes_lower = {0, {122, 'L', 'l', 0}};
static const option_code codes_unit = {1, {132, 'U', 'u', 0}};
static const option_code codes_left = {0, {141, 'L', 'l', 0}};
/* CBLAS's option enums (a character option is none of them: 'n', 't' and
 * 'u' lie in their range) */
static const option_code codes_cblas_enum = {
    -1, {111, 112, 113, 121, 122, 131, 132, 141, 142, 0}};
/* cuBLAS's CUBLAS_FILL_MODE_FULL, lascl's 'G' in Enzyme's cublasDlascl */
enum { CUBLAS_FULL = 2 };

/* ---- the call ---- */

static int has(const rev_blas *rb, unsigned role) { return rb->at[role] >= 0; }
static LLVMValueRef orig(const rev_blas *rb, unsigned role) {
  return LLVMGetOperand(rb->call, (unsigned)rb->at[role]);
}
static int fortran(const rev_blas *rb) { return ad_blas_is_fortran(rb->iface); }
static int cublas(const rev_blas *rb) { return ad_blas_is_cublas(rb->iface); }
/* Whether scalar role's operand is a pointer to it (Fortran; cuBLAS, but
 * for Enzyme's cublasDaxpy, which takes alpha by value). */
static int scalar_by_ref(const rev_blas *rb, unsigned role) {
  return fortran(rb) ||
         (cublas(rb) && LLVMGetTypeKind(LLVMTypeOf(orig(rb, role))) ==
                            LLVMPointerTypeKind);
}

/* Reads the call against its row; 0, or -1 with the error. */
static int read_call(rev_blas *rb, ad_rev_fn *r, LLVMValueRef call,
                     const ad_call_rule *rule) {
  memset(rb, 0, sizeof *rb);
  rb->r = r;
  rb->call = call;
  rb->name = rule->name;
  ad_blas_rule_info(rule, &rb->id, &rb->iface, &rb->prec);
  LLVMContextRef c = r->mc->llctx;
  rb->real = rb->prec == PREC_D ? LLVMDoubleTypeInContext(c) : LLVMFloatTypeInContext(c);
  rb->i64 = LLVMInt64TypeInContext(c);
  rb->intty = rb->iface == IF_F77 ? LLVMInt32TypeInContext(c) : rb->i64;
  for (unsigned k = 0; k < R_COUNT; k++)
    rb->at[k] = -1;
  unsigned char roles[AD_BLAS_MAX_ARGS + 1];
  unsigned k = ad_blas_operand_roles(rb->id, rb->iface, roles);
  for (unsigned j = 0; j < k; j++)
    rb->at[roles[j]] = (int)j;
  rb->nroles = k;
  rb->nargs = LLVMGetNumArgOperands(call);
  if (rb->nargs < rb->nroles || (!fortran(rb) && rb->nargs > rb->nroles) ||
      rb->nargs > rb->nroles + 4)
    return ad_rev_fail_call(r, call, "%s: unexpected arguments", rule->name);
  for (unsigned role = 1; role < R_COUNT; role++) {
    if (!has(rb, role))
      continue;
    LLVMTypeRef t = LLVMTypeOf(orig(rb, role));
    role_class cl = class_of(role);
    if (cl == C_SCALAR && cublas(rb)) {
      if (LLVMGetTypeKind(t) != LLVMPointerTypeKind && !ad_type_is_float_scalar(t))
        return ad_rev_fail_call(r, call, "%s: a scalar argument is neither a "
                                "pointer nor a real", rule->name);
      continue;
    }
    int want_pointer = cl == C_ARRAY || cl == C_INFO || cl == C_HANDLE ||
                       cl == C_RESULT || fortran(rb);
    int address = LLVMGetTypeKind(t) == LLVMPointerTypeKind ||
                  (cl == C_ARRAY && LLVMGetTypeKind(t) == LLVMIntegerTypeKind);
    if (want_pointer && !address)
      return ad_rev_fail_call(r, call, "%s: an argument is not a pointer",
                              rule->name);
    if (!want_pointer && cl == C_INT) {
      if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind)
        return ad_rev_fail_call(r, call, "%s: an argument is not an integer",
                                rule->name);
      rb->intty = t;
    }
  }
  rb->site = (ad_blas_site){
      .mc = r->mc, .primal = call, .iface = rb->iface, .prec = rb->prec,
      .real = rb->real,
      .hidden_len = fortran(rb) && rb->nargs > rb->nroles
                        ? LLVMTypeOf(LLVMGetOperand(call, rb->nroles))
                        : NULL,
      .name = rule->name};
  return 0;
}

/* The array the call writes: its output, or (cuBLAS _v2's dot, nrm2)
 * the result pointer; R_END where it returns its result. */
static unsigned written_role(const rev_blas *rb) {
  unsigned out = ad_blas_output(rb->id);
  return out == R_END && has(rb, R_RESULT) ? R_RESULT : out;
}

/* Whether cuBLAS scalar pointer p is a local slot that only ever holds
 * inactive values: stored to, then passed to this call (clang's &alpha of
 * a by-value alpha).  Its shadow exists (a call that writes through its
 * pointers makes every pointer argument shadowed), but no derivative
 * flows through it, and the adjoint's calls for it are left out, as
 * Enzyme's are. */
static int holds_inactive_scalar(const rev_blas *rb, LLVMValueRef p) {
  LLVMValueRef slot = ad_strip_casts(p, AD_STRIP_INT_CASTS);
  if (!LLVMIsAAllocaInst(slot))
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == slot &&
        LLVMGetOperand(user, 0) != slot) {
      if (ad_is_active(&rb->r->fc, LLVMGetOperand(user, 0)))
        return 0;
      continue;
    }
    if (LLVMIsALoadInst(user))
      continue;
    if (LLVMIsACallInst(user)) {
      /* a BLAS call reads its scalars; lifetime markers touch nothing */
      const ad_call_rule *rule = ad_rule_of_call(rb->r->mc, user);
      blas_routine_id id;
      blas_iface iface;
      unsigned prec;
      LLVMValueRef callee = ad_called_function(user);
      size_t len = 0;
      const char *name = callee ? LLVMGetValueName2(callee, &len) : "";
      if (strncmp(name, "llvm.lifetime.", 14) == 0)
        continue;
      if (rule && ad_blas_rule_info(rule, &id, &iface, &prec)) {
        unsigned char roles[AD_BLAS_MAX_ARGS + 1];
        unsigned n = ad_blas_operand_roles(id, iface, roles), k = 0;
        while (k < n && LLVMGetOperand(user, k) != slot)
          k++;
        if (k < n && class_of(roles[k]) == C_SCALAR)
          continue; /* read only (written: a result or an array) */
      }
    }
    return 0;
  }
  return 1;
}

/* Whether role's argument carries a derivative here. */
static int active(rev_blas *rb, unsigned role) {
  if (!has(rb, role))
    return 0;
  LLVMValueRef v = orig(rb, role);
  if (class_of(role) == C_SCALAR && !scalar_by_ref(rb, role))
    return ad_rev_has_adjoint(rb->r, v);
  if (ad_shadow_or_null(&rb->r->fc, v) == NULL)
    return 0;
  return class_of(role) != C_SCALAR || !cublas(rb) ||
         !holds_inactive_scalar(rb, v);
}

/* ---- values, in aug (from the call's operands) or reverse (the block) ---- */

static LLVMValueRef slot_at(rev_blas *rb, LLVMValueRef block, unsigned slot) {
  LLVMValueRef idx = LLVMConstInt(rb->i64, slot, 0);
  return LLVMBuildGEP2(rb->b, rb->i64, block, &idx, 1, "");
}

/* The value of each integer, option and scalar role at rb->b, before the
 * primal call, written into the block. */
static void read_values(rev_blas *rb, LLVMValueRef block, int from_block) {
  LLVMBuilderRef b = rb->b;
  LLVMContextRef c = rb->r->mc->llctx;
  for (unsigned role = 1; role < R_COUNT; role++) {
    role_class cl = class_of(role);
    if (!has(rb, role) || cl == C_ARRAY || cl == C_INFO || cl == C_RESULT)
      continue;
    LLVMValueRef at = slot_at(rb, block, role);
    LLVMTypeRef t = cl == C_SCALAR ? rb->real : rb->i64;
    if (cl == C_HANDLE) {
      /* passed on as it is (an address kept as an integer) */
      LLVMTypeRef ht = LLVMTypeOf(orig(rb, role));
      if (from_block) {
        rb->val[role] = LLVMBuildIntToPtr(
            b, LLVMBuildLoad2(b, rb->i64, at, "blas.handle"), ht, "");
        continue;
      }
      LLVMValueRef h = ad_primal(&rb->r->fc, orig(rb, role));
      LLVMBuildStore(b, LLVMBuildPtrToInt(b, h, rb->i64, ""), at);
      rb->val[role] = h;
      continue;
    }
    if (from_block) {
      rb->val[role] = LLVMBuildLoad2(b, t, at, "blas.val");
      continue;
    }
    LLVMValueRef v = ad_primal(&rb->r->fc, orig(rb, role));
    if (cl == C_SCALAR && scalar_by_ref(rb, role))
      v = LLVMBuildLoad2(b, rb->real, v, "blas.arg");
    else if (cl == C_SCALAR)
      v = LLVMBuildFPCast(b, v, rb->real, "");
    else if (fortran(rb))
      v = LLVMBuildLoad2(b,
                         cl == C_SCALAR ? rb->real
                         : cl == C_OPTION ? LLVMInt8TypeInContext(c)
                                          : rb->intty,
                         v, "blas.arg");
    if (cl != C_SCALAR)
      v = LLVMBuildIntCast2(b, v, rb->i64, cl == C_INT, "");
    LLVMBuildStore(b, v, at);
    rb->val[role] = v;
  }
}

static LLVMValueRef konst(rev_blas *rb, long long k) {
  return LLVMConstInt(rb->i64, (unsigned long long)k, 1);
}
/* Whether option value opt is `code` (its CBLAS enum, characters; under
 * cuBLAS its enum). */
static LLVMValueRef option_is(rev_blas *rb, LLVMValueRef opt,
                              const option_code *code) {
  if (cublas(rb))
    return code->cublas < 0
               ? LLVMConstInt(LLVMInt1TypeInContext(rb->r->mc->llctx), 0, 0)
               : LLVMBuildICmp(rb->b, LLVMIntEQ, opt, konst(rb, code->cublas), "");
  LLVMValueRef any = NULL;
  for (const int *c = code->codes; *c; c++) {
    LLVMValueRef eq = LLVMBuildICmp(rb->b, LLVMIntEQ, opt, konst(rb, *c), "");
    any = any ? LLVMBuildOr(rb->b, any, eq, "") : eq;
  }
  return any;
}
static LLVMValueRef is_notrans(rev_blas *rb, LLVMValueRef opt) {
  return option_is(rb, opt, &codes_notrans);
}
static LLVMValueRef col_major(rev_blas *rb) {
  if (fortran(rb) || !has(rb, R_LAYOUT))
    return LLVMConstInt(LLVMInt1TypeInContext(rb->r->mc->llctx), 1, 0);
  return LLVMBuildICmp(rb->b, LLVMIntNE, rb->val[R_LAYOUT], konst(rb, 101), "");
}
static LLVMValueRef sel(rev_blas *rb, LLVMValueRef c, LLVMValueRef a,
                        LLVMValueRef b) {
  return LLVMBuildSelect(rb->b, c, a, b, "");
}
static LLVMValueRef abs_i64(rev_blas *rb, LLVMValueRef v) {
  return sel(rb, LLVMBuildICmp(rb->b, LLVMIntSLT, v, konst(rb, 0), ""),
             LLVMBuildNeg(rb->b, v, ""), v);
}

/* The number of elements array `role` spans (with its stride), and for
 * a matrix its stored rows x columns (column-major terms: `inner` the
 * length of a stored column or, row-major, row; `outer` their count). */
static void matrix_dims(rev_blas *rb, unsigned role, LLVMValueRef *r,
                        LLVMValueRef *c) {
  const rev_blas_row *rr = &rev_rows[rb->id];
  unsigned i = 0;
  while (i < 2 && rr->cache[i].array != role)
    i++;
  LLVMValueRef rows = rb->val[rr->cache[i].rows];
  LLVMValueRef cols = rb->val[rr->cache[i].cols];
  if (rr->cache[i].by == R_SIDE) {
    /* square: rows x rows on the left, cols x cols on the right */
    LLVMValueRef left = option_is(rb, rb->val[R_SIDE], &codes_left);
    rows = cols = sel(rb, left, rows, cols);
  } else if (rr->cache[i].by) {
    LLVMValueRef nt = is_notrans(rb, rb->val[rr->cache[i].by]);
    LLVMValueRef r0 = rows;
    rows = sel(rb, nt, rows, cols), cols = sel(rb, nt, cols, r0);
  }
  *r = rows, *c = cols;
}
static void matrix_shape(rev_blas *rb, unsigned role, LLVMValueRef *inner,
                         LLVMValueRef *outer) {
  LLVMValueRef rows, cols;
  matrix_dims(rb, role, &rows, &cols);
  LLVMValueRef cm = col_major(rb);
  *inner = sel(rb, cm, rows, cols);
  *outer = sel(rb, cm, cols, rows);
}

/* Vector lengths: gemv's x and y by its transpose, else n. */
static LLVMValueRef vector_length(rev_blas *rb, unsigned role) {
  if (rb->id != RT_GEMV)
    return rb->val[R_N];
  LLVMValueRef nt = is_notrans(rb, rb->val[R_TRANS]);
  return role == R_X ? sel(rb, nt, rb->val[R_N], rb->val[R_M])
                     : sel(rb, nt, rb->val[R_M], rb->val[R_N]);
}

/* The stride role of array role (R_A: R_LDA, R_X: R_INCX, ...). */
static unsigned stride_role(unsigned role) {
  switch (role) {
  case R_A: return R_LDA;
  case R_B: return R_LDB;
  case R_C: return R_LDC;
  case R_X: return R_INCX;
  default: return R_INCY;
  }
}
static int is_matrix(unsigned role) {
  return role == R_A || role == R_B || role == R_C;
}

/* The elements array `role` spans with stride `stride` (a matrix's
 * leading dimension, a vector's increment; NULL: the call's). */
static LLVMValueRef span(rev_blas *rb, unsigned role, LLVMValueRef stride) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef zero = konst(rb, 0), one = konst(rb, 1);
  LLVMValueRef count, len;
  if (!stride)
    stride = rb->val[stride_role(role)];
  if (is_matrix(role)) {
    matrix_shape(rb, role, &len, &count);
    LLVMValueRef empty = LLVMBuildOr(
        b, LLVMBuildICmp(b, LLVMIntSLE, len, zero, ""),
        LLVMBuildICmp(b, LLVMIntSLE, count, zero, ""), "");
    LLVMValueRef s = LLVMBuildAdd(
        b, LLVMBuildMul(b, LLVMBuildSub(b, count, one, ""), stride, ""), len, "");
    return sel(rb, empty, zero, s);
  }
  count = vector_length(rb, role);
  stride = abs_i64(rb, stride);
  LLVMValueRef s = LLVMBuildAdd(
      b, LLVMBuildMul(b, LLVMBuildSub(b, count, one, ""), stride, ""), one, "");
  return sel(rb, LLVMBuildICmp(b, LLVMIntSLE, count, zero, ""), zero, s);
}

static LLVMValueRef as_pointer(rev_blas *rb, LLVMValueRef v) {
  if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind)
    return v;
  return LLVMBuildIntToPtr(rb->b, v, LLVMPointerTypeInContext(rb->r->mc->llctx, 0), "");
}

static LLVMValueRef malloc_fn(ad_module_ctx *mc) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  return ad_get_or_insert_helper(mc->mod, NULL, "malloc",
                                 LLVMFunctionType(ptr, &i64, 1, 0));
}

/* ---- aug ---- */

static int any_input_active(rev_blas *rb) {
  for (unsigned role = 1; role < R_COUNT; role++) {
    role_class cl = class_of(role);
    if ((cl == C_ARRAY || cl == C_SCALAR) && active(rb, role))
      return 1;
  }
  return 0;
}

/* Where the adjoint reads each array: a copy (cached), the program's own
 * array (in place), or, for scal's x under cuBLAS where the program
 * allocates no device memory (no cudaMalloc to copy into), the array
 * scal wrote, x / alpha (recovered).  The same answer in aug and reverse. */
typedef struct cache_plan {
  unsigned char cached[R_COUNT], in_place[R_COUNT], recovered[R_COUNT];
  unsigned char after[R_COUNT]; /* copied after the call: its output */
} cache_plan;
static int potrf_as_enzyme(const rev_blas *rb);
static int trtrs_as_enzyme(const rev_blas *rb);

/* Whether the program itself calls cudaMalloc (not only derivative code
 * tanjit made), so that copies into device memory can be taken. */
static int device_copies(const rev_blas *rb) {
  LLVMValueRef f = LLVMGetNamedFunction(rb->r->mc->mod, "cudaMalloc");
  for (LLVMUseRef u = f ? LLVMGetFirstUse(f) : NULL; u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAInstruction(user) &&
        !ad_is_generated_function(
            LLVMGetBasicBlockParent(LLVMGetInstructionParent(user))))
      return 1;
  }
  return 0;
}

static void plan_caches(rev_blas *rb, cache_plan *p) {
  const rev_blas_row *rr = &rev_rows[rb->id];
  unsigned out = written_role(rb);
  memset(p, 0, sizeof *p);
  for (unsigned i = 0; i < 3; i++) {
    unsigned a = rr->cache[i].array;
    if (!a || !has(rb, a))
      continue;
    for (unsigned w = 0; w < 3 && rr->cache[i].when[w]; w++)
      p->cached[a] |= (unsigned char)active(rb, rr->cache[i].when[w]);
    if (!p->cached[a])
      continue;
    if (potrf_as_enzyme(rb) || trtrs_as_enzyme(rb)) {
      /* what the call leaves (potrf's factor, trtrs's solution and its
       * A), read where nothing writes it after the call, else copied
       * after it (Enzyme's caches) */
      p->after[a] = 1;
      if (!ad_rev_may_be_overwritten(rb->r, rb->call, orig(rb, a), NULL, 0)) {
        p->cached[a] = 0;
        p->in_place[a] = 1;
      }
      continue;
    }
    /* memory nothing writes before the reverse is read there */
    LLVMValueRef written = out != R_END ? orig(rb, out) : NULL;
    if (!ad_rev_may_be_overwritten(rb->r, rb->call, orig(rb, a), &written, 1)) {
      p->cached[a] = 0;
      p->in_place[a] = 1;
    } else if (cublas(rb) && !device_copies(rb) && rb->id == RT_SCAL &&
               !ad_rev_may_be_overwritten(rb->r, rb->call, orig(rb, a), NULL, 0)) {
      p->cached[a] = 0;
      p->in_place[a] = p->recovered[a] = 1;
    }
  }
}

/* A device buffer of `bytes` (cudaMalloc), or NULL with the error. */
static LLVMValueRef device_alloc(rev_blas *rb, LLVMValueRef fn, LLVMValueRef bytes) {
  ad_module_ctx *mc = rb->r->mc;
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef pt[2] = {ptr, rb->i64};
  LLVMValueRef f = ad_get_or_insert_helper(
      mc->mod, rb->call, "cudaMalloc",
      LLVMFunctionType(LLVMInt32TypeInContext(c), pt, 2, 0));
  if (!f) {
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, rb->call, "out of memory");
    return NULL;
  }
  LLVMValueRef slot = ad_entry_alloca(fn, ptr, "blas.device");
  LLVMValueRef args[2] = {slot, bytes};
  LLVMTypeRef ft = LLVMGlobalGetValueType(f), have[2];
  if (LLVMCountParamTypes(ft) != 2) {
    ad_rev_fail_call(rb->r, rb->call, "%s: cudaMalloc is declared with other "
                     "parameters than (void **, size_t)", rb->name);
    return NULL;
  }
  LLVMGetParamTypes(ft, have);
  args[1] = LLVMBuildIntCast2(rb->b, bytes, have[1], 0, "");
  ad_call_helper(rb->b, f, args, 2, "");
  return LLVMBuildLoad2(rb->b, ptr, slot, "blas.device");
}
static void device_free(rev_blas *rb, LLVMValueRef p) {
  ad_module_ctx *mc = rb->r->mc;
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef f = ad_get_or_insert_helper(
      mc->mod, rb->call, "cudaFree",
      LLVMFunctionType(LLVMInt32TypeInContext(c), &ptr, 1, 0));
  if (f) {
    p = as_pointer(rb, p);
    ad_call_helper(rb->b, f, &p, 1, "");
  }
}
static LLVMValueRef int_op(rev_blas *rb, LLVMValueRef v);
static LLVMValueRef opt_op(rev_blas *rb, LLVMValueRef v);
static LLVMValueRef emit(rev_blas *rb, blas_routine_id id, LLVMValueRef *ops);

/* Whether the program has routine id of this call's interface and
 * precision (defined, or called by its own code: a declaration only
 * derivative code made may name a routine its BLAS lacks). */
static int program_has(const rev_blas *rb, blas_routine_id id) {
  LLVMValueRef f = LLVMGetNamedFunction(rb->r->mc->mod,
                                        ad_blas_name(id, rb->iface, rb->prec));
  if (!f)
    return 0;
  if (LLVMCountBasicBlocks(f))
    return 1;
  for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAInstruction(user) &&
        !ad_is_generated_function(
            LLVMGetBasicBlockParent(LLVMGetInstructionParent(user))))
      return 1;
  }
  return 0;
}

/* Whether array a's copy is packed, as Enzyme caches an overwritten
 * input: a matrix by the program's lacpy into rows x cols with leading
 * dimension rows, a vector by its copy with increment 1 (its BLAS tests
 * compare these calls); else (a program without the routine) the span
 * the call reads is memcpy'd and read with the call's strides. */
static int packs(const rev_blas *rb, unsigned a) {
  if (!rev_rows[rb->id].packs || cublas(rb))
    return 0;
  return program_has(rb, is_matrix(a) ? RT_LACPY : RT_COPY);
}
/* A packed copy's stride: a matrix's row count (the leading dimension
 * Enzyme's cache passes in either layout), a vector's 1. */
static LLVMValueRef packed_stride(rev_blas *rb, unsigned a) {
  if (!is_matrix(a))
    return konst(rb, 1);
  LLVMValueRef rows, cols;
  matrix_dims(rb, a, &rows, &cols);
  return rows;
}
static int cache_uplo(const rev_blas *rb, unsigned a) {
  const rev_blas_row *rr = &rev_rows[rb->id];
  for (unsigned i = 0; i < 3; i++)
    if (rr->cache[i].array == a)
      return rr->cache[i].tri;
  return 0;
}
/* Array a (at src) packed into dst with stride ld, before the call:
 * lacpy (the call's triangle where the adjoint reads only that, else
 * uplo 0, which names none: all of it) or copy. */
static int pack(rev_blas *rb, unsigned a, LLVMValueRef dst, LLVMValueRef ld) {
  LLVMValueRef ops[R_COUNT] = {0};
  LLVMValueRef primal_stride = int_op(rb, rb->val[stride_role(a)]);
  if (LLVMGetTypeKind(LLVMTypeOf(orig(rb, a))) == LLVMIntegerTypeKind)
    dst = LLVMBuildPtrToInt(rb->b, dst, LLVMTypeOf(orig(rb, a)), "");
  LLVMValueRef src = ad_primal(&rb->r->fc, orig(rb, a));
  if (!is_matrix(a)) {
    ops[R_N] = int_op(rb, vector_length(rb, a));
    ops[R_X] = src, ops[R_INCX] = primal_stride;
    ops[R_Y] = dst, ops[R_INCY] = int_op(rb, ld);
    return emit(rb, RT_COPY, ops) ? 0 : -1;
  }
  LLVMValueRef rows, cols;
  matrix_dims(rb, a, &rows, &cols);
  ops[R_UPLO] = opt_op(rb, cache_uplo(rb, a) ? rb->val[R_UPLO] : konst(rb, 0));
  ops[R_M] = int_op(rb, rows), ops[R_N] = int_op(rb, cols);
  ops[R_A] = src, ops[R_LDA] = primal_stride;
  ops[R_B] = dst, ops[R_LDB] = int_op(rb, ld);
  return emit(rb, RT_LACPY, ops) ? 0 : -1;
}

/* Linux's mmap flags: MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE */
enum { MAP_FLAGS = 0x02 | 0x20 | 0x4000, PROT_RW = 0x1 | 0x2 };

/* tanjit.blas.alloc(bytes, least, mapped): malloc, or where malloc has
 * none that big, address space mapped without reserving it (pages come
 * when touched), its size then written at `mapped` (else 0) for
 * tanjit.blas.free; where even that fails, `least` bytes mapped (a
 * row-major packed copy's rows x cols, Enzyme's size, whose leading
 * dimension, the row count, spreads it over more: a copy no memory could
 * hold, which only a fake BLAS takes).  Enzyme's BLAS tests give fake arrays sizes of
 * terabytes that nothing touches (Enzyme's own caches, sized in the
 * BLAS's int, wrap); each copy must still be a buffer of its own, whose
 * address the test compares.  A function, so that aug's straight-line
 * code at the call stays one block. */
static LLVMValueRef alloc_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0), i32 = LLVMInt32TypeInContext(c);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef pt[3] = {i64, i64, ptr};
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(mc->mod, "tanjit.blas.alloc",
                                               LLVMFunctionType(ptr, pt, 3, 0), &fn);
  if (!b)
    return fn;
  /* the runtime's malloc, whose blocks its late release frees */
  LLVMValueRef fn_malloc = ad_get_or_declare(
      mc->mod, AD_RUNTIME_ALLOC_COPY_SYMBOL, LLVMFunctionType(ptr, &i64, 1, 0));
  LLVMTypeRef mt[6] = {ptr, i64, i32, i32, i32, i64};
  LLVMValueRef fn_mmap = ad_get_or_insert_helper(mc->mod, NULL, "mmap",
                                                 LLVMFunctionType(ptr, mt, 6, 0));
  LLVMValueRef bytes = LLVMGetParam(fn, 0), least = LLVMGetParam(fn, 1);
  LLVMValueRef mapped = LLVMGetParam(fn, 2);
  LLVMValueRef p = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn_malloc),
                                  fn_malloc, &bytes, 1, "p");
  LLVMBasicBlockRef map = LLVMAppendBasicBlockInContext(c, fn, "map");
  LLVMBasicBlockRef heap = LLVMAppendBasicBlockInContext(c, fn, "heap");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, p, ""), map, heap);
  LLVMPositionBuilderAtEnd(b, heap);
  LLVMBuildStore(b, LLVMConstNull(i64), mapped);
  LLVMBuildRet(b, p);
  LLVMPositionBuilderAtEnd(b, map);
  LLVMValueRef args[6] = {LLVMConstNull(ptr), bytes, LLVMConstInt(i32, PROT_RW, 0),
                          LLVMConstInt(i32, MAP_FLAGS, 0),
                          LLVMConstInt(i32, (unsigned long long)-1, 1),
                          LLVMConstNull(i64)};
  LLVMValueRef q = ad_call_helper(b, fn_mmap, args, 6, "q");
  /* MAP_FAILED, (void *)-1 */
  LLVMValueRef failed = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildPtrToInt(b, q, i64, ""),
                                      LLVMConstAllOnes(i64), "");
  LLVMBasicBlockRef less = LLVMAppendBasicBlockInContext(c, fn, "least");
  LLVMBasicBlockRef got = LLVMAppendBasicBlockInContext(c, fn, "mapped");
  LLVMBuildCondBr(b, failed, less, got);
  LLVMPositionBuilderAtEnd(b, got);
  LLVMBuildStore(b, bytes, mapped);
  LLVMBuildRet(b, q);
  LLVMPositionBuilderAtEnd(b, less);
  args[1] = least;
  q = ad_call_helper(b, fn_mmap, args, 6, "q");
  /* failed again: no copy (null, as malloc's failure) */
  failed = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildPtrToInt(b, q, i64, ""),
                         LLVMConstAllOnes(i64), "");
  LLVMBuildStore(b, LLVMBuildSelect(b, failed, LLVMConstNull(i64), least, ""), mapped);
  LLVMBuildRet(b, LLVMBuildSelect(b, failed, LLVMConstNull(ptr), q, ""));
  LLVMDisposeBuilder(b);
  return fn;
}
/* tanjit.blas.free(p, mapped): frees what tanjit.blas.alloc gave, a heap
 * block one release late (AD_RUNTIME_RELEASE_COPY_SYMBOL, ad.h). */
static LLVMValueRef free_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0), i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef pt[2] = {ptr, i64};
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.blas.free",
      LLVMFunctionType(LLVMVoidTypeInContext(c), pt, 2, 0), &fn);
  if (!b)
    return fn;
  LLVMValueRef fn_munmap = ad_get_or_insert_helper(
      mc->mod, NULL, "munmap", LLVMFunctionType(LLVMInt32TypeInContext(c), pt, 2, 0));
  LLVMValueRef p = LLVMGetParam(fn, 0), mapped = LLVMGetParam(fn, 1);
  LLVMBasicBlockRef unmap = LLVMAppendBasicBlockInContext(c, fn, "unmap");
  LLVMBasicBlockRef heap = LLVMAppendBasicBlockInContext(c, fn, "heap");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, mapped, LLVMConstNull(i64), ""),
                  unmap, heap);
  LLVMPositionBuilderAtEnd(b, unmap);
  LLVMValueRef args[2] = {p, mapped};
  ad_call_helper(b, fn_munmap, args, 2, "");
  LLVMBuildRetVoid(b);
  LLVMPositionBuilderAtEnd(b, heap);
  LLVMValueRef release = ad_get_or_declare(
      mc->mod, AD_RUNTIME_RELEASE_COPY_SYMBOL,
      LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0));
  LLVMBuildCall2(b, LLVMGlobalGetValueType(release), release, &p, 1, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}
static LLVMValueRef alloc_copy(rev_blas *rb, LLVMValueRef bytes, LLVMValueRef least,
                               LLVMValueRef mapped) {
  LLVMValueRef fn = alloc_fn(rb->r->mc);
  LLVMValueRef args[3] = {bytes, least, mapped};
  return LLVMBuildCall2(rb->b, LLVMGlobalGetValueType(fn), fn, args, 3, "blas.copy");
}
static void free_copy(rev_blas *rb, LLVMValueRef p, LLVMValueRef mapped) {
  LLVMValueRef fn = free_fn(rb->r->mc);
  LLVMValueRef args[2] = {p, mapped};
  LLVMBuildCall2(rb->b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
}

static int aug_blas(ad_rev_fn *r, const ad_rev_call_row *row,
                    LLVMValueRef call, LLVMValueRef clone) {
  const ad_call_rule *rule = ad_rule_of_call(r->mc, call);
  rev_blas rb;
  if (read_call(&rb, r, call, rule) != 0)
    return -1;
  const rev_blas_row *rr = &rev_rows[rb.id];
  if (!rr->adjoint)
    return ad_rev_any_active(r, call)
               ? ad_rev_fail_call(r, call, "no reverse-mode rule for a call to %s",
                                  rule->name)
               : 0;
  unsigned out = written_role(&rb);
  if (out == R_END) {
    if (!ad_rev_has_adjoint(r, call))
      return 0;
  } else if (!ad_shadow_or_null(&r->fc, orig(&rb, out))) {
    /* an enzyme_const buffer nothing reads back: no derivative flows
     * through what the call writes there, as in Enzyme */
    if (any_input_active(&rb) &&
        !ad_rev_into_unread_constant(r, orig(&rb, out)))
      return ad_rev_fail_call(r, call,
                              "%s writes active values into memory with no "
                              "shadow (a constant argument whose memory the "
                              "gradient may read back, or unknown memory)",
                              rule->name);
    return 0;
  }
  if (!any_input_active(&rb) && out == R_END)
    return 0;
  if (cublas(&rb) && rb.id == RT_TRMV && active(&rb, R_A))
    return ad_rev_fail_call(r, call,
                            "%s: the adjoint of an active A reads elements of "
                            "x on the host, which cuBLAS's device arrays are "
                            "not",
                            rule->name);
  ad_module_ctx *mc = r->mc;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
  LLVMPositionBuilderBefore(b, clone);
  rb.b = b;
  rb.fn = r->aug;
  LLVMValueRef fn_malloc = malloc_fn(mc);
  if (!fn_malloc) {
    LLVMDisposeBuilder(b);
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  /* the values first (into an alloca'd header, copied into the block) */
  LLVMTypeRef hdr_t = LLVMArrayType2(rb.i64, SLOTS);
  LLVMValueRef hdr = ad_entry_alloca(r->aug, hdr_t, "blas.values");
  read_values(&rb, hdr, 0);
  rb.site.handle = has(&rb, R_HANDLE) ? rb.val[R_HANDLE] : NULL;
  cache_plan plan;
  plan_caches(&rb, &plan);
  if (has(&rb, R_LAYOUT))
    rb.site.layout = ad_primal(&r->fc, orig(&rb, R_LAYOUT));
  LLVMValueRef bytes = konst(&rb, SLOTS * 8), len[R_COUNT] = {0}, least[R_COUNT] = {0};
  LLVMValueRef size = konst(&rb, (long long)LLVMABISizeOfType(mc->td, rb.real));
  LLVMValueRef stride[R_COUNT] = {0}, copy_at[R_COUNT] = {0};
  unsigned char packed[R_COUNT] = {0};
  for (unsigned a = R_A; a <= R_Y; a++) {
    if (!has(&rb, a))
      continue;
    unsigned st = stride_role(a);
    stride[a] = rb.val[st];
    if (plan.cached[a] && (packed[a] = packs(&rb, a)))
      stride[a] = packed_stride(&rb, a);
    LLVMBuildStore(b, stride[a], slot_at(&rb, hdr, SLOT_STRIDE + st));
    if (!plan.cached[a])
      continue;
    len[a] = LLVMBuildMul(b, span(&rb, a, stride[a]), size, "");
    least[a] = len[a];
    if (packed[a] && is_matrix(a)) {
      LLVMValueRef rows, cols;
      matrix_dims(&rb, a, &rows, &cols);
      least[a] = LLVMBuildMul(b, LLVMBuildMul(b, rows, cols, ""), size, "");
    }
  }
  LLVMValueRef block = ad_call_helper(b, fn_malloc, &bytes, 1, "blas.cache");
  LLVMBuildMemCpy(b, block, 8, hdr, 8, konst(&rb, SLOTS * 8));
  for (unsigned a = R_A; a <= R_Y; a++) {
    if (plan.in_place[a])
      LLVMBuildStore(b, as_pointer(&rb, ad_primal(&r->fc, orig(&rb, a))),
                     slot_at(&rb, block, SLOT_COPY + a));
    if (!plan.cached[a])
      continue;
    LLVMValueRef src = as_pointer(&rb, ad_primal(&r->fc, orig(&rb, a)));
    LLVMValueRef dst;
    if (cublas(&rb)) {
      /* device memory is copied by cuBLAS: the span, increment 1 */
      if (!(dst = device_alloc(&rb, r->aug, len[a]))) {
        LLVMDisposeBuilder(b);
        return -1;
      }
      LLVMValueRef ops[R_COUNT] = {0};
      ops[R_N] = int_op(&rb, span(&rb, a, NULL));
      ops[R_X] = src, ops[R_Y] = dst;
      ops[R_INCX] = ops[R_INCY] = int_op(&rb, konst(&rb, 1));
      if (!emit(&rb, RT_COPY, ops)) {
        LLVMDisposeBuilder(b);
        return -1;
      }
    } else {
      /* a malloc of its own, as Enzyme's caches: where the sizes are too
       * big for memory (its BLAS tests' fake arrays) that is a null copy
       * that a fake BLAS never reads, not a failed cache block */
      dst = alloc_copy(&rb, len[a], least[a], slot_at(&rb, block, SLOT_MAPPED + a));
      copy_at[a] = dst;
      if (plan.after[a]) {
        LLVMBuildStore(b, dst, slot_at(&rb, block, SLOT_COPY + a));
        continue; /* filled below, after the call */
      }
      int failed = !packed[a] ? (LLVMBuildMemCpy(b, dst, 1, src, 1, len[a]), 0)
                              : pack(&rb, a, dst, stride[a]) != 0;
      if (failed) {
        LLVMDisposeBuilder(b);
        return -1;
      }
    }
    LLVMBuildStore(b, dst, slot_at(&rb, block, SLOT_COPY + a));
  }
  /* what the call leaves, copied after it in the arrays' order (the
   * clone may still end its block while aug is built) */
  LLVMValueRef next = LLVMGetNextInstruction(clone);
  if (next)
    LLVMPositionBuilderBefore(b, next);
  else
    LLVMPositionBuilderAtEnd(b, LLVMGetInstructionParent(clone));
  for (unsigned a = R_A; a <= R_Y; a++) {
    if (!plan.cached[a] || !plan.after[a] || cublas(&rb))
      continue;
    LLVMValueRef src = as_pointer(&rb, ad_primal(&r->fc, orig(&rb, a)));
    if (!packed[a])
      LLVMBuildMemCpy(b, copy_at[a], 1, src, 1, len[a]);
    else if (pack(&rb, a, copy_at[a], stride[a]) != 0) {
      LLVMDisposeBuilder(b);
      return -1;
    }
  }
  LLVMDisposeBuilder(b);
  if (ad_rev_record(r, call, block) != 0)
    return -1;
  return ad_rev_plan_row(r, call, row) ? 0 : -1;
}

/* ---- operands of the adjoint's calls (reverse) ---- */

static LLVMValueRef in_memory(rev_blas *rb, LLVMTypeRef t, LLVMValueRef v) {
  LLVMValueRef slot = ad_entry_alloca(rb->fn, t, "blas.arg");
  LLVMBuildStore(rb->b, v, slot);
  return slot;
}
static LLVMValueRef int_op(rev_blas *rb, LLVMValueRef v) {
  v = LLVMBuildIntCast2(rb->b, v, rb->intty, 1, "");
  return fortran(rb) ? in_memory(rb, rb->intty, v) : v;
}
/* A scalar as the interface passes it (cuBLAS: by pointer; ad_blas_emit
 * passes the value where the routine's declaration takes one). */
static LLVMValueRef real_op(rev_blas *rb, LLVMValueRef v) {
  v = LLVMBuildFPCast(rb->b, v, rb->real, "");
  return fortran(rb) || cublas(rb) ? in_memory(rb, rb->real, v) : v;
}
static LLVMValueRef real_const(rev_blas *rb, double k) {
  return real_op(rb, LLVMConstReal(rb->real, k));
}
/* An option value (i64) as the interface passes it. */
static LLVMValueRef opt_op(rev_blas *rb, LLVMValueRef v) {
  LLVMContextRef c = rb->r->mc->llctx;
  if (fortran(rb))
    return in_memory(rb, LLVMInt8TypeInContext(c),
                     LLVMBuildTrunc(rb->b, v, LLVMInt8TypeInContext(c), ""));
  /* the type the call passes its options in (cuBLAS's enums: an int, or
   * Enzyme's stand-ins' char) */
  LLVMTypeRef t = LLVMInt32TypeInContext(c);
  for (unsigned role = R_LAYOUT + 1; role <= R_DIAG; role++)
    if (has(rb, role)) {
      t = LLVMTypeOf(orig(rb, role));
      break;
    }
  return LLVMBuildIntCast2(rb->b, v, t, 0, "");
}
/* 'N' or 'T' (transposed) in the encoding of option `like`: a CBLAS enum
 * (111 / 112) or a character in like's case; cuBLAS's CUBLAS_OP_N / _T. */
static LLVMValueRef trans_like(rev_blas *rb, LLVMValueRef like,
                               LLVMValueRef transposed) {
  LLVMBuilderRef b = rb->b;
  if (cublas(rb))
    return sel(rb, transposed, konst(rb, 1), konst(rb, 0));
  LLVMValueRef is_enum = option_is(rb, like, &codes_cblas_enum);
  LLVMValueRef e = sel(rb, transposed, konst(rb, 112), konst(rb, 111));
  LLVMValueRef ch = LLVMBuildOr(b, sel(rb, transposed, konst(rb, 'T'), konst(rb, 'N')),
                                LLVMBuildAnd(b, like, konst(rb, 0x20), ""), "");
  return sel(rb, is_enum, e, ch);
}
static LLVMValueRef flip(rev_blas *rb, LLVMValueRef opt) {
  return trans_like(rb, opt, is_notrans(rb, opt));
}
static LLVMValueRef i1(rev_blas *rb, int v) {
  return LLVMConstInt(LLVMInt1TypeInContext(rb->r->mc->llctx), (unsigned)v, 0);
}

/* The shadow of array `role` in the reverse; *same its run-time "is the
 * array itself" condition (NULL when it cannot be). */
static LLVMValueRef shadow(rev_blas *rb, unsigned role, LLVMValueRef *same) {
  ad_rev_fn *r = rb->r;
  LLVMValueRef v = orig(rb, role);
  LLVMValueRef s = ad_rev_shadow(r, v);
  *same = NULL;
  if (ad_shadow_may_equal_primal(&r->fc, v))
    *same = LLVMBuildICmp(rb->b, LLVMIntEQ, s, ad_rev_primal(r, v), "blas.same");
  return s;
}
/* Where `skip` holds at run time (an output, or the array a term writes,
 * is its own shadow: inactive memory) the term's calls are not made: a
 * branch around them, as Enzyme's run-time activity emits (its tests
 * count the calls).  Returns the block to continue in (NULL: no skip). */
static LLVMBasicBlockRef term_begin(rev_blas *rb, LLVMValueRef skip) {
  if (!skip)
    return NULL;
  LLVMContextRef c = rb->r->mc->llctx;
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(c, rb->r->rev, "blas.term");
  LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(c, rb->r->rev, "blas.term.done");
  LLVMBuildCondBr(rb->b, skip, after, go);
  LLVMPositionBuilderAtEnd(rb->b, go);
  return after;
}
static void term_end(rev_blas *rb, LLVMBasicBlockRef after) {
  if (!after)
    return;
  LLVMBuildBr(rb->b, after);
  LLVMPositionBuilderAtEnd(rb->b, after);
}
static LLVMValueRef emit(rev_blas *rb, blas_routine_id id, LLVMValueRef *ops) {
  return ad_blas_emit(&rb->site, rb->b, id, ops, NULL, NULL);
}
/* The real result of routine id (dot, nrm2) in the precision's type:
 * returned, or (cuBLAS _v2) written into a slot of the host's, read back
 * (CUBLAS_POINTER_MODE_HOST). */
static LLVMValueRef real_result_into(rev_blas *rb, blas_routine_id id,
                                     LLVMValueRef *ops, LLVMValueRef slot) {
  if (ad_blas_result_by_pointer(rb->iface)) {
    if (!slot)
      slot = ad_entry_alloca(rb->r->rev, rb->real, "blas.result");
    ops[R_RESULT] = slot;
  } else {
    slot = NULL;
  }
  LLVMValueRef d = emit(rb, id, ops);
  if (!d)
    return NULL;
  if (slot)
    return LLVMBuildLoad2(rb->b, rb->real, slot, "blas.result");
  return LLVMBuildFPCast(rb->b, d, rb->real, "");
}
static LLVMValueRef real_result(rev_blas *rb, blas_routine_id id,
                                LLVMValueRef *ops) {
  return real_result_into(rb, id, ops, NULL);
}
static LLVMValueRef dot(rev_blas *rb, LLVMValueRef n, LLVMValueRef x,
                        LLVMValueRef incx, LLVMValueRef y, LLVMValueRef incy) {
  LLVMValueRef ops[R_COUNT] = {0};
  ops[R_N] = n, ops[R_X] = x, ops[R_INCX] = incx, ops[R_Y] = y, ops[R_INCY] = incy;
  return real_result(rb, RT_DOT, ops);
}
/* cudaMemset(p, 0, bytes) */
static int device_zero(rev_blas *rb, LLVMValueRef p, LLVMValueRef bytes) {
  ad_module_ctx *mc = rb->r->mc;
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef pt[3] = {LLVMPointerTypeInContext(c, 0), LLVMInt32TypeInContext(c),
                       rb->i64};
  LLVMValueRef fn = ad_get_or_insert_helper(
      mc->mod, rb->call, "cudaMemset",
      LLVMFunctionType(LLVMInt32TypeInContext(c), pt, 3, 0));
  if (!fn)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, rb->call, "out of memory");
  LLVMValueRef args[3] = {as_pointer(rb, p), LLVMConstNull(pt[1]), bytes};
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
  LLVMTypeRef have[3];
  if (LLVMCountParamTypes(ft) != 3)
    return ad_rev_fail_call(rb->r, rb->call,
                            "%s: cudaMemset is declared with other parameters "
                            "than (void *, int, size_t)",
                            rb->name);
  LLVMGetParamTypes(ft, have);
  for (unsigned k = 1; k < 3; k++)
    args[k] = LLVMBuildIntCast2(rb->b, args[k], have[k], 0, "");
  ad_call_helper(rb->b, fn, args, 3, "");
  return 0;
}
static int axpy(rev_blas *rb, LLVMValueRef n, LLVMValueRef alpha, LLVMValueRef x,
                LLVMValueRef incx, LLVMValueRef y, LLVMValueRef incy) {
  LLVMValueRef ops[R_COUNT] = {0};
  ops[R_N] = n, ops[R_ALPHA] = alpha, ops[R_X] = x, ops[R_INCX] = incx;
  ops[R_Y] = y, ops[R_INCY] = incy;
  return emit(rb, RT_AXPY, ops) ? 0 : -1;
}
static int scal(rev_blas *rb, LLVMValueRef n, LLVMValueRef alpha, LLVMValueRef x,
                LLVMValueRef incx) {
  LLVMValueRef ops[R_COUNT] = {0};
  ops[R_N] = n, ops[R_ALPHA] = alpha, ops[R_X] = x, ops[R_INCX] = incx;
  return emit(rb, RT_SCAL, ops) ? 0 : -1;
}

/* Scalar role's adjoint += d (a C scalar's adjoint slot, a Fortran
 * scalar's shadow memory). */
static void add_scalar(rev_blas *rb, unsigned role, LLVMValueRef d) {
  ad_rev_fn *r = rb->r;
  LLVMValueRef v = orig(rb, role);
  if (!scalar_by_ref(rb, role)) {
    ad_rev_accumulate(r, v, LLVMBuildFPCast(rb->b, d, LLVMTypeOf(v), ""), NULL);
    return;
  }
  /* cuBLAS: the scalar's memory is the host's (CUBLAS_POINTER_MODE_HOST,
   * the mode its results are read back in) */
  LLVMBasicBlockRef after = ad_rev_guard(r, v);
  LLVMValueRef sp = ad_rev_shadow(r, v);
  LLVMValueRef old = LLVMBuildLoad2(rb->b, rb->real, sp, "");
  LLVMBuildStore(rb->b, LLVMBuildFAdd(rb->b, old, d, ""), sp);
  ad_rev_guard_end(r, after);
}

/* ---- adjoints (at rb->b == r->rb) ---- */

static LLVMValueRef inc_op(rev_blas *rb, unsigned role) {
  return int_op(rb, rb->val[role]);
}
/* The stride of the copy of the array whose stride role is `role`. */
static LLVMValueRef copy_inc(rev_blas *rb, unsigned role) {
  return int_op(rb, rb->cld[role]);
}

/* cuBLAS _v2's dot: dr is in the result's shadow, which the adjoint's
 * axpys take as their alpha by pointer (the same memory kind as the
 * result's) and cudaMemset zeroes after, the calls Enzyme emits. */
static int adjoint_dot_v2(rev_blas *rb) {
  LLVMValueRef off, dr = shadow(rb, R_RESULT, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  static const unsigned char pairs[2][2] = {{R_X, R_Y}, {R_Y, R_X}};
  for (unsigned i = 0; i < 2; i++) {
    unsigned to = pairs[i][0], from = pairs[i][1];
    if (!active(rb, to))
      continue;
    LLVMValueRef same, s = shadow(rb, to, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    if (axpy(rb, int_op(rb, rb->val[R_N]), as_pointer(rb, dr), rb->copy[from],
             copy_inc(rb, from == R_X ? R_INCX : R_INCY), s,
             inc_op(rb, to == R_X ? R_INCX : R_INCY)) != 0)
      return -1;
    term_end(rb, after);
  }
  if (device_zero(rb, dr, konst(rb, (long long)LLVMABISizeOfType(rb->r->mc->td,
                                                                 rb->real))) != 0)
    return -1;
  term_end(rb, done);
  return 0;
}

static int adjoint_dot(rev_blas *rb) {
  if (has(rb, R_RESULT))
    return adjoint_dot_v2(rb);
  LLVMValueRef d = LLVMBuildFPCast(rb->b, ad_rev_take(rb->r, rb->call), rb->real, "");
  static const unsigned char pairs[2][2] = {{R_X, R_Y}, {R_Y, R_X}};
  for (unsigned i = 0; i < 2; i++) {
    unsigned to = pairs[i][0], from = pairs[i][1];
    if (!active(rb, to))
      continue;
    LLVMValueRef same, s = shadow(rb, to, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    if (axpy(rb, int_op(rb, rb->val[R_N]), real_op(rb, d), rb->copy[from],
             copy_inc(rb, from == R_X ? R_INCX : R_INCY), s,
             inc_op(rb, to == R_X ? R_INCX : R_INCY)) != 0)
      return -1;
    term_end(rb, after);
  }
  return 0;
}

/* r again from the cached x (Enzyme recomputes it: its traces count the
 * call) */
static int adjoint_nrm2(rev_blas *rb) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef zero = LLVMConstNull(rb->real), d;
  LLVMBasicBlockRef result_done = NULL;
  if (has(rb, R_RESULT)) {
    /* cuBLAS _v2: dr from the result's shadow (host memory, as the result
     * is read back), taken (zeroed) */
    LLVMValueRef off, dr = as_pointer(rb, shadow(rb, R_RESULT, &off));
    result_done = term_begin(rb, off);
    d = LLVMBuildLoad2(b, rb->real, dr, "blas.dr");
    LLVMBuildStore(b, zero, dr);
  } else {
    d = LLVMBuildFPCast(b, ad_rev_take(rb->r, rb->call), rb->real, "");
  }
  LLVMValueRef ops[R_COUNT] = {0};
  ops[R_N] = int_op(rb, rb->val[R_N]);
  ops[R_X] = rb->copy[R_X], ops[R_INCX] = copy_inc(rb, R_INCX);
  LLVMValueRef r = real_result(rb, RT_NRM2, ops);
  if (!r)
    return -1;
  LLVMValueRef scale = sel(rb, LLVMBuildFCmp(b, LLVMRealOEQ, r, zero, ""),
                           zero, LLVMBuildFDiv(b, d, r, ""));
  LLVMValueRef same, s = shadow(rb, R_X, &same);
  LLVMBasicBlockRef after = term_begin(rb, same);
  if (axpy(rb, int_op(rb, rb->val[R_N]), real_op(rb, scale),
           rb->copy[R_X], copy_inc(rb, R_INCX), s, inc_op(rb, R_INCX)) != 0)
    return -1;
  term_end(rb, after);
  term_end(rb, result_done);
  return 0;
}

static int adjoint_axpy(rev_blas *rb) {
  LLVMValueRef off, dy = shadow(rb, R_Y, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  if (active(rb, R_ALPHA)) {
    LLVMValueRef a = dot(rb, int_op(rb, rb->val[R_N]), rb->copy[R_X],
                         copy_inc(rb, R_INCX), dy, inc_op(rb, R_INCY));
    if (!a)
      return -1;
    add_scalar(rb, R_ALPHA, a);
  }
  if (active(rb, R_X)) {
    LLVMValueRef same, dx = shadow(rb, R_X, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    if (axpy(rb, int_op(rb, rb->val[R_N]),
             real_op(rb, rb->val[R_ALPHA]), dy, inc_op(rb, R_INCY), dx,
             inc_op(rb, R_INCX)) != 0)
      return -1;
    term_end(rb, after);
  }
  term_end(rb, done);
  return 0;
}

static int adjoint_scal(rev_blas *rb) {
  LLVMValueRef off, dx = shadow(rb, R_X, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef n = int_op(rb, rb->val[R_N]);
  if (active(rb, R_ALPHA)) {
    /* cuBLAS _v2: the dot writes into alpha's shadow (as Enzyme's does),
     * whose old value is added back below */
    LLVMValueRef into = NULL, old = NULL;
    if (ad_blas_result_by_pointer(rb->iface) && scalar_by_ref(rb, R_ALPHA)) {
      into = as_pointer(rb, ad_rev_shadow(rb->r, orig(rb, R_ALPHA)));
      old = LLVMBuildLoad2(rb->b, rb->real, into, "blas.dalpha.old");
    }
    LLVMValueRef ops[R_COUNT] = {0};
    ops[R_N] = n, ops[R_X] = rb->copy[R_X], ops[R_INCX] = copy_inc(rb, R_INCX);
    ops[R_Y] = dx, ops[R_INCY] = inc_op(rb, R_INCX);
    LLVMValueRef a = real_result_into(rb, RT_DOT, ops, into);
    if (!a)
      return -1;
    if (rb->recovered_x) {
      /* the old x is alpha x / alpha; where alpha is 0 it is gone, and
       * its term is taken as 0 (x, and so cx.dx, is 0 there) */
      LLVMValueRef al = rb->val[R_ALPHA], zero = LLVMConstNull(rb->real);
      LLVMValueRef is0 = LLVMBuildFCmp(rb->b, LLVMRealOEQ, al, zero, "");
      a = sel(rb, is0, zero,
              LLVMBuildFDiv(rb->b, a, sel(rb, is0, LLVMConstReal(rb->real, 1.0), al),
                            "blas.dalpha"));
    }
    if (into)
      LLVMBuildStore(rb->b, LLVMBuildFAdd(rb->b, old, a, ""), into);
    else
      add_scalar(rb, R_ALPHA, a);
  }
  if (scal(rb, n, real_op(rb, rb->val[R_ALPHA]), dx, inc_op(rb, R_INCX)) != 0)
    return -1;
  term_end(rb, done);
  return 0;
}

static int adjoint_copy(rev_blas *rb) {
  LLVMValueRef off, dy = shadow(rb, R_Y, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  if (active(rb, R_X)) {
    LLVMValueRef same, dx = shadow(rb, R_X, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    if (axpy(rb, int_op(rb, rb->val[R_N]), real_const(rb, 1.0), dy,
             inc_op(rb, R_INCY), dx, inc_op(rb, R_INCX)) != 0)
      return -1;
    term_end(rb, after);
  }
  /* |incy|: scal skips a negative increment; the same elements */
  if (scal(rb, int_op(rb, rb->val[R_N]), real_const(rb, 0.0), dy,
           int_op(rb, abs_i64(rb, rb->val[R_INCY]))) != 0)
    return -1;
  term_end(rb, done);
  return 0;
}

/* A zeroed scratch array of count + 1 reals: the host's (calloc), or
 * under cuBLAS the device's (cudaMalloc, cudaMemset); NULL with the
 * error.  free_scratch frees it. */
static LLVMValueRef calloc_reals(rev_blas *rb, LLVMValueRef count) {
  LLVMValueRef args[2] = {
      LLVMBuildAdd(rb->b, count, konst(rb, 1), ""),
      konst(rb, (long long)LLVMABISizeOfType(rb->r->mc->td, rb->real))};
  if (cublas(rb)) {
    LLVMValueRef bytes = LLVMBuildMul(rb->b, args[0], args[1], "");
    LLVMValueRef p = device_alloc(rb, rb->r->rev, bytes);
    if (p && device_zero(rb, p, bytes) != 0)
      return NULL;
    return p;
  }
  return ad_rev_call_libc(rb->r->mc, rb->b, "calloc", args, 2);
}
static void free_scratch(rev_blas *rb, LLVMValueRef p) {
  if (cublas(rb))
    device_free(rb, p);
  else
    ad_rev_call_libc(rb->r->mc, rb->b, "free", &p, 1);
}
static void free_block(rev_blas *rb, LLVMValueRef p) {
  ad_rev_call_libc(rb->r->mc, rb->b, "free", &p, 1);
}

/* alpha's adjoint for a matrix-vector product y := alpha op(A) x + beta y,
 * whose shape operands (trans/uplo, sizes) `ops` already holds:
 * t := op(A) x by the same routine with alpha 1 and beta 0, da += t.dy */
static int alpha_adjoint_of_matvec(rev_blas *rb, blas_routine_id id,
                                   LLVMValueRef *ops, LLVMValueRef leny,
                                   LLVMValueRef dy) {
  LLVMValueRef one = int_op(rb, konst(rb, 1));
  LLVMValueRef t = calloc_reals(rb, leny);
  ops[R_ALPHA] = real_const(rb, 1.0);
  ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
  ops[R_X] = rb->copy[R_X], ops[R_INCX] = copy_inc(rb, R_INCX);
  ops[R_BETA] = real_const(rb, 0.0);
  ops[R_Y] = t, ops[R_INCY] = one;
  if (!emit(rb, id, ops))
    return -1;
  LLVMValueRef a = dot(rb, int_op(rb, leny), t, one, dy, inc_op(rb, R_INCY));
  if (!a)
    return -1;
  add_scalar(rb, R_ALPHA, a);
  free_scratch(rb, t);
  return 0;
}

static int adjoint_gemv(rev_blas *rb) {
  LLVMValueRef off, dy = shadow(rb, R_Y, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef nt = is_notrans(rb, rb->val[R_TRANS]);
  LLVMValueRef leny = vector_length(rb, R_Y);
  LLVMValueRef ops[R_COUNT] = {0};
  if (active(rb, R_ALPHA)) {
    ops[R_TRANS] = opt_op(rb, rb->val[R_TRANS]);
    ops[R_M] = int_op(rb, rb->val[R_M]);
    ops[R_N] = int_op(rb, rb->val[R_N]);
    if (alpha_adjoint_of_matvec(rb, RT_GEMV, ops, leny, dy) != 0)
      return -1;
  }
  if (active(rb, R_A)) {
    /* dA += alpha dy x' (op = T: alpha x dy') */
    LLVMValueRef same, dA = shadow(rb, R_A, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    memset(ops, 0, sizeof ops);
    ops[R_M] = int_op(rb, rb->val[R_M]);
    ops[R_N] = int_op(rb, rb->val[R_N]);
    ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
    LLVMValueRef incx = copy_inc(rb, R_INCX), incy = inc_op(rb, R_INCY);
    LLVMValueRef cx = rb->copy[R_X];
    if (LLVMTypeOf(cx) != LLVMTypeOf(dy))
      cx = LLVMBuildPtrToInt(rb->b, cx, LLVMTypeOf(dy), "");
    ops[R_X] = sel(rb, nt, dy, cx), ops[R_INCX] = sel(rb, nt, incy, incx);
    ops[R_Y] = sel(rb, nt, cx, dy), ops[R_INCY] = sel(rb, nt, incx, incy);
    ops[R_A] = dA, ops[R_LDA] = inc_op(rb, R_LDA);
    if (!emit(rb, RT_GER, ops))
      return -1;
    term_end(rb, after);
  }
  if (active(rb, R_X)) {
    /* dx += alpha op(A)' dy */
    LLVMValueRef same, dx = shadow(rb, R_X, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    memset(ops, 0, sizeof ops);
    ops[R_TRANS] = opt_op(rb, flip(rb, rb->val[R_TRANS]));
    ops[R_M] = int_op(rb, rb->val[R_M]);
    ops[R_N] = int_op(rb, rb->val[R_N]);
    ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
    ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
    ops[R_X] = dy, ops[R_INCX] = inc_op(rb, R_INCY);
    ops[R_BETA] = real_const(rb, 1.0);
    ops[R_Y] = dx, ops[R_INCY] = inc_op(rb, R_INCX);
    if (!emit(rb, RT_GEMV, ops))
      return -1;
    term_end(rb, after);
  }
  if (active(rb, R_BETA)) {
    LLVMValueRef bt = dot(rb, int_op(rb, leny), rb->copy[R_Y],
                          copy_inc(rb, R_INCY), dy, inc_op(rb, R_INCY));
    if (!bt)
      return -1;
    add_scalar(rb, R_BETA, bt);
  }
  if (scal(rb, int_op(rb, leny), real_op(rb, rb->val[R_BETA]), dy,
           int_op(rb, abs_i64(rb, rb->val[R_INCY]))) != 0)
    return -1;
  term_end(rb, done);
  return 0;
}

/* base + i elements (base a pointer or an address as an integer) */
static LLVMValueRef element(rev_blas *rb, LLVMValueRef base, LLVMValueRef i) {
  return LLVMBuildGEP2(rb->b, rb->real, as_pointer(rb, base), &i, 1, "");
}

/*
 * One factor's adjoint of gemm (C := alpha op(A) op(B) + beta C), A the
 * left factor, B the right, o the other:
 *   dA += alpha dC op(B)'   (op(A) = A)    dA += alpha op(B) dC'  (op(A) = A')
 *   dB += alpha op(A)' dC   (op(B) = B)    dB += alpha dC' op(A)  (op(B) = B')
 * so dC comes first where the factor is A untransposed or B transposed,
 * taken as is (N) or transposed (T) as the factor is; the other array
 * as it was (op) or flipped; the sizes are the factor's op shape, or its
 * transpose, and k is the dimension the factor does not have.
 */
static int gemm_factor_adjoint(rev_blas *rb, unsigned factor, LLVMValueRef dC) {
  if (!active(rb, factor))
    return 0;
  LLVMBuilderRef b = rb->b;
  int left = factor == R_A;
  unsigned other = left ? R_B : R_A;
  LLVMValueRef tf = rb->val[left ? R_TRANS : R_TRANSB];
  LLVMValueRef to = rb->val[left ? R_TRANSB : R_TRANS];
  LLVMValueRef nt = is_notrans(rb, tf);
  LLVMValueRef dc_first = left ? nt : LLVMBuildNot(b, nt, "");
  LLVMValueRef m = rb->val[R_M], n = rb->val[R_N], k = rb->val[R_K];
  LLVMValueRef rows = left ? m : k, cols = left ? k : n;
  LLVMValueRef same, dX = shadow(rb, factor, &same);
  LLVMBasicBlockRef after = term_begin(rb, same);
  LLVMValueRef co = rb->copy[other], ldo = copy_inc(rb, left ? R_LDB : R_LDA);
  LLVMValueRef ldc = inc_op(rb, R_LDC);
  if (LLVMTypeOf(co) != LLVMTypeOf(dC))
    co = LLVMBuildPtrToInt(b, co, LLVMTypeOf(dC), "");
  LLVMValueRef op_dc = trans_like(rb, tf, LLVMBuildNot(b, nt, ""));
  LLVMValueRef op_o = sel(rb, nt, flip(rb, to), to);
  LLVMValueRef ops[R_COUNT] = {0};
  ops[R_TRANS] = opt_op(rb, sel(rb, dc_first, op_dc, op_o));
  ops[R_TRANSB] = opt_op(rb, sel(rb, dc_first, op_o, op_dc));
  ops[R_M] = int_op(rb, sel(rb, nt, rows, cols));
  ops[R_N] = int_op(rb, sel(rb, nt, cols, rows));
  ops[R_K] = int_op(rb, left ? n : m);
  ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
  ops[R_A] = sel(rb, dc_first, dC, co), ops[R_LDA] = sel(rb, dc_first, ldc, ldo);
  ops[R_B] = sel(rb, dc_first, co, dC), ops[R_LDB] = sel(rb, dc_first, ldo, ldc);
  ops[R_BETA] = real_const(rb, 1.0);
  ops[R_C] = dX, ops[R_LDC] = inc_op(rb, left ? R_LDA : R_LDB);
  if (!emit(rb, RT_GEMM, ops))
    return -1;
  term_end(rb, after);
  return 0;
}

/* A counted loop j = 0 .. count-1 at rb->b: the body follows; end_loop
 * closes it. */
typedef struct blas_loop {
  LLVMBasicBlockRef pre, head, done;
  LLVMValueRef j;
} blas_loop;
static void begin_loop(rev_blas *rb, LLVMValueRef count, blas_loop *l) {
  LLVMContextRef c = rb->r->mc->llctx;
  LLVMBuilderRef b = rb->b;
  l->pre = LLVMGetInsertBlock(b);
  l->head = LLVMAppendBasicBlockInContext(c, rb->r->rev, "blas.col");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c, rb->r->rev, "blas.col");
  l->done = LLVMAppendBasicBlockInContext(c, rb->r->rev, "blas.col.done");
  LLVMBuildBr(b, l->head);
  LLVMPositionBuilderAtEnd(b, l->head);
  l->j = LLVMBuildPhi(b, rb->i64, "blas.j");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, l->j, count, ""), body, l->done);
  LLVMPositionBuilderAtEnd(b, body);
}
static void end_loop(rev_blas *rb, blas_loop *l) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef next = LLVMBuildAdd(b, l->j, konst(rb, 1), "");
  LLVMBasicBlockRef body_end = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, l->head);
  LLVMValueRef in_v[2] = {konst(rb, 0), next};
  LLVMBasicBlockRef in_b[2] = {l->pre, body_end};
  LLVMAddIncoming(l->j, in_v, in_b, 2);
  LLVMPositionBuilderAtEnd(b, l->done);
}

/* Whether the program has a C-interface lascl (Enzyme's BLAS does, and
 * scales with it: its tests compare the calls); CBLAS proper has none. */
static int has_lascl(const rev_blas *rb) {
  return !fortran(rb) &&
         LLVMGetNamedFunction(rb->r->mc->mod, ad_blas_name(RT_LASCL, rb->iface, rb->prec));
}

/* The m x n output's adjoint dC := beta dC (R_LDC, R_BETA); `like` an
 * option of the call, for the encoding of gemm's 'N'. */
static int scale_output(rev_blas *rb, LLVMValueRef m, LLVMValueRef n,
                        LLVMValueRef dC, LLVMValueRef like) {
  LLVMValueRef ops[R_COUNT] = {0}, ldc = inc_op(rb, R_LDC);
  if (has_lascl(rb)) {
    /* by the program's C-interface lascl where it has one (Enzyme's BLAS
     * does, and scales with it: its tests compare the calls); CBLAS
     * proper has none */
    ops[R_UPLO] = opt_op(rb, konst(rb, cublas(rb) ? CUBLAS_FULL : 'G'));
    ops[R_KL] = ops[R_KU] = int_op(rb, konst(rb, 0));
    ops[R_CFROM] = real_const(rb, 1.0);
    ops[R_CTO] = real_op(rb, rb->val[R_BETA]);
    ops[R_M] = int_op(rb, m), ops[R_N] = int_op(rb, n);
    ops[R_A] = dC, ops[R_LDA] = ldc;
    ops[R_INFO] = LLVMConstNull(rb->intty);
    return emit(rb, RT_LASCL, ops) ? 0 : -1;
  }
  /* else by gemm itself (alpha 0, k 0: BLAS scales C by beta, zeroes it
   * for beta 0), the one routine a program defining only gemm has */
  ops[R_TRANS] = ops[R_TRANSB] = opt_op(rb, trans_like(rb, like, i1(rb, 0)));
  ops[R_M] = int_op(rb, m), ops[R_N] = int_op(rb, n);
  ops[R_K] = int_op(rb, konst(rb, 0));
  ops[R_ALPHA] = real_const(rb, 0.0);
  ops[R_A] = ops[R_B] = dC;
  ops[R_LDA] = ops[R_LDB] = ldc;
  ops[R_BETA] = real_op(rb, rb->val[R_BETA]);
  ops[R_C] = dC, ops[R_LDC] = ldc;
  return emit(rb, RT_GEMM, ops) ? 0 : -1;
}

static int adjoint_gemm(rev_blas *rb) {
  ad_rev_fn *r = rb->r;
  LLVMBuilderRef b = rb->b;
  LLVMValueRef off, dC = shadow(rb, R_C, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef ta = rb->val[R_TRANS], tb = rb->val[R_TRANSB];
  LLVMValueRef m = rb->val[R_M], n = rb->val[R_N], k = rb->val[R_K];
  LLVMValueRef one = real_const(rb, 1.0);
  LLVMValueRef ops[R_COUNT];
  if (gemm_factor_adjoint(rb, R_A, dC) != 0 ||
      gemm_factor_adjoint(rb, R_B, dC) != 0)
    return -1;
  /* per stored column of C (row, row-major): dalpha from op(A) op(B),
   * dbeta from the old C, then the column scaled by beta */
  LLVMValueRef inner, outer;
  matrix_shape(rb, R_C, &inner, &outer);
  LLVMValueRef prod = NULL, ldp = NULL;
  int da = active(rb, R_ALPHA), db = active(rb, R_BETA);
  if (da) {
    LLVMValueRef ld = sel(rb, LLVMBuildICmp(b, LLVMIntSGT, inner, konst(rb, 1), ""),
                          inner, konst(rb, 1));
    prod = calloc_reals(rb, LLVMBuildMul(b, ld, outer, ""));
    ldp = ld;
    memset(ops, 0, sizeof ops);
    ops[R_TRANS] = opt_op(rb, ta), ops[R_TRANSB] = opt_op(rb, tb);
    ops[R_M] = int_op(rb, m), ops[R_N] = int_op(rb, n);
    ops[R_K] = int_op(rb, k);
    ops[R_ALPHA] = one;
    ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
    ops[R_B] = rb->copy[R_B], ops[R_LDB] = copy_inc(rb, R_LDB);
    ops[R_BETA] = real_const(rb, 0.0);
    ops[R_C] = prod, ops[R_LDC] = int_op(rb, ld);
    if (!emit(rb, RT_GEMM, ops))
      return -1;
  }
  if (da || db) {
    LLVMContextRef c = r->mc->llctx;
    LLVMValueRef acc_a = da ? ad_entry_alloca(r->rev, rb->real, "blas.dalpha") : NULL;
    LLVMValueRef acc_b = db ? ad_entry_alloca(r->rev, rb->real, "blas.dbeta") : NULL;
    if (acc_a)
      LLVMBuildStore(b, LLVMConstNull(rb->real), acc_a);
    if (acc_b)
      LLVMBuildStore(b, LLVMConstNull(rb->real), acc_b);
    LLVMValueRef ldc_v = rb->val[R_LDC];
    LLVMValueRef inner_op = int_op(rb, inner), unit = int_op(rb, konst(rb, 1));
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(c, r->rev, "blas.col");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c, r->rev, "blas.col");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, r->rev, "blas.col.done");
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef j = LLVMBuildPhi(b, rb->i64, "blas.j");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, j, outer, ""), body, done);
    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef col = element(rb, dC, LLVMBuildMul(b, j, ldc_v, ""));
    if (da) {
      LLVMValueRef d = dot(rb, inner_op, element(rb, prod, LLVMBuildMul(b, j, ldp, "")),
                           unit, col, unit);
      if (!d)
        return -1;
      LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, rb->real, acc_a, ""), d, ""),
                     acc_a);
    }
    if (db) {
      LLVMValueRef d = dot(rb, inner_op,
                           element(rb, rb->copy[R_C], LLVMBuildMul(b, j, rb->cld[R_LDC], "")),
                           unit, col, unit);
      if (!d)
        return -1;
      LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, rb->real, acc_b, ""), d, ""),
                     acc_b);
    }
    LLVMValueRef next = LLVMBuildAdd(b, j, konst(rb, 1), "");
    LLVMBasicBlockRef body_end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, head);
    LLVMValueRef in_v[2] = {konst(rb, 0), next};
    LLVMBasicBlockRef in_b[2] = {pre, body_end};
    LLVMAddIncoming(j, in_v, in_b, 2);
    LLVMPositionBuilderAtEnd(b, done);
    if (da) {
      add_scalar(rb, R_ALPHA, LLVMBuildLoad2(b, rb->real, acc_a, ""));
      free_scratch(rb, prod);
    }
    if (db)
      add_scalar(rb, R_BETA, LLVMBuildLoad2(b, rb->real, acc_b, ""));
  }
  if (scale_output(rb, m, n, dC, ta) != 0)
    return -1;
  term_end(rb, done);
  return 0;
}

/* The diagonal of an n x n matrix m (either layout; leading dimension
 * ld, i64) scaled by k in place. */
static int scale_diagonal(rev_blas *rb, LLVMValueRef n, LLVMValueRef m,
                          LLVMValueRef ld, double k) {
  return scal(rb, int_op(rb, n), real_const(rb, k), m,
              int_op(rb, LLVMBuildAdd(rb->b, ld, konst(rb, 1), "")));
}

/*
 * symv  y := a A x + b y, A symmetric from its triangle uplo
 *   da += (cA cx).dy; dA's triangle += a (cx dy' + dy cx') off the
 *   diagonal (syr2 between a copy of dA's diagonal out and back: Enzyme's
 *   calls and numbers, though the diagonal's derivative is a cx_i dy_i,
 *   which Enzyme leaves out); dx += a cA dy; db += cy.dy; dy := b dy
 */
static int adjoint_symv(rev_blas *rb) {
  LLVMValueRef off, dy = shadow(rb, R_Y, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef n = rb->val[R_N];
  LLVMValueRef uplo = opt_op(rb, rb->val[R_UPLO]);
  LLVMValueRef ops[R_COUNT] = {0};
  if (active(rb, R_ALPHA)) {
    ops[R_UPLO] = uplo, ops[R_N] = int_op(rb, n);
    if (alpha_adjoint_of_matvec(rb, RT_SYMV, ops, n, dy) != 0)
      return -1;
  }
  if (active(rb, R_A)) {
    /* Enzyme's calls: dA's diagonal saved (copy), syr2, the diagonal put
     * back, so that it gets no term (Enzyme's numbers; the derivative's
     * is alpha x_i dy_i there, half of syr2's) */
    LLVMValueRef same, dA = shadow(rb, R_A, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    LLVMValueRef one = konst(rb, 1);
    LLVMValueRef tmp = calloc_reals(rb, n), tmpp = tmp;
    if (LLVMGetTypeKind(LLVMTypeOf(dA)) == LLVMIntegerTypeKind)
      tmpp = LLVMBuildPtrToInt(rb->b, tmp, LLVMTypeOf(dA), "");
    LLVMValueRef diag = int_op(rb, LLVMBuildAdd(rb->b, rb->val[R_LDA], one, ""));
    LLVMValueRef cp[R_COUNT] = {0};
    cp[R_N] = int_op(rb, n);
    cp[R_X] = dA, cp[R_INCX] = diag, cp[R_Y] = tmpp, cp[R_INCY] = int_op(rb, one);
    if (!emit(rb, RT_COPY, cp))
      return -1;
    memset(ops, 0, sizeof ops);
    ops[R_UPLO] = uplo, ops[R_N] = int_op(rb, n);
    ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
    ops[R_X] = rb->copy[R_X], ops[R_INCX] = copy_inc(rb, R_INCX);
    ops[R_Y] = dy, ops[R_INCY] = inc_op(rb, R_INCY);
    ops[R_A] = dA, ops[R_LDA] = inc_op(rb, R_LDA);
    if (!emit(rb, RT_SYR2, ops))
      return -1;
    cp[R_X] = tmpp, cp[R_INCX] = int_op(rb, one), cp[R_Y] = dA, cp[R_INCY] = diag;
    if (!emit(rb, RT_COPY, cp))
      return -1;
    free_scratch(rb, tmp);
    term_end(rb, after);
  }
  if (active(rb, R_X)) {
    LLVMValueRef same, dx = shadow(rb, R_X, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    memset(ops, 0, sizeof ops);
    ops[R_UPLO] = uplo, ops[R_N] = int_op(rb, n);
    ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
    ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
    ops[R_X] = dy, ops[R_INCX] = inc_op(rb, R_INCY);
    ops[R_BETA] = real_const(rb, 1.0);
    ops[R_Y] = dx, ops[R_INCY] = inc_op(rb, R_INCX);
    if (!emit(rb, RT_SYMV, ops))
      return -1;
    term_end(rb, after);
  }
  if (active(rb, R_BETA)) {
    LLVMValueRef bt = dot(rb, int_op(rb, n), rb->copy[R_Y], copy_inc(rb, R_INCY),
                          dy, inc_op(rb, R_INCY));
    if (!bt)
      return -1;
    add_scalar(rb, R_BETA, bt);
  }
  if (scal(rb, int_op(rb, n), real_op(rb, rb->val[R_BETA]), dy,
           int_op(rb, abs_i64(rb, rb->val[R_INCY]))) != 0)
    return -1;
  term_end(rb, done);
  return 0;
}

/* CBLAS enum e, or character ch, in the encoding of option `like` (one
 * of the call's); cuBLAS's enum cu. */
static LLVMValueRef code_like(rev_blas *rb, LLVMValueRef like, LLVMValueRef e,
                              LLVMValueRef ch, LLVMValueRef cu) {
  if (cublas(rb))
    return cu;
  return sel(rb, option_is(rb, like, &codes_cblas_enum), e, ch);
}
/* CblasLeft / CblasRight (141 / 142), or 'L' / 'R' (cuBLAS: 0 / 1). */
static LLVMValueRef side_like(rev_blas *rb, LLVMValueRef like, LLVMValueRef right) {
  return code_like(rb, like, sel(rb, right, konst(rb, 142), konst(rb, 141)),
                   sel(rb, right, konst(rb, 'R'), konst(rb, 'L')),
                   sel(rb, right, konst(rb, 1), konst(rb, 0)));
}

/*
 * syrk  C := a op(A) op(A)' + b C on C's triangle uplo (op(A) n x k)
 *   with D the triangle of dC and S = D + D' (its diagonal twice):
 *   dA += a S cA (op = N) or a cA S (op = T): symm with dC's diagonal
 *   doubled before and halved after (exact); dC := b dC on the triangle
 *   (syrk itself with alpha 0, k 0: BLAS scales the triangle); dalpha +=
 *   sum(op(cA) op(cA)' * dC), dbeta += sum(cC * dC) over the triangle.
 */
static int adjoint_syrk(rev_blas *rb) {
  LLVMValueRef off, dC = shadow(rb, R_C, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef n = rb->val[R_N], k = rb->val[R_K];
  LLVMValueRef nt = is_notrans(rb, rb->val[R_TRANS]);
  LLVMValueRef ops[R_COUNT] = {0};
  if (active(rb, R_A) && !cublas(rb)) {
    /* Enzyme's calls: dA += a Sym(D) cA (symm, the diagonal once), then
     * a dC(i,i) cA's row i (op T: column) into dA's, an axpy each */
    LLVMBuilderRef b = rb->b;
    LLVMValueRef same, dA = shadow(rb, R_A, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    LLVMValueRef right = LLVMBuildNot(b, nt, "");
    ops[R_SIDE] = opt_op(rb, code_like(rb, rb->val[R_UPLO],
                                       sel(rb, right, konst(rb, 142), konst(rb, 141)),
                                       sel(rb, right, konst(rb, 'r'), konst(rb, 'l')),
                                       NULL));
    ops[R_UPLO] = opt_op(rb, rb->val[R_UPLO]);
    ops[R_M] = int_op(rb, sel(rb, nt, n, k));
    ops[R_N] = int_op(rb, sel(rb, nt, k, n));
    ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
    ops[R_A] = dC, ops[R_LDA] = inc_op(rb, R_LDC);
    ops[R_B] = rb->copy[R_A], ops[R_LDB] = copy_inc(rb, R_LDA);
    ops[R_BETA] = real_const(rb, 1.0);
    ops[R_C] = dA, ops[R_LDC] = inc_op(rb, R_LDA);
    if (!emit(rb, RT_SYMM, ops))
      return -1;
    LLVMValueRef lda = rb->val[R_LDA], clda = rb->cld[R_LDA], one = konst(rb, 1);
    blas_loop l;
    begin_loop(rb, n, &l);
    LLVMValueRef i = l.j;
    LLVMValueRef cii = LLVMBuildLoad2(
        b, rb->real,
        element(rb, dC, LLVMBuildMul(b, i, LLVMBuildAdd(b, rb->val[R_LDC], one, ""), "")),
        "blas.dcii");
    LLVMValueRef coef = LLVMBuildFMul(b, rb->val[R_ALPHA], cii, "");
    /* op N: row i, op T: column i (strided where that is across the
     * stored lines) */
    LLVMValueRef strided = LLVMBuildICmp(b, LLVMIntEQ, nt, col_major(rb), "");
    LLVMValueRef cx = element(rb, rb->copy[R_A], sel(rb, strided, i, LLVMBuildMul(b, i, clda, "")));
    LLVMValueRef dy = element(rb, dA, sel(rb, strided, i, LLVMBuildMul(b, i, lda, "")));
    if (LLVMGetTypeKind(LLVMTypeOf(dA)) == LLVMIntegerTypeKind) {
      cx = LLVMBuildPtrToInt(b, cx, LLVMTypeOf(dA), "");
      dy = LLVMBuildPtrToInt(b, dy, LLVMTypeOf(dA), "");
    }
    if (axpy(rb, int_op(rb, k), real_op(rb, coef), cx, int_op(rb, sel(rb, strided, clda, one)),
             dy, int_op(rb, sel(rb, strided, lda, one))) != 0)
      return -1;
    end_loop(rb, &l);
    term_end(rb, after);
  } else if (active(rb, R_A)) {
    /* cuBLAS: dC's diagonal on the device, doubled for symm and halved
     * back (BLAS calls only) */
    LLVMValueRef same, dA = shadow(rb, R_A, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    if (scale_diagonal(rb, n, dC, rb->val[R_LDC], 2.0) != 0)
      return -1;
    ops[R_SIDE] = opt_op(rb, side_like(rb, rb->val[R_UPLO],
                                       LLVMBuildNot(rb->b, nt, "")));
    ops[R_UPLO] = opt_op(rb, rb->val[R_UPLO]);
    ops[R_M] = int_op(rb, sel(rb, nt, n, k));
    ops[R_N] = int_op(rb, sel(rb, nt, k, n));
    ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
    ops[R_A] = dC, ops[R_LDA] = inc_op(rb, R_LDC);
    ops[R_B] = rb->copy[R_A], ops[R_LDB] = copy_inc(rb, R_LDA);
    ops[R_BETA] = real_const(rb, 1.0);
    ops[R_C] = dA, ops[R_LDC] = inc_op(rb, R_LDA);
    if (!emit(rb, RT_SYMM, ops) || scale_diagonal(rb, n, dC, rb->val[R_LDC], 0.5) != 0)
      return -1;
    term_end(rb, after);
  }
  LLVMValueRef ldc = rb->val[R_LDC];
  if (active(rb, R_ALPHA)) {
    /* P := op(cA) op(cA)' on the triangle (the other stays 0) */
    LLVMValueRef ldp = sel(rb, LLVMBuildICmp(rb->b, LLVMIntSGT, n, konst(rb, 1), ""),
                           n, konst(rb, 1));
    LLVMValueRef P = calloc_reals(rb, LLVMBuildMul(rb->b, ldp, n, ""));
    memset(ops, 0, sizeof ops);
    ops[R_UPLO] = opt_op(rb, rb->val[R_UPLO]);
    ops[R_TRANS] = opt_op(rb, rb->val[R_TRANS]);
    ops[R_N] = int_op(rb, n), ops[R_K] = int_op(rb, k);
    ops[R_ALPHA] = real_const(rb, 1.0);
    ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
    ops[R_BETA] = real_const(rb, 0.0);
    ops[R_C] = P, ops[R_LDC] = int_op(rb, ldp);
    if (!emit(rb, RT_SYRK, ops))
      return -1;
    LLVMValueRef a = matrix_dot(rb, P, ldp, dC, ldc, n, n, lower_in_memory(rb));
    if (!a)
      return -1;
    add_scalar(rb, R_ALPHA, a);
    free_scratch(rb, P);
  }
  if (active(rb, R_BETA)) {
    LLVMValueRef bt = matrix_dot(rb, rb->copy[R_C], rb->cld[R_LDC], dC, ldc, n, n,
                                 lower_in_memory(rb));
    if (!bt)
      return -1;
    add_scalar(rb, R_BETA, bt);
  }
  memset(ops, 0, sizeof ops);
  if (has_lascl(rb)) {
    /* the triangle by the program's lascl, as Enzyme scales it */
    ops[R_UPLO] = opt_op(rb, rb->val[R_UPLO]);
    ops[R_KL] = ops[R_KU] = int_op(rb, konst(rb, 0));
    ops[R_CFROM] = real_const(rb, 1.0);
    ops[R_CTO] = real_op(rb, rb->val[R_BETA]);
    ops[R_M] = ops[R_N] = int_op(rb, n);
    ops[R_A] = dC, ops[R_LDA] = inc_op(rb, R_LDC);
    ops[R_INFO] = LLVMConstNull(rb->intty);
    if (!emit(rb, RT_LASCL, ops))
      return -1;
    term_end(rb, done);
    return 0;
  }
  ops[R_UPLO] = opt_op(rb, rb->val[R_UPLO]);
  ops[R_TRANS] = opt_op(rb, rb->val[R_TRANS]);
  ops[R_N] = int_op(rb, n), ops[R_K] = int_op(rb, konst(rb, 0));
  ops[R_ALPHA] = real_const(rb, 0.0);
  ops[R_A] = dC, ops[R_LDA] = inc_op(rb, R_LDC);
  ops[R_BETA] = real_op(rb, rb->val[R_BETA]);
  ops[R_C] = dC, ops[R_LDC] = inc_op(rb, R_LDC);
  if (!emit(rb, RT_SYRK, ops))
    return -1;
  term_end(rb, done);
  return 0;
}

/* Where element i of a vector of n with increment inc is (BLAS: a
 * negative increment walks it from the end). */
static LLVMValueRef vector_at(rev_blas *rb, LLVMValueRef base, LLVMValueRef i,
                              LLVMValueRef n, LLVMValueRef inc) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef back = LLVMBuildSub(b, LLVMBuildSub(b, n, konst(rb, 1), ""), i, "");
  LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, inc, konst(rb, 0), "");
  LLVMValueRef idx = sel(rb, neg, LLVMBuildMul(b, back, LLVMBuildNeg(b, inc, ""), ""),
                         LLVMBuildMul(b, i, inc, ""));
  return element(rb, base, idx);
}
/* The base of elements [s, s + len) of that vector, to pass with inc. */
static LLVMValueRef subvector(rev_blas *rb, LLVMValueRef base, LLVMValueRef s,
                              LLVMValueRef len, LLVMValueRef n, LLVMValueRef inc) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef last = LLVMBuildSub(b, LLVMBuildAdd(b, s, len, ""), konst(rb, 1), "");
  LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, inc, konst(rb, 0), "");
  return vector_at(rb, base, sel(rb, neg, last, s), n, inc);
}

/* The triangle uplo of a square matrix of this call as stored in memory
 * (column-major terms), and whether its diagonal is unit (i64 1 or 0). */
static LLVMValueRef lower_in_memory(rev_blas *rb) {
  return LLVMBuildXor(rb->b, option_is(rb, rb->val[R_UPLO], &codes_lower),
                      LLVMBuildNot(rb->b, col_major(rb), ""), "");
}
static LLVMValueRef unit_diagonal(rev_blas *rb) {
  return LLVMBuildZExt(rb->b, option_is(rb, rb->val[R_DIAG], &codes_unit), rb->i64, "");
}

/* Column j's stored rows [*s, *s + *len) of a count x count triangle
 * (column-major terms; unit, 1 or 0, leaves the diagonal out). */
static void triangle_rows(rev_blas *rb, LLVMValueRef j, LLVMValueRef count,
                          LLVMValueRef lower, LLVMValueRef unit, LLVMValueRef *s,
                          LLVMValueRef *len) {
  LLVMBuilderRef b = rb->b;
  *s = sel(rb, lower, LLVMBuildAdd(b, j, unit, ""), konst(rb, 0));
  *len = sel(rb, lower, LLVMBuildSub(b, LLVMBuildSub(b, count, j, ""), unit, ""),
             LLVMBuildSub(b, LLVMBuildAdd(b, j, konst(rb, 1), ""), unit, ""));
}

/* The sum of X * Y over inner x outer stored elements (leading
 * dimensions ldx, ldy; lower, not NULL: only the inner x inner triangle
 * add_triangle's rows name), a dot per stored column. */
static LLVMValueRef matrix_dot(rev_blas *rb, LLVMValueRef X, LLVMValueRef ldx,
                               LLVMValueRef Y, LLVMValueRef ldy,
                               LLVMValueRef inner, LLVMValueRef outer,
                               LLVMValueRef lower) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef acc = ad_entry_alloca(rb->r->rev, rb->real, "blas.sum");
  LLVMBuildStore(b, LLVMConstNull(rb->real), acc);
  blas_loop l;
  begin_loop(rb, outer, &l);
  LLVMValueRef j = l.j, s = konst(rb, 0), len = inner;
  if (lower)
    triangle_rows(rb, j, inner, lower, konst(rb, 0), &s, &len);
  LLVMValueRef one = int_op(rb, konst(rb, 1));
  LLVMValueRef d = dot(rb, int_op(rb, len),
                       element(rb, X, LLVMBuildAdd(b, s, LLVMBuildMul(b, j, ldx, ""), "")), one,
                       element(rb, Y, LLVMBuildAdd(b, s, LLVMBuildMul(b, j, ldy, ""), "")), one);
  if (!d)
    return NULL;
  LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, rb->real, acc, ""), d, ""), acc);
  end_loop(rb, &l);
  return LLVMBuildLoad2(b, rb->real, acc, "");
}

/*
 * trmv  x := op(A) x, A triangular (uplo; unit diagonal: not read)
 *   in column-major terms (a row-major A is the column-major A' with the
 *   other uplo and transpose), column j of dA over its stored rows
 *   [s, s + len): op = N  dA(s.., j) += cx_j dx(s..)   (axpy)
 *                 op = T  dA(s.., j) += dx_j cx(s..)
 *   then dx := op(cA)' dx (trmv, in place)
 */
static int adjoint_trmv(rev_blas *rb) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef off, dx = shadow(rb, R_X, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef n = rb->val[R_N], inc = rb->val[R_INCX];
  if (active(rb, R_A)) {
    LLVMValueRef same, dA = shadow(rb, R_A, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    LLVMValueRef rm = LLVMBuildNot(b, col_major(rb), "");
    LLVMValueRef lower = lower_in_memory(rb), unit = unit_diagonal(rb);
    LLVMValueRef nt = LLVMBuildXor(b, is_notrans(rb, rb->val[R_TRANS]), rm, "");
    LLVMValueRef cx = rb->copy[R_X], dxv = dx;
    if (LLVMTypeOf(cx) != LLVMTypeOf(dxv))
      cx = LLVMBuildPtrToInt(b, cx, LLVMTypeOf(dxv), "");
    LLVMValueRef cinc = rb->cld[R_INCX];
    LLVMValueRef coef_from = sel(rb, nt, cx, dxv), run = sel(rb, nt, dxv, cx);
    LLVMValueRef coef_inc = sel(rb, nt, cinc, inc), run_inc = sel(rb, nt, inc, cinc);
    /* Enzyme's loop: every column of an upper triangle (the first empty
     * where unit), a lower one's but the last where unit */
    blas_loop l;
    begin_loop(rb, sel(rb, lower, LLVMBuildSub(b, n, unit, ""), n), &l);
    LLVMValueRef j = l.j, s, len;
    triangle_rows(rb, j, n, lower, unit, &s, &len);
    LLVMValueRef coef = LLVMBuildLoad2(b, rb->real, vector_at(rb, coef_from, j, n, coef_inc), "");
    LLVMValueRef col = element(rb, dA, LLVMBuildAdd(b, s, LLVMBuildMul(b, j, rb->val[R_LDA], ""), ""));
    if (axpy(rb, int_op(rb, len), real_op(rb, coef), subvector(rb, run, s, len, n, run_inc),
             int_op(rb, run_inc), col, int_op(rb, konst(rb, 1))) != 0)
      return -1;
    end_loop(rb, &l);
    term_end(rb, after);
  }
  LLVMValueRef ops[R_COUNT] = {0};
  ops[R_UPLO] = opt_op(rb, rb->val[R_UPLO]);
  ops[R_TRANS] = opt_op(rb, flip(rb, rb->val[R_TRANS]));
  ops[R_DIAG] = opt_op(rb, rb->val[R_DIAG]);
  ops[R_N] = int_op(rb, n);
  ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
  ops[R_X] = dx, ops[R_INCX] = inc_op(rb, R_INCX);
  if (!emit(rb, RT_TRMV, ops))
    return -1;
  term_end(rb, done);
  return 0;
}


/* Adds k T's stored triangle (transposed: T' 's) to dA's, both count x
 * count (leading dimensions ldt, ldd), column by column in memory (a
 * row-major matrix is the column-major transpose: `lower` says which
 * triangle that is in memory; `unit`, 1 or 0, leaves the diagonal out). */
static int add_triangle(rev_blas *rb, LLVMValueRef T, LLVMValueRef ldt,
                        int transposed, LLVMValueRef dA, LLVMValueRef ldd,
                        LLVMValueRef count, LLVMValueRef lower,
                        LLVMValueRef unit, double k) {
  LLVMBuilderRef b = rb->b;
  blas_loop l;
  begin_loop(rb, count, &l);
  LLVMValueRef j = l.j, s, len;
  triangle_rows(rb, j, count, lower, unit, &s, &len);
  LLVMValueRef one = int_op(rb, konst(rb, 1));
  /* T's column j, or (transposed) its row j */
  LLVMValueRef from = transposed
                          ? element(rb, T, LLVMBuildAdd(b, j, LLVMBuildMul(b, s, ldt, ""), ""))
                          : element(rb, T, LLVMBuildAdd(b, s, LLVMBuildMul(b, j, ldt, ""), ""));
  if (axpy(rb, int_op(rb, len), real_const(rb, k), from,
           transposed ? int_op(rb, ldt) : one,
           element(rb, dA, LLVMBuildAdd(b, s, LLVMBuildMul(b, j, ldd, ""), "")),
           one) != 0)
    return -1;
  end_loop(rb, &l);
  return 0;
}
/* D's stored triangle (as add_triangle's) scaled by k, column by column. */
static int scale_triangle(rev_blas *rb, LLVMValueRef D, LLVMValueRef ldd,
                          LLVMValueRef count, LLVMValueRef lower,
                          LLVMValueRef unit, double k) {
  LLVMBuilderRef b = rb->b;
  blas_loop l;
  begin_loop(rb, count, &l);
  LLVMValueRef j = l.j, s, len;
  triangle_rows(rb, j, count, lower, unit, &s, &len);
  if (scal(rb, int_op(rb, len), real_const(rb, k),
           element(rb, D, LLVMBuildAdd(b, s, LLVMBuildMul(b, j, ldd, ""), "")),
           int_op(rb, konst(rb, 1))) != 0)
    return -1;
  end_loop(rb, &l);
  return 0;
}

/* a or b (arrays), the one's type made the other's */
static LLVMValueRef sel_array(rev_blas *rb, LLVMValueRef c, LLVMValueRef a,
                              LLVMValueRef b) {
  if (LLVMTypeOf(a) != LLVMTypeOf(b))
    a = LLVMGetTypeKind(LLVMTypeOf(b)) == LLVMPointerTypeKind
            ? as_pointer(rb, a)
            : LLVMBuildPtrToInt(rb->b, a, LLVMTypeOf(b), "");
  return sel(rb, c, a, b);
}

/*
 * trmm's dA, column-major, Enzyme's calls: column j of dA's triangle
 * uplo, rows [s, s + len) (add_triangle's), += a gemv (cB the copy of B,
 * its leading dimension ldc):
 *   side L, op N: dB(s.., :) cB(j, :)'     side L, op T: cB(s.., :) dB(j, :)'
 *   side R, op N: cB(:, s..)' dB(:, j)     side R, op T: dB(:, s..)' cB(:, j)
 * (the gemv's transpose 'N' on the left, 'T' on the right, in the case of
 * the call's side), every column of an upper triangle (the first empty
 * where the diagonal is unit), a lower one's but the last where unit.
 */
static int trmm_da_columns(rev_blas *rb, LLVMValueRef dA, LLVMValueRef dB,
                           LLVMValueRef left, LLVMValueRef nt) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef m = rb->val[R_M], n = rb->val[R_N];
  LLVMValueRef ka = sel(rb, left, m, n);
  LLVMValueRef lower = lower_in_memory(rb), unit = unit_diagonal(rb);
  LLVMValueRef ldb = rb->val[R_LDB], ldc = rb->cld[R_LDB], one = konst(rb, 1);
  LLVMValueRef cB = rb->copy[R_B];
  if (LLVMTypeOf(cB) != LLVMTypeOf(dB))
    cB = LLVMBuildPtrToInt(b, cB, LLVMTypeOf(dB), "");
  /* the gemv's matrix: dB (ld ldb) where left == nt, else cB; x the other */
  LLVMValueRef db_mat = LLVMBuildICmp(b, LLVMIntEQ, left, nt, "");
  LLVMValueRef mat = sel(rb, db_mat, dB, cB), ldm = sel(rb, db_mat, ldb, ldc);
  LLVMValueRef xv = sel(rb, db_mat, cB, dB), ldx = sel(rb, db_mat, ldc, ldb);
  LLVMValueRef gemv_t = opt_op(rb, trans_like(rb, rb->val[R_SIDE],
                                              LLVMBuildNot(b, left, "")));
  blas_loop l;
  begin_loop(rb, sel(rb, lower, LLVMBuildSub(b, ka, unit, ""), ka), &l);
  LLVMValueRef j = l.j, s, len;
  triangle_rows(rb, j, ka, lower, unit, &s, &len);
  LLVMValueRef ops[R_COUNT] = {0};
  ops[R_TRANS] = gemv_t;
  ops[R_M] = int_op(rb, sel(rb, left, len, m));
  ops[R_N] = int_op(rb, sel(rb, left, n, len));
  ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
  /* left: rows s.. of the matrix, x its row j (stride its ld); right:
   * columns s.., x column j (stride 1) */
  ops[R_A] = element(rb, mat, sel(rb, left, s, LLVMBuildMul(b, s, ldm, "")));
  ops[R_LDA] = int_op(rb, ldm);
  ops[R_X] = element(rb, xv, sel(rb, left, j, LLVMBuildMul(b, j, ldx, "")));
  ops[R_INCX] = int_op(rb, sel(rb, left, ldx, one));
  ops[R_BETA] = real_const(rb, 1.0);
  ops[R_Y] = element(rb, dA, LLVMBuildAdd(b, s, LLVMBuildMul(b, j, rb->val[R_LDA], ""), ""));
  ops[R_INCY] = int_op(rb, one);
  if (LLVMTypeOf(ops[R_A]) != LLVMTypeOf(dB)) {
    ops[R_A] = LLVMBuildPtrToInt(b, ops[R_A], LLVMTypeOf(dB), "");
    ops[R_X] = LLVMBuildPtrToInt(b, ops[R_X], LLVMTypeOf(dB), "");
    ops[R_Y] = LLVMBuildPtrToInt(b, ops[R_Y], LLVMTypeOf(dB), "");
  }
  if (!emit(rb, RT_GEMV, ops))
    return -1;
  end_loop(rb, &l);
  return 0;
}

/*
 * trmm  B := a op(A) B (side L, A m x m) or a B op(A) (side R, n x n),
 *   A triangular:  T := a dB cB' (L, op N), a cB dB' (L, T),
 *   a cB' dB (R, N), a dB' cB (R, T) by gemm into a scratch square, its
 *   triangle added to dA's (add_triangle); then dB := a op(cA)' dB (or
 *   dB op(cA)'), trmm in place; dalpha += sum(op(cA) cB * dB) (trmm on
 *   the copy of B) before.
 */
static int adjoint_trmm(rev_blas *rb) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef off, dB = shadow(rb, R_B, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef m = rb->val[R_M], n = rb->val[R_N], tr = rb->val[R_TRANS];
  LLVMValueRef left = option_is(rb, rb->val[R_SIDE], &codes_left);
  LLVMValueRef nt = is_notrans(rb, tr);
  LLVMValueRef ops[R_COUNT] = {0};
  if (active(rb, R_A)) {
    LLVMValueRef same, dA = shadow(rb, R_A, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    /* column-major: a gemv per column of dA's triangle, Enzyme's calls;
     * row-major (where Enzyme's are wrong: its test leaves the layout
     * out) a gemm into a scratch square, its triangle added */
    LLVMContextRef c = rb->r->mc->llctx;
    LLVMBasicBlockRef by_cols = LLVMAppendBasicBlockInContext(c, rb->r->rev, "blas.trmm.cols");
    LLVMBasicBlockRef by_rows = LLVMAppendBasicBlockInContext(c, rb->r->rev, "blas.trmm.rows");
    LLVMBasicBlockRef joined = LLVMAppendBasicBlockInContext(c, rb->r->rev, "blas.trmm.da");
    LLVMBuildCondBr(b, col_major(rb), by_cols, by_rows);
    LLVMPositionBuilderAtEnd(b, by_cols);
    if (trmm_da_columns(rb, dA, dB, left, nt) != 0)
      return -1;
    LLVMBuildBr(b, joined);
    LLVMPositionBuilderAtEnd(b, by_rows);
    LLVMValueRef ka = sel(rb, left, m, n), inner = sel(rb, left, n, m);
    LLVMValueRef ldt = sel(rb, LLVMBuildICmp(b, LLVMIntSGT, ka, konst(rb, 1), ""),
                           ka, konst(rb, 1));
    LLVMValueRef T = calloc_reals(rb, LLVMBuildMul(b, ldt, ldt, ""));
    LLVMValueRef db_first = LLVMBuildICmp(b, LLVMIntEQ, left, nt, "");
    ops[R_TRANS] = opt_op(rb, trans_like(rb, tr, LLVMBuildNot(b, left, "")));
    ops[R_TRANSB] = opt_op(rb, trans_like(rb, tr, left));
    ops[R_M] = ops[R_N] = int_op(rb, ka);
    ops[R_K] = int_op(rb, inner);
    ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
    ops[R_A] = sel_array(rb, db_first, dB, rb->copy[R_B]);
    ops[R_B] = sel_array(rb, db_first, rb->copy[R_B], dB);
    ops[R_LDA] = int_op(rb, sel(rb, db_first, rb->val[R_LDB], rb->cld[R_LDB]));
    ops[R_LDB] = int_op(rb, sel(rb, db_first, rb->cld[R_LDB], rb->val[R_LDB]));
    ops[R_BETA] = real_const(rb, 0.0);
    ops[R_C] = T, ops[R_LDC] = int_op(rb, ldt);
    if (!emit(rb, RT_GEMM, ops) ||
        add_triangle(rb, T, ldt, 0, dA, rb->val[R_LDA], ka, lower_in_memory(rb),
                     unit_diagonal(rb),
                     1.0) != 0)
      return -1;
    free_scratch(rb, T);
    LLVMBuildBr(b, joined);
    LLVMPositionBuilderAtEnd(b, joined);
    term_end(rb, after);
  }
  if (active(rb, R_ALPHA)) {
    /* dalpha += sum(op(cA) cB * dB): the cached B (a copy: the call
     * writes B) multiplied in place */
    LLVMValueRef inner, outer;
    matrix_shape(rb, R_B, &inner, &outer);
    memset(ops, 0, sizeof ops);
    ops[R_SIDE] = opt_op(rb, rb->val[R_SIDE]);
    ops[R_UPLO] = opt_op(rb, rb->val[R_UPLO]);
    ops[R_TRANS] = opt_op(rb, tr);
    ops[R_DIAG] = opt_op(rb, rb->val[R_DIAG]);
    ops[R_M] = int_op(rb, m), ops[R_N] = int_op(rb, n);
    ops[R_ALPHA] = real_const(rb, 1.0);
    ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
    ops[R_B] = rb->copy[R_B], ops[R_LDB] = copy_inc(rb, R_LDB);
    if (!emit(rb, RT_TRMM, ops))
      return -1;
    LLVMValueRef a = matrix_dot(rb, rb->copy[R_B], rb->cld[R_LDB], dB,
                                rb->val[R_LDB], inner, outer, NULL);
    if (!a)
      return -1;
    add_scalar(rb, R_ALPHA, a);
  }
  memset(ops, 0, sizeof ops);
  ops[R_SIDE] = opt_op(rb, rb->val[R_SIDE]);
  ops[R_UPLO] = opt_op(rb, rb->val[R_UPLO]);
  ops[R_TRANS] = opt_op(rb, flip(rb, tr));
  ops[R_DIAG] = opt_op(rb, rb->val[R_DIAG]);
  ops[R_M] = int_op(rb, m), ops[R_N] = int_op(rb, n);
  ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
  ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
  ops[R_B] = dB, ops[R_LDB] = inc_op(rb, R_LDB);
  if (!emit(rb, RT_TRMM, ops))
    return -1;
  term_end(rb, done);
  return 0;
}

/*
 * symm  C := a A B + b C (side L, A m x m) or a B A + b C (side R),
 *   A symmetric from its triangle uplo:
 *   dB += a cA dC (or dC cA), symm; dA's triangle += a (dC cB' + cB dC')
 *   (R: a (cB' dC + dC' cB)) with the diagonal's share once, syr2k with
 *   dA's diagonal doubled before and halved after (exact); dalpha +=
 *   sum(cA cB * dC), dbeta += sum(cC * dC); dC := b dC.
 */
static int adjoint_symm(rev_blas *rb) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef off, dC = shadow(rb, R_C, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef m = rb->val[R_M], n = rb->val[R_N], uplo = rb->val[R_UPLO];
  LLVMValueRef left = option_is(rb, rb->val[R_SIDE], &codes_left);
  LLVMValueRef ops[R_COUNT] = {0};
  if (active(rb, R_A)) {
    /* Enzyme's calls: the diagonal saved, syr2k, and the diagonal given
     * half of what syr2k added (old - new, by -1 and 0.5 axpys) */
    LLVMValueRef same, dA = shadow(rb, R_A, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    LLVMValueRef ka = sel(rb, left, m, n), one = konst(rb, 1);
    LLVMValueRef tmp = calloc_reals(rb, ka), tmpp = tmp;
    if (LLVMGetTypeKind(LLVMTypeOf(dA)) == LLVMIntegerTypeKind)
      tmpp = LLVMBuildPtrToInt(b, tmp, LLVMTypeOf(dA), "");
    LLVMValueRef diag = int_op(rb, LLVMBuildAdd(b, rb->val[R_LDA], one, ""));
    LLVMValueRef cp[R_COUNT] = {0};
    cp[R_N] = int_op(rb, ka);
    cp[R_X] = dA, cp[R_INCX] = diag, cp[R_Y] = tmpp, cp[R_INCY] = int_op(rb, one);
    if (!emit(rb, RT_COPY, cp))
      return -1;
    ops[R_UPLO] = opt_op(rb, uplo);
    ops[R_TRANS] = opt_op(rb, trans_like(rb, rb->val[R_SIDE], LLVMBuildNot(b, left, "")));
    ops[R_N] = int_op(rb, ka), ops[R_K] = int_op(rb, sel(rb, left, n, m));
    ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
    ops[R_A] = rb->copy[R_B], ops[R_LDA] = copy_inc(rb, R_LDB);
    ops[R_B] = dC, ops[R_LDB] = inc_op(rb, R_LDC);
    ops[R_BETA] = real_const(rb, 1.0);
    ops[R_C] = dA, ops[R_LDC] = inc_op(rb, R_LDA);
    if (!emit(rb, RT_SYR2K, ops) ||
        axpy(rb, int_op(rb, ka), real_const(rb, -1.0), dA, diag, tmpp,
             int_op(rb, one)) != 0 ||
        axpy(rb, int_op(rb, ka), real_const(rb, 0.5), tmpp, int_op(rb, one), dA,
             diag) != 0)
      return -1;
    free_scratch(rb, tmp);
    term_end(rb, after);
  }
  if (active(rb, R_B)) {
    LLVMValueRef same, dB = shadow(rb, R_B, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    memset(ops, 0, sizeof ops);
    ops[R_SIDE] = opt_op(rb, rb->val[R_SIDE]), ops[R_UPLO] = opt_op(rb, uplo);
    ops[R_M] = int_op(rb, m), ops[R_N] = int_op(rb, n);
    ops[R_ALPHA] = real_op(rb, rb->val[R_ALPHA]);
    ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
    ops[R_B] = dC, ops[R_LDB] = inc_op(rb, R_LDC);
    ops[R_BETA] = real_const(rb, 1.0);
    ops[R_C] = dB, ops[R_LDC] = inc_op(rb, R_LDB);
    if (!emit(rb, RT_SYMM, ops))
      return -1;
    term_end(rb, after);
  }
  LLVMValueRef inner, outer, ldc = rb->val[R_LDC];
  matrix_shape(rb, R_C, &inner, &outer);
  if (active(rb, R_ALPHA)) {
    /* dalpha += sum(cA cB * dC) (or cB cA), the product by symm */
    LLVMValueRef ldp = sel(rb, LLVMBuildICmp(rb->b, LLVMIntSGT, inner, konst(rb, 1), ""),
                           inner, konst(rb, 1));
    LLVMValueRef P = calloc_reals(rb, LLVMBuildMul(rb->b, ldp, outer, ""));
    memset(ops, 0, sizeof ops);
    ops[R_SIDE] = opt_op(rb, rb->val[R_SIDE]), ops[R_UPLO] = opt_op(rb, uplo);
    ops[R_M] = int_op(rb, m), ops[R_N] = int_op(rb, n);
    ops[R_ALPHA] = real_const(rb, 1.0);
    ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
    ops[R_B] = rb->copy[R_B], ops[R_LDB] = copy_inc(rb, R_LDB);
    ops[R_BETA] = real_const(rb, 0.0);
    ops[R_C] = P, ops[R_LDC] = int_op(rb, ldp);
    if (!emit(rb, RT_SYMM, ops))
      return -1;
    LLVMValueRef a = matrix_dot(rb, P, ldp, dC, ldc, inner, outer, NULL);
    if (!a)
      return -1;
    add_scalar(rb, R_ALPHA, a);
    free_scratch(rb, P);
  }
  if (active(rb, R_BETA)) {
    LLVMValueRef bt = matrix_dot(rb, rb->copy[R_C], rb->cld[R_LDC], dC, ldc, inner, outer, NULL);
    if (!bt)
      return -1;
    add_scalar(rb, R_BETA, bt);
  }
  if (scale_output(rb, m, n, dC, uplo) != 0)
    return -1;
  term_end(rb, done);
  return 0;
}


/* The solve of trtrs or potrs (its own routine) with B := b (leading
 * dimension role R_LDB) and trtrs's transpose `trans`. */
static int solve(rev_blas *rb, LLVMValueRef trans, LLVMValueRef b) {
  LLVMValueRef ops[R_COUNT] = {0};
  ops[R_UPLO] = opt_op(rb, rb->val[R_UPLO]);
  if (rb->id == RT_TRTRS) {
    ops[R_TRANS] = opt_op(rb, trans);
    ops[R_DIAG] = opt_op(rb, rb->val[R_DIAG]);
  }
  ops[R_N] = int_op(rb, rb->val[R_N]), ops[R_NRHS] = int_op(rb, rb->val[R_NRHS]);
  ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
  ops[R_B] = b, ops[R_LDB] = inc_op(rb, R_LDB);
  ops[R_INFO] = in_memory(rb, rb->intty, LLVMConstNull(rb->intty));
  return emit(rb, rb->id, ops) ? 0 : -1;
}

/* T := alpha P Q' (n x n, ld max(n, 1)) for P, Q n x nrhs with B's
 * leading dimension, beta 0 or 1 onto T. */
static int outer_nn(rev_blas *rb, LLVMValueRef T, LLVMValueRef ldt, double alpha,
                    LLVMValueRef p, LLVMValueRef q, double beta) {
  LLVMValueRef ops[R_COUNT] = {0};
  LLVMValueRef like = rb->val[R_UPLO];
  ops[R_TRANS] = opt_op(rb, trans_like(rb, like, i1(rb, 0)));
  ops[R_TRANSB] = opt_op(rb, trans_like(rb, like, i1(rb, 1)));
  ops[R_M] = ops[R_N] = int_op(rb, rb->val[R_N]);
  ops[R_K] = int_op(rb, rb->val[R_NRHS]);
  ops[R_ALPHA] = real_const(rb, alpha);
  ops[R_A] = p, ops[R_B] = q;
  ops[R_LDA] = ops[R_LDB] = inc_op(rb, R_LDB);
  ops[R_BETA] = real_const(rb, beta);
  ops[R_C] = T, ops[R_LDC] = int_op(rb, ldt);
  return emit(rb, RT_GEMM, ops) ? 0 : -1;
}

/* An n x n scratch matrix (zeroed) and its leading dimension max(n, 1). */
static LLVMValueRef scratch_square(rev_blas *rb, LLVMValueRef *ld) {
  LLVMValueRef n = rb->val[R_N];
  *ld = sel(rb, LLVMBuildICmp(rb->b, LLVMIntSGT, n, konst(rb, 1), ""), n, konst(rb, 1));
  return calloc_reals(rb, LLVMBuildMul(rb->b, *ld, *ld, ""));
}

/* Element (r, c) of a matrix at base with leading dimension ld in the
 * call's layout. */
static LLVMValueRef at_rc(rev_blas *rb, LLVMValueRef base, LLVMValueRef ld,
                          LLVMValueRef r, LLVMValueRef c) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef cm = col_major(rb);
  return element(rb, base,
                 sel(rb, cm, LLVMBuildAdd(b, r, LLVMBuildMul(b, c, ld, ""), ""),
                     LLVMBuildAdd(b, LLVMBuildMul(b, r, ld, ""), c, "")));
}

/* 'T'/'N' in upper case (Enzyme's constants; CBLAS's enums where the
 * call's options are; cuBLAS's), the side uplo names as Enzyme's
 * uplo_to_side ('L' for L, 'R' for U; rside the other), and the other
 * triangle, in option uplo's encoding. */
static LLVMValueRef op_t(rev_blas *rb, LLVMValueRef like, int transposed) {
  return code_like(rb, like, konst(rb, transposed ? 112 : 111),
                   konst(rb, transposed ? 'T' : 'N'), konst(rb, transposed));
}
/* 'N' as a diagonal option (CblasNonUnit 131; cuBLAS's 0) */
static LLVMValueRef nonunit(rev_blas *rb, LLVMValueRef like) {
  return code_like(rb, like, konst(rb, 131), konst(rb, 'N'), konst(rb, 0));
}
static LLVMValueRef uplo_side(rev_blas *rb, LLVMValueRef uplo, int r) {
  LLVMValueRef lower = option_is(rb, uplo, &codes_lower);
  return side_like(rb, uplo, r ? lower : LLVMBuildNot(rb->b, lower, ""));
}
static LLVMValueRef flip_uplo(rev_blas *rb, LLVMValueRef uplo) {
  LLVMBuilderRef b = rb->b;
  return code_like(rb, uplo, LLVMBuildXor(b, uplo, konst(rb, 3), ""),
                   LLVMBuildXor(b, uplo, konst(rb, 'L' ^ 'U'), ""),
                   LLVMBuildXor(b, uplo, konst(rb, 1), ""));
}

/* Whether trtrs's adjoint is Enzyme's calls: where the program has lacpy
 * (Enzyme's BLAS's C form, LAPACK's Fortran one), which it copies dA's
 * triangle with. */
static int trtrs_as_enzyme(const rev_blas *rb) {
  return rb->id == RT_TRTRS && !cublas(rb) && program_has(rb, RT_LACPY);
}

/*
 * trtrs as Enzyme's calls, X the solution the call left in B (read in
 * place, or copied after the call), cA its A:
 *   Y := op(cA)^-T dB (trtrs, in place); W := dA's triangle (lacpy into a
 *   zeroed n x n); W -= Y X' (op N) or X Y' (op T) (gemm); a unit
 *   diagonal keeps dA's (copy of n elements, else 0); dA's triangle := W's
 *   (lacpy).
 */
static int adjoint_trtrs_enzyme(rev_blas *rb) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef off, dB = shadow(rb, R_B, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef tr = rb->val[R_TRANS], n = rb->val[R_N], uplo = rb->val[R_UPLO];
  if (solve(rb, flip(rb, tr), dB) != 0)
    return -1;
  if (active(rb, R_A)) {
    LLVMValueRef same, dA = shadow(rb, R_A, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    LLVMValueRef W = calloc_reals(rb, LLVMBuildMul(b, n, n, "")), Wp = W;
    if (LLVMGetTypeKind(LLVMTypeOf(dA)) == LLVMIntegerTypeKind)
      Wp = LLVMBuildPtrToInt(b, W, LLVMTypeOf(dA), "");
    LLVMValueRef ops[R_COUNT] = {0};
    ops[R_UPLO] = opt_op(rb, uplo);
    ops[R_M] = ops[R_N] = int_op(rb, n);
    ops[R_A] = dA, ops[R_LDA] = inc_op(rb, R_LDA);
    ops[R_B] = Wp, ops[R_LDB] = int_op(rb, n);
    if (!emit(rb, RT_LACPY, ops))
      return -1;
    LLVMValueRef nt = is_notrans(rb, tr), cB = rb->copy[R_B];
    LLVMValueRef ldb = rb->val[R_LDB], cldb = rb->cld[R_LDB];
    memset(ops, 0, sizeof ops);
    ops[R_TRANS] = opt_op(rb, op_t(rb, uplo, 0));
    ops[R_TRANSB] = opt_op(rb, op_t(rb, uplo, 1));
    ops[R_M] = ops[R_N] = int_op(rb, n), ops[R_K] = int_op(rb, rb->val[R_NRHS]);
    ops[R_ALPHA] = real_const(rb, -1.0);
    ops[R_A] = sel_array(rb, nt, dB, cB), ops[R_LDA] = int_op(rb, sel(rb, nt, ldb, cldb));
    ops[R_B] = sel_array(rb, nt, cB, dB), ops[R_LDB] = int_op(rb, sel(rb, nt, cldb, ldb));
    ops[R_BETA] = real_const(rb, 1.0);
    ops[R_C] = Wp, ops[R_LDC] = int_op(rb, n);
    if (!emit(rb, RT_GEMM, ops))
      return -1;
    LLVMValueRef one = konst(rb, 1);
    memset(ops, 0, sizeof ops);
    ops[R_N] = int_op(rb, sel(rb, option_is(rb, rb->val[R_DIAG], &codes_unit), n,
                              konst(rb, 0)));
    ops[R_X] = dA, ops[R_INCX] = int_op(rb, LLVMBuildAdd(b, rb->val[R_LDA], one, ""));
    ops[R_Y] = Wp, ops[R_INCY] = int_op(rb, LLVMBuildAdd(b, n, one, ""));
    if (!emit(rb, RT_COPY, ops))
      return -1;
    memset(ops, 0, sizeof ops);
    ops[R_UPLO] = opt_op(rb, uplo);
    ops[R_M] = ops[R_N] = int_op(rb, n);
    ops[R_A] = Wp, ops[R_LDA] = int_op(rb, n);
    ops[R_B] = dA, ops[R_LDB] = inc_op(rb, R_LDA);
    if (!emit(rb, RT_LACPY, ops))
      return -1;
    free_scratch(rb, W);
    term_end(rb, after);
  }
  term_end(rb, done);
  return 0;
}

/*
 * trtrs  B := X = op(A)^-1 B, A triangular (n x n), B n x nrhs
 *   Y := op(cA)^-T dB (trtrs, in place: dB's adjoint); X again from the
 *   cached B (trtrs on the copy); dA's triangle -= Y X' (op N) or X Y'
 *   (op T) (gemm into a scratch square, add_triangle; a unit diagonal
 *   gets nothing)
 */
static int adjoint_trtrs(rev_blas *rb) {
  if (trtrs_as_enzyme(rb))
    return adjoint_trtrs_enzyme(rb);
  LLVMValueRef off, dB = shadow(rb, R_B, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef tr = rb->val[R_TRANS];
  if (solve(rb, flip(rb, tr), dB) != 0)
    return -1;
  if (active(rb, R_A)) {
    LLVMValueRef same, dA = shadow(rb, R_A, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    LLVMValueRef cB = rb->copy[R_B], ldt;
    if (solve(rb, tr, cB) != 0)
      return -1;
    LLVMValueRef T = scratch_square(rb, &ldt);
    LLVMValueRef nt = is_notrans(rb, tr);
    if (outer_nn(rb, T, ldt, -1.0, sel_array(rb, nt, dB, cB),
                 sel_array(rb, nt, cB, dB), 0.0) != 0 ||
        add_triangle(rb, T, ldt, 0, dA, rb->val[R_LDA], rb->val[R_N],
                     lower_in_memory(rb),
                     unit_diagonal(rb), 1.0) != 0)
      return -1;
    free_scratch(rb, T);
    term_end(rb, after);
  }
  term_end(rb, done);
  return 0;
}

/*
 * potrs  B := X = S^-1 B, S = L L' (uplo L) or U'U (U), cA potrf's factor,
 *   as Enzyme's calls: with cB the B the call read and T := cB dB' + dB cB'
 *   (syr2k into W's upper triangle, copied to the lower, a copy per row),
 *   W := S^-1 T L^-T (L: trsm from the right with L', then L^-1 and L^-T
 *   from the left; U: U^-T W U^-1 U^-T), which is -dL (-dU); dA's
 *   triangle -= W's (an axpy per column, L; per row, U); then dB := S^-1
 *   dB (potrs in place).
 */
static int adjoint_potrs(rev_blas *rb) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef off, dB = shadow(rb, R_B, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef n = rb->val[R_N], uplo = rb->val[R_UPLO], one = konst(rb, 1);
  if (active(rb, R_A)) {
    LLVMValueRef same, dA = shadow(rb, R_A, &same);
    LLVMBasicBlockRef after = term_begin(rb, same);
    LLVMValueRef lower = option_is(rb, uplo, &codes_lower), cm = col_major(rb);
    LLVMValueRef W = calloc_reals(rb, LLVMBuildMul(b, n, n, "")), Wp = W;
    if (LLVMGetTypeKind(LLVMTypeOf(dB)) == LLVMIntegerTypeKind)
      Wp = LLVMBuildPtrToInt(b, W, LLVMTypeOf(dB), "");
    LLVMValueRef ops[R_COUNT] = {0};
    ops[R_UPLO] = opt_op(rb, code_like(rb, uplo, konst(rb, 121), konst(rb, 'U'),
                                       konst(rb, 1)));
    ops[R_TRANS] = opt_op(rb, op_t(rb, uplo, 0));
    ops[R_N] = int_op(rb, n), ops[R_K] = int_op(rb, rb->val[R_NRHS]);
    ops[R_ALPHA] = real_const(rb, 1.0);
    ops[R_A] = rb->copy[R_B], ops[R_LDA] = copy_inc(rb, R_LDB);
    ops[R_B] = dB, ops[R_LDB] = inc_op(rb, R_LDB);
    ops[R_BETA] = real_const(rb, 0.0);
    ops[R_C] = Wp, ops[R_LDC] = int_op(rb, n);
    if (!emit(rb, RT_SYR2K, ops))
      return -1;
    /* the strides along a row and down a column of W (ld n) */
    LLVMValueRef up_inc = sel(rb, cm, n, one), down_inc = sel(rb, cm, one, n);
    blas_loop l;
    begin_loop(rb, sel(rb, LLVMBuildICmp(b, LLVMIntSGT, n, one, ""),
                       LLVMBuildSub(b, n, one, ""), konst(rb, 0)), &l);
    LLVMValueRef i = l.j, i1 = LLVMBuildAdd(b, i, one, "");
    LLVMValueRef cp[R_COUNT] = {0};
    cp[R_N] = int_op(rb, LLVMBuildSub(b, LLVMBuildSub(b, n, one, ""), i, ""));
    cp[R_X] = at_rc(rb, Wp, n, i, i1), cp[R_INCX] = int_op(rb, up_inc);
    cp[R_Y] = at_rc(rb, Wp, n, i1, i), cp[R_INCY] = int_op(rb, down_inc);
    if (LLVMGetTypeKind(LLVMTypeOf(dB)) == LLVMIntegerTypeKind) {
      cp[R_X] = LLVMBuildPtrToInt(b, cp[R_X], LLVMTypeOf(dB), "");
      cp[R_Y] = LLVMBuildPtrToInt(b, cp[R_Y], LLVMTypeOf(dB), "");
    }
    if (!emit(rb, RT_COPY, cp))
      return -1;
    end_loop(rb, &l);
    LLVMValueRef tri[R_COUNT] = {0};
    tri[R_UPLO] = opt_op(rb, uplo);
    tri[R_DIAG] = opt_op(rb, nonunit(rb, uplo));
    tri[R_M] = tri[R_N] = int_op(rb, n);
    tri[R_ALPHA] = real_const(rb, 1.0);
    tri[R_A] = rb->copy[R_A], tri[R_LDA] = copy_inc(rb, R_LDA);
    tri[R_B] = Wp, tri[R_LDB] = int_op(rb, n);
    static const unsigned char steps[3][2] = {{1, 1}, {0, 0}, {0, 1}};
    for (unsigned k = 0; k < 3; k++) {
      tri[R_SIDE] = opt_op(rb, uplo_side(rb, uplo, steps[k][0]));
      tri[R_TRANS] = opt_op(rb, op_t(rb, uplo, steps[k][1]));
      if (!emit(rb, RT_TRSM, tri))
        return -1;
    }
    LLVMValueRef lda = rb->val[R_LDA];
    LLVMValueRef a_up = sel(rb, cm, lda, one), a_down = sel(rb, cm, one, lda);
    begin_loop(rb, n, &l);
    i = l.j;
    LLVMValueRef ax[R_COUNT] = {0};
    ax[R_N] = int_op(rb, LLVMBuildSub(b, n, i, ""));
    ax[R_ALPHA] = real_const(rb, -1.0);
    ax[R_X] = at_rc(rb, Wp, n, i, i);
    ax[R_INCX] = int_op(rb, sel(rb, lower, down_inc, up_inc));
    ax[R_Y] = at_rc(rb, dA, lda, i, i);
    ax[R_INCY] = int_op(rb, sel(rb, lower, a_down, a_up));
    if (LLVMGetTypeKind(LLVMTypeOf(dA)) == LLVMIntegerTypeKind) {
      ax[R_X] = LLVMBuildPtrToInt(b, ax[R_X], LLVMTypeOf(dA), "");
      ax[R_Y] = LLVMBuildPtrToInt(b, ax[R_Y], LLVMTypeOf(dA), "");
    }
    if (!emit(rb, RT_AXPY, ax))
      return -1;
    end_loop(rb, &l);
    free_scratch(rb, W);
    term_end(rb, after);
  }
  if (solve(rb, NULL, dB) != 0)
    return -1;
  term_end(rb, done);
  return 0;
}


/* A triangular routine (trmm, trsm) on the n x n work matrix W (ld ldw)
 * with the factor cA, non-unit, alpha 1. */
static int factor_op(rev_blas *rb, blas_routine_id id, LLVMValueRef right,
                     LLVMValueRef transposed, LLVMValueRef W, LLVMValueRef ldw) {
  LLVMValueRef uplo = rb->val[R_UPLO], ops[R_COUNT] = {0};
  ops[R_SIDE] = opt_op(rb, side_like(rb, uplo, right));
  ops[R_UPLO] = opt_op(rb, uplo);
  ops[R_TRANS] = opt_op(rb, trans_like(rb, uplo, transposed));
  ops[R_DIAG] = opt_op(rb, code_like(rb, uplo, konst(rb, 131), konst(rb, 'N'), konst(rb, 0)));
  ops[R_M] = ops[R_N] = int_op(rb, rb->val[R_N]);
  ops[R_ALPHA] = real_const(rb, 1.0);
  ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
  ops[R_B] = W, ops[R_LDB] = int_op(rb, ldw);
  return emit(rb, id, ops) ? 0 : -1;
}

/*
 * potrf  A := L, A = L L' from its lower triangle (uplo U: A = U'U, U
 *   upper), in place.  The factor again from the cached A (potrf on the
 *   copy); with L' the adjoint in dA's triangle, copied out to W:
 *     L: W := Phi(L' W), W := L^-T W L^-1      (Phi: the triangle, its
 *     U: W := Phi(W U'), W := U^-1 W U^-T       diagonal halved)
 *   (trmm, then two trsm), and dA's triangle := W + W' there (the
 *   diagonal once), the other triangle, which potrf neither reads nor
 *   writes, left as it is.
 */
/* Whether potrf's adjoint is Enzyme's calls: where the program has the C
 * interface's lacpy and lascl (Enzyme's BLAS; CBLAS and LAPACKE have
 * neither), as Enzyme's test expects them. */
static int potrf_as_enzyme(const rev_blas *rb) {
  return rb->id == RT_POTRF && !fortran(rb) && !cublas(rb) &&
         program_has(rb, RT_LACPY) && program_has(rb, RT_LASCL);
}

/*
 * potrf as Enzyme's calls, cL the factor the call left (its output,
 * read in place or copied after the call), W a zeroed n x n (ld n):
 *   W := dA's triangle (lacpy); W := cL' W (L: trmm from the left; U:
 *   W cU' from the right); the diagonal halved (copy out, scal, lascl
 *   zeroing the other triangle with the diagonal, copy back); W := W
 *   cL^-1 (L; U: cU^-1 W), then cL^-T W (U: W cU^-T) (trsm); the other
 *   triangle added into this one, an axpy per row; dA's triangle := W
 *   (lacpy).  The numbers are adjoint_potrf's.
 */
static int adjoint_potrf_enzyme(rev_blas *rb) {
  LLVMBuilderRef b = rb->b;
  LLVMValueRef off, dA = shadow(rb, R_A, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef n = rb->val[R_N], uplo = rb->val[R_UPLO], one = konst(rb, 1);
  LLVMValueRef lower = option_is(rb, uplo, &codes_lower);
  LLVMValueRef np1 = LLVMBuildAdd(b, n, one, "");
  LLVMValueRef W = calloc_reals(rb, LLVMBuildMul(b, n, n, ""));
  LLVMValueRef tmp = calloc_reals(rb, n);
  LLVMValueRef Wp = W, tmpp = tmp;
  if (LLVMGetTypeKind(LLVMTypeOf(dA)) == LLVMIntegerTypeKind) {
    Wp = LLVMBuildPtrToInt(b, W, LLVMTypeOf(dA), "");
    tmpp = LLVMBuildPtrToInt(b, tmp, LLVMTypeOf(dA), "");
  }
  /* 'T', 'N' (upper case, as Enzyme's), CBLAS's enums for an enum uplo */
  LLVMValueRef tr_t = code_like(rb, uplo, konst(rb, 112), konst(rb, 'T'), NULL);
  LLVMValueRef tr_n = code_like(rb, uplo, konst(rb, 111), konst(rb, 'N'), NULL);
  LLVMValueRef side = side_like(rb, uplo, LLVMBuildNot(b, lower, ""));
  LLVMValueRef rside = side_like(rb, uplo, lower);
  LLVMValueRef flipped = flip_uplo(rb, uplo);
  LLVMValueRef ops[R_COUNT] = {0};
  ops[R_UPLO] = opt_op(rb, uplo);
  ops[R_M] = ops[R_N] = int_op(rb, n);
  ops[R_A] = dA, ops[R_LDA] = inc_op(rb, R_LDA);
  ops[R_B] = Wp, ops[R_LDB] = int_op(rb, n);
  if (!emit(rb, RT_LACPY, ops))
    return -1;
  LLVMValueRef tri[R_COUNT] = {0};
  tri[R_UPLO] = opt_op(rb, uplo);
  tri[R_DIAG] = opt_op(rb, nonunit(rb, uplo));
  tri[R_M] = tri[R_N] = int_op(rb, n);
  tri[R_ALPHA] = real_const(rb, 1.0);
  tri[R_A] = rb->copy[R_A], tri[R_LDA] = copy_inc(rb, R_LDA);
  tri[R_B] = Wp, tri[R_LDB] = int_op(rb, n);
  tri[R_SIDE] = opt_op(rb, side), tri[R_TRANS] = opt_op(rb, tr_t);
  if (!emit(rb, RT_TRMM, tri))
    return -1;
  LLVMValueRef to_tmp[R_COUNT] = {0}, from_tmp[R_COUNT] = {0};
  to_tmp[R_N] = from_tmp[R_N] = int_op(rb, n);
  to_tmp[R_X] = Wp, to_tmp[R_INCX] = int_op(rb, np1);
  to_tmp[R_Y] = tmpp, to_tmp[R_INCY] = int_op(rb, one);
  from_tmp[R_X] = tmpp, from_tmp[R_INCX] = int_op(rb, one);
  from_tmp[R_Y] = Wp, from_tmp[R_INCY] = int_op(rb, np1);
  if (!emit(rb, RT_COPY, to_tmp) ||
      scal(rb, int_op(rb, n), real_const(rb, 0.5), tmpp, int_op(rb, one)) != 0)
    return -1;
  memset(ops, 0, sizeof ops);
  ops[R_UPLO] = opt_op(rb, flipped);
  ops[R_KL] = ops[R_KU] = int_op(rb, konst(rb, 0));
  ops[R_CFROM] = real_const(rb, 1.0), ops[R_CTO] = real_const(rb, 0.0);
  ops[R_M] = ops[R_N] = int_op(rb, n);
  ops[R_A] = Wp, ops[R_LDA] = int_op(rb, n);
  ops[R_INFO] = LLVMConstNull(rb->intty); /* by value in this form */
  if (!emit(rb, RT_LASCL, ops) || !emit(rb, RT_COPY, from_tmp))
    return -1;
  tri[R_SIDE] = opt_op(rb, rside), tri[R_TRANS] = opt_op(rb, tr_n);
  if (!emit(rb, RT_TRSM, tri))
    return -1;
  tri[R_SIDE] = opt_op(rb, side), tri[R_TRANS] = opt_op(rb, tr_t);
  if (!emit(rb, RT_TRSM, tri))
    return -1;
  /* row i's part right of the diagonal into column i's below it (L; U:
   * the mirror) */
  LLVMValueRef rows = sel(rb, LLVMBuildICmp(b, LLVMIntEQ, n, konst(rb, 0), ""),
                          konst(rb, 0), LLVMBuildSub(b, n, one, ""));
  /* the strides along a row and down a column of W in this layout */
  LLVMValueRef up_inc = sel(rb, col_major(rb), n, one);
  LLVMValueRef down_inc = sel(rb, col_major(rb), one, n);
  blas_loop l;
  begin_loop(rb, rows, &l);
  LLVMValueRef i = l.j, i1 = LLVMBuildAdd(b, i, one, "");
  LLVMValueRef right_of = at_rc(rb, W, n, i, i1), below = at_rc(rb, W, n, i1, i);
  LLVMValueRef x = sel(rb, lower, right_of, below), y = sel(rb, lower, below, right_of);
  if (LLVMGetTypeKind(LLVMTypeOf(dA)) == LLVMIntegerTypeKind) {
    x = LLVMBuildPtrToInt(b, x, LLVMTypeOf(dA), "");
    y = LLVMBuildPtrToInt(b, y, LLVMTypeOf(dA), "");
  }
  if (axpy(rb, int_op(rb, LLVMBuildSub(b, LLVMBuildSub(b, n, one, ""), i, "")),
           real_const(rb, 1.0), x, int_op(rb, sel(rb, lower, up_inc, down_inc)), y,
           int_op(rb, sel(rb, lower, down_inc, up_inc))) != 0)
    return -1;
  end_loop(rb, &l);
  memset(ops, 0, sizeof ops);
  ops[R_UPLO] = opt_op(rb, uplo);
  ops[R_M] = ops[R_N] = int_op(rb, n);
  ops[R_A] = Wp, ops[R_LDA] = int_op(rb, n);
  ops[R_B] = dA, ops[R_LDB] = inc_op(rb, R_LDA);
  if (!emit(rb, RT_LACPY, ops))
    return -1;
  free_scratch(rb, W);
  free_scratch(rb, tmp);
  term_end(rb, done);
  return 0;
}

static int adjoint_potrf(rev_blas *rb) {
  if (potrf_as_enzyme(rb))
    return adjoint_potrf_enzyme(rb);
  LLVMValueRef off, dA = shadow(rb, R_A, &off);
  LLVMBasicBlockRef done = term_begin(rb, off);
  LLVMValueRef n = rb->val[R_N], lda = rb->val[R_LDA], ldw;
  LLVMValueRef ops[R_COUNT] = {0};
  ops[R_UPLO] = opt_op(rb, rb->val[R_UPLO]);
  ops[R_N] = int_op(rb, n);
  ops[R_A] = rb->copy[R_A], ops[R_LDA] = copy_inc(rb, R_LDA);
  ops[R_INFO] = in_memory(rb, rb->intty, LLVMConstNull(rb->intty));
  if (!emit(rb, RT_POTRF, ops))
    return -1;
  LLVMValueRef W = scratch_square(rb, &ldw);
  LLVMValueRef tri = lower_in_memory(rb), zero = konst(rb, 0), one = konst(rb, 1);
  LLVMValueRef lower = option_is(rb, rb->val[R_UPLO], &codes_lower);
  LLVMValueRef upper = LLVMBuildNot(rb->b, lower, "");
  if (add_triangle(rb, dA, lda, 0, W, ldw, n, tri, zero, 1.0) != 0 ||
      factor_op(rb, RT_TRMM, upper, i1(rb, 1), W, ldw) != 0 ||
      scale_triangle(rb, W, ldw, n, LLVMBuildNot(rb->b, tri, ""), one, 0.0) != 0 ||
      scale_diagonal(rb, n, W, ldw, 0.5) != 0 ||
      factor_op(rb, RT_TRSM, i1(rb, 0), lower, W, ldw) != 0 ||
      factor_op(rb, RT_TRSM, i1(rb, 1), upper, W, ldw) != 0 ||
      scale_triangle(rb, dA, lda, n, tri, zero, 0.0) != 0 ||
      add_triangle(rb, W, ldw, 0, dA, lda, n, tri, zero, 1.0) != 0 ||
      add_triangle(rb, W, ldw, 1, dA, lda, n, tri, one, 1.0) != 0)
    return -1;
  free_scratch(rb, W);
  term_end(rb, done);
  return 0;
}

/* ---- reverse ---- */

static int rev_blas_step(ad_rev_fn *r, const ad_rev_call_row *row,
                         LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)row;
  rev_blas rb;
  if (read_call(&rb, r, call, p->rule) != 0)
    return -1;
  rb.b = r->rb;
  rb.fn = r->rev;
  LLVMValueRef block = ad_rev_recorded(r, call);
  if (!block)
    return ad_rev_fail_call(r, call, "%s: internal: no cached values",
                            p->rule->name);
  read_values(&rb, block, 1);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(r->mc->llctx, 0);
  for (unsigned a = R_A; a <= R_Y; a++) {
    if (!has(&rb, a))
      continue;
    rb.copy[a] = LLVMBuildLoad2(rb.b, ptr, slot_at(&rb, block, SLOT_COPY + a),
                                "blas.cached");
    rb.cld[stride_role(a)] = LLVMBuildLoad2(
        rb.b, rb.i64, slot_at(&rb, block, SLOT_STRIDE + stride_role(a)),
        "blas.stride");
    LLVMTypeRef t = LLVMTypeOf(orig(&rb, a));
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind)
      rb.copy[a] = LLVMBuildPtrToInt(rb.b, rb.copy[a], t, "");
  }
  if (has(&rb, R_LAYOUT))
    rb.site.layout = LLVMBuildIntCast2(rb.b, rb.val[R_LAYOUT],
                                       LLVMTypeOf(orig(&rb, R_LAYOUT)), 0, "");
  rb.site.handle = has(&rb, R_HANDLE) ? rb.val[R_HANDLE] : NULL;
  cache_plan plan;
  plan_caches(&rb, &plan);
  rb.recovered_x = plan.recovered[R_X];
  if (rev_rows[rb.id].adjoint(&rb) != 0)
    return -1;
  for (unsigned a = R_A; a <= R_Y; a++)
    if (plan.cached[a]) {
      if (cublas(&rb))
        device_free(&rb, rb.copy[a]);
      else
        free_copy(&rb, as_pointer(&rb, rb.copy[a]),
                  LLVMBuildLoad2(rb.b, rb.i64, slot_at(&rb, block, SLOT_MAPPED + a),
                                 "blas.mapped"));
    }
  free_block(&rb, block);
  return 0;
}

const ad_rev_call_row ad_rev_blas_row = {
    .name = "blas", .aug = aug_blas, .rev = rev_blas_step};
