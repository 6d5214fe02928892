/*
 * The reverse body.  Its entry zeroes one adjoint slot (an alloca, which
 * SROA/mem2reg turn into registers) per active float value on first use,
 * then jumps to the dispatcher, which reads the id on top of the tape and
 * jumps to that block's reverse.  A block's reverse pops its record (the
 * head block, tape.c), reverses its instructions last to first, reads and
 * zeroes the adjoints of its PHIs and, from the id of the record now on
 * top (the predecessor the forward pass came from), adds each to the
 * incoming value of that edge, then goes back to the dispatcher.  The
 * entry block's reverse returns the adjoints of the OUT parameters.  This
 * is right for any control flow: the tape replays the path taken.
 *
 * Reversing a definition reads its slot, zeroes it and adds partial *
 * adjoint to each active operand's slot, so each dynamic instance of a
 * value consumes exactly the adjoint its own uses contributed.  Partials
 * of math calls come from the rows of rules/math.c; the arithmetic
 * instructions' partials are written out below, each once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

static void copy_fmf(LLVMValueRef to, LLVMValueRef from) {
  ad_copy_fmf(to, from);
}

/* What an adjoint slot holds before anything is added to it: -0.0 in
 * each float leaf.  -0 is the one exact additive identity (-0 + x is x for
 * every x, zeros included; +0 + -0 is +0), so LLVM turns a slot's first
 * accumulation into a plain copy, and a negated partial added to it into
 * a subtraction, without nsz: with strict derivatives (no nsz) a +0 slot
 * kept an `fadd 0.0, x` per value.  Integer and pointer leaves hold 0.
 * Only registers hold it: shadow memory is zeroed with +0, and the
 * adjoints a gradient returns are normalized (ad_rev_positive_zero).
 * Strict derivatives start slots with it (slot_start). */
LLVMValueRef ad_rev_empty_adjoint(LLVMTypeRef t) {
  enum { MOST_LEAVES = 4096 };
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (ad_type_is_float_scalar(t))
    return LLVMConstReal(t, -0.0);
  int f = 0, o = 0;
  ad_rev_leaves(t, &f, &o);
  unsigned n = k == LLVMStructTypeKind  ? LLVMCountStructElementTypes(t)
               : k == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength2(t)
               : k == LLVMVectorTypeKind ? LLVMGetVectorSize(t)
                                         : 0;
  if (!f || n == 0 || n > MOST_LEAVES)
    return LLVMConstNull(t);
  LLVMValueRef *leaf = tj_malloc(n * sizeof *leaf);
  if (!leaf)
    return LLVMConstNull(t);
  for (unsigned i = 0; i < n; i++)
    leaf[i] = ad_rev_empty_adjoint(k == LLVMStructTypeKind
                                       ? LLVMStructGetTypeAtIndex(t, i)
                                       : LLVMGetElementType(t));
  LLVMValueRef c;
  if (k == LLVMVectorTypeKind)
    c = LLVMConstVector(leaf, n);
  else if (k == LLVMArrayTypeKind)
    c = LLVMConstArray2(LLVMGetElementType(t), leaf, n);
  else if (LLVMGetStructName(t))
    c = LLVMConstNamedStruct(t, leaf, n);
  else
    c = LLVMConstStructInContext(LLVMGetTypeContext(t), leaf, n,
                                 LLVMIsPackedStruct(t));
  free(leaf);
  return c;
}

/* Whether d adds nothing: a +0 or -0 constant (constants are uniqued, so
 * the empty adjoint compares by identity).  Dropping a zero changes at
 * most the sign of a zero sum. */
static int adds_nothing(LLVMValueRef d) {
  return LLVMIsConstant(d) &&
         (LLVMIsNull(d) || d == ad_rev_empty_adjoint(LLVMTypeOf(d)));
}

LLVMValueRef ad_rev_positive_zero(LLVMBuilderRef b, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  int f = 0, o = 0;
  ad_rev_leaves(t, &f, &o);
  if (!f)
    return v;
  if (ad_type_is_float(t)) /* no flags: x + +0 maps only -0 to +0 */
    return LLVMBuildFAdd(b, v, LLVMConstNull(t), "");
  LLVMTypeKind k = LLVMGetTypeKind(t);
  unsigned n = k == LLVMStructTypeKind  ? LLVMCountStructElementTypes(t)
               : k == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength2(t)
                                        : 0;
  for (unsigned i = 0; i < n; i++)
    v = LLVMBuildInsertValue(
        b, v, ad_rev_positive_zero(b, LLVMBuildExtractValue(b, v, i, "")), i, "");
  return v;
}

LLVMValueRef ad_rev_add(LLVMBuilderRef b, LLVMValueRef a, LLVMValueRef d,
                        LLVMValueRef fmf_src) {
  LLVMTypeRef t = LLVMTypeOf(a);
  if (adds_nothing(d))
    return a;
  if (ad_type_is_float(t)) {
    if (adds_nothing(a))
      return d;
    LLVMValueRef s = LLVMBuildFAdd(b, a, d, "");
    copy_fmf(s, fmf_src);
    return s;
  }
  if (LLVMGetTypeKind(t) == LLVMStructTypeKind ||
      LLVMGetTypeKind(t) == LLVMArrayTypeKind) {
    unsigned n = LLVMGetTypeKind(t) == LLVMStructTypeKind
                     ? LLVMCountStructElementTypes(t)
                     : (unsigned)LLVMGetArrayLength2(t);
    LLVMValueRef out = a;
    for (unsigned i = 0; i < n; i++) {
      LLVMTypeRef et = LLVMGetTypeKind(t) == LLVMStructTypeKind
                           ? LLVMStructGetTypeAtIndex(t, i)
                           : LLVMGetElementType(t);
      int f = 0, o = 0;
      ad_rev_leaves(et, &f, &o);
      if (!f)
        continue;
      LLVMValueRef ai = LLVMBuildExtractValue(b, a, i, "");
      LLVMValueRef di = LLVMBuildExtractValue(b, d, i, "");
      out = LLVMBuildInsertValue(b, out, ad_rev_add(b, ai, di, fmf_src), i, "");
    }
    return out;
  }
  return a; /* integers, pointers: no adjoint */
}

LLVMValueRef ad_rev_zero_floats(LLVMBuilderRef b, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  int f = 0, o = 0;
  ad_rev_leaves(t, &f, &o);
  if (!o)
    return LLVMConstNull(t);
  if (!f)
    return v;
  unsigned n = LLVMGetTypeKind(t) == LLVMStructTypeKind
                   ? LLVMCountStructElementTypes(t)
                   : LLVMGetTypeKind(t) == LLVMArrayTypeKind
                         ? (unsigned)LLVMGetArrayLength2(t)
                         : 0;
  LLVMValueRef out = v;
  for (unsigned i = 0; i < n; i++)
    out = LLVMBuildInsertValue(
        b, out, ad_rev_zero_floats(b, LLVMBuildExtractValue(b, v, i, "")), i,
        "");
  return out;
}

/* A slot's start: under the derivative flags every adjoint add has nsz,
 * and LLVM folds +0 (cheaper to materialize than -0) as well; strict
 * derivatives need the exact identity. */
static LLVMValueRef slot_start(ad_rev_fn *r, LLVMTypeRef t) {
  return ad_engine_fast_derivatives(r->mc->engine) ? LLVMConstNull(t)
                                                   : ad_rev_empty_adjoint(t);
}

static LLVMValueRef slot_of(ad_rev_fn *r, LLVMValueRef v) {
  LLVMValueRef s = ad_map_get(&r->adj, v);
  if (s)
    return s;
  LLVMTypeRef t = ad_rev_adjoint_type(r, v);
  LLVMPositionBuilderBefore(r->eb, r->entry_term);
  s = LLVMBuildAlloca(r->eb, t, "adj");
  LLVMBuildStore(r->eb, slot_start(r, t), s);
  if (ad_map_put(&r->adj, v, s) != 0)
    ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  return s;
}

LLVMValueRef ad_rev_take(ad_rev_fn *r, LLVMValueRef v) {
  LLVMValueRef s = slot_of(r, v);
  LLVMTypeRef t = ad_rev_adjoint_type(r, v);
  LLVMValueRef d = LLVMBuildLoad2(r->rb, t, s, "");
  LLVMBuildStore(r->rb, slot_start(r, t), s);
  return d;
}

void ad_rev_accumulate(ad_rev_fn *r, LLVMValueRef v, LLVMValueRef d,
                       LLVMValueRef fmf_src) {
  if (!v || !d || (!LLVMIsAInstruction(v) && !LLVMIsAArgument(v)))
    return;
  if (!ad_rev_has_adjoint(r, v))
    return;
  if (adds_nothing(d))
    return;
  LLVMValueRef s = slot_of(r, v);
  LLVMTypeRef t = ad_rev_adjoint_type(r, v);
  LLVMValueRef old = LLVMBuildLoad2(r->rb, t, s, "");
  LLVMBuildStore(r->rb, ad_rev_add(r->rb, old, d, fmf_src), s);
}

LLVMBasicBlockRef ad_rev_guard(ad_rev_fn *r, LLVMValueRef p) {
  if (!ad_shadow_may_equal_primal(&r->fc, p))
    return NULL;
  LLVMValueRef sp = ad_rev_shadow(r, p), pp = ad_rev_primal(r, p);
  LLVMValueRef fn = r->rev;
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(r->mc->llctx, fn, "active.mem");
  LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(r->mc->llctx, fn, "after.mem");
  LLVMValueRef same = LLVMBuildICmp(r->rb, LLVMIntEQ, sp, pp, "");
  LLVMBuildCondBr(r->rb, same, after, go);
  LLVMPositionBuilderAtEnd(r->rb, go);
  return after;
}

void ad_rev_guard_end(ad_rev_fn *r, LLVMBasicBlockRef after) {
  if (!after)
    return;
  LLVMBuildBr(r->rb, after);
  LLVMPositionBuilderAtEnd(r->rb, after);
}

static int fail_inst(ad_rev_fn *r, LLVMValueRef inst, const char *what) {
  char *t = ad_value_text(inst);
  int rc = ad_fail_code(r->mc, TANJIT_ERR_UNSUPPORTED, inst,
                        "reverse mode: %s: `%s`", what, t ? t : "?");
  free(t);
  return rc;
}

static LLVMValueRef fmul(ad_rev_fn *r, LLVMValueRef a, LLVMValueRef b,
                         LLVMValueRef fmf) {
  LLVMValueRef v = LLVMBuildFMul(r->rb, a, b, "");
  copy_fmf(v, fmf);
  return v;
}

static LLVMValueRef fneg(ad_rev_fn *r, LLVMValueRef a, LLVMValueRef fmf) {
  LLVMValueRef v = LLVMBuildFNeg(r->rb, a, "");
  copy_fmf(v, fmf);
  return v;
}

/* Whether a row's partial reads operand/result token `tok` (x, y, r). */
static int reads(const char *program, char tok) {
  for (const char *p = program; p && *p; p++)
    if (*p == tok && (p == program || p[-1] == ' ') && (!p[1] || p[1] == ' '))
      return 1;
  return 0;
}

/*
 * k / sqrt(x), the sqrt used nowhere else (n-body's 1 / sqrt(r2)), under
 * the derivative flags: x's adjoint += adjoint * (-k/2) / (x sqrt(x)),
 * and the sqrt's own reverse is dropped (it would add nothing: its slot
 * receives nothing).  Read row by row, the chain is the quotient's -q^2
 * then sqrt's 0.5/s, three multiplies after the division q = k/s waits
 * for the sqrt; folded, the only wait after the sqrt is x*s and one
 * division, as Enzyme's fast-math folding gets (1/(2 r2 sqrt r2)): the
 * n-body gradient 1.17 -> 1.04 of its time (docs/bench-gradient.md).  At
 * x = 0 both forms are non-finite (inf here, NaN read row by row).
 */
static int fold_reciprocal_sqrt(ad_rev_fn *r, LLVMValueRef inst,
                                LLVMValueRef d, double k) {
  LLVMValueRef s = LLVMGetOperand(inst, 1);
  if (!ad_engine_fast_derivatives(r->mc->engine) || !LLVMIsACallInst(s) ||
      LLVMGetNumArgOperands(s) != 1)
    return 0;
  LLVMUseRef u = LLVMGetFirstUse(s);
  if (!u || LLVMGetNextUse(u))
    return 0;
  ad_rev_call_plan *p = ad_map_get(&r->plans, s);
  if (!p || p->kind != PLAN_MATH || !ad_math_is_sqrt(p->rule))
    return 0;
  LLVMValueRef x = LLVMGetOperand(s, 0);
  if (ad_rev_has_adjoint(r, x)) {
    LLVMValueRef xs = fmul(r, ad_rev_primal(r, x), ad_rev_primal(r, s), inst);
    LLVMValueRef c = LLVMBuildFDiv(r->rb, ad_const_fp(LLVMTypeOf(inst), -0.5 * k),
                                   xs, "");
    copy_fmf(c, inst);
    ad_rev_accumulate(r, x, fmul(r, d, c, inst), inst);
  }
  p->kind = PLAN_NONE;
  return 1;
}

/* A quotient's two partials, 1/b and -(a/b)/b, share one division:
 * with q = adjoint / b, a's adjoint += q and b's -= q * (a/b).  Read
 * one by one they divide twice per operand (and a loop's 1 / sqrt(r2)
 * pays the divider's latency three times), as forward mode's rearranged
 * tangent (rules/inst.c) avoids too. */
static int reverse_quotient(ad_rev_fn *r, LLVMValueRef inst, LLVMValueRef d) {
  LLVMValueRef a = LLVMGetOperand(inst, 0), b = LLVMGetOperand(inst, 1);
  int da = ad_rev_has_adjoint(r, a), db = ad_rev_has_adjoint(r, b);
  if (!da && !db)
    return 0;
  double k = 0;
  int constant = !da && ad_const_fp_splat(a, &k);
  /* k - k is 0 for a finite k (<math.h>'s isfinite would bring its fmul) */
  if (constant && k != 0 && k - k == 0 && fold_reciprocal_sqrt(r, inst, d, k))
    return 0;
  /* the quotient a/b, read only for b's partial (as the row reads it) */
  LLVMValueRef res = db ? ad_rev_primal(r, inst) : NULL;
  /* k/b for k = 1 or -1: b's partial -k/b^2 = -(k/b)^2/k is minus or
   * plus the quotient squared, no division at all */
  if (constant && (k == 1.0 || k == -1.0)) {
    LLVMValueRef g = fmul(r, fmul(r, d, res, inst), res, inst);
    ad_rev_accumulate(r, b, k == 1.0 ? fneg(r, g, inst) : g, inst);
    return 0;
  }
  LLVMValueRef q = LLVMBuildFDiv(r->rb, d, ad_rev_primal(r, b), "");
  copy_fmf(q, inst);
  if (da)
    ad_rev_accumulate(r, a, q, inst);
  if (db)
    ad_rev_accumulate(r, b, fneg(r, fmul(r, q, res, inst), inst), inst);
  return 0;
}

/* The arithmetic instructions read their rows (rules/inst.c), the same
 * partials forward mode evaluates: x_k's adjoint += partial_k * adjoint. */
static int reverse_arith(ad_rev_fn *r, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  unsigned arity = op == LLVMFNeg ? 1 : 2;
  LLVMValueRef d = ad_rev_take(r, inst);
  if (op == LLVMFDiv)
    return reverse_quotient(r, inst, d);
  for (unsigned k = 0; k < arity; k++) {
    LLVMValueRef a = LLVMGetOperand(inst, k);
    if (!ad_rev_has_adjoint(r, a))
      continue;
    ad_inst_partial row;
    if (!ad_inst_partial_of(op, k, &row))
      return fail_inst(r, inst, "internal: no partial for this instruction");
    LLVMValueRef g = d;
    if (row.program) {
      /* only what the partial reads is taped */
      LLVMValueRef args[2] = {NULL, NULL}, res = NULL;
      for (unsigned j = 0; j < arity; j++)
        if (reads(row.program, j ? 'y' : 'x'))
          args[j] = ad_rev_primal(r, LLVMGetOperand(inst, j));
      if (reads(row.program, 'r'))
        res = ad_rev_primal(r, inst);
      ad_fn_ctx here = r->fc;
      here.b = r->rb;
      LLVMValueRef p = ad_math_eval_text(&here, row.program, arity,
                                         LLVMTypeOf(inst), args, res);
      if (!p)
        return -1;
      g = fmul(r, d, p, inst);
    }
    if (row.negate)
      g = fneg(r, g, inst);
    ad_rev_accumulate(r, a, g, inst);
  }
  return 0;
}

static LLVMValueRef const_index(ad_rev_fn *r, unsigned i) {
  return LLVMConstInt(LLVMInt32TypeInContext(r->mc->llctx), i, 0);
}

static int reverse_shuffle(ad_rev_fn *r, LLVMValueRef inst) {
  LLVMValueRef a = LLVMGetOperand(inst, 0), b = LLVMGetOperand(inst, 1);
  unsigned n = LLVMGetVectorSize(LLVMTypeOf(a));
  /* lanes of float bits (a <2 x i64> copy) add as their floats */
  LLVMTypeRef vt =
      LLVMVectorType(LLVMGetElementType(ad_rev_adjoint_type(r, inst)), n);
  unsigned m = LLVMGetNumMaskElements(inst);
  LLVMValueRef d = ad_rev_take(r, inst);
  LLVMValueRef da = LLVMConstNull(vt), db = LLVMConstNull(vt);
  for (unsigned k = 0; k < m; k++) {
    int e = LLVMGetMaskValue(inst, k);
    if (e < 0)
      continue;
    LLVMValueRef piece = LLVMBuildExtractElement(r->rb, d, const_index(r, k), "");
    LLVMValueRef *acc = (unsigned)e < n ? &da : &db;
    unsigned at = (unsigned)e < n ? (unsigned)e : (unsigned)e - n;
    LLVMValueRef old = LLVMBuildExtractElement(r->rb, *acc, const_index(r, at), "");
    *acc = LLVMBuildInsertElement(r->rb, *acc, ad_rev_add(r->rb, old, piece, inst),
                                  const_index(r, at), "");
  }
  ad_rev_accumulate(r, a, da, inst);
  ad_rev_accumulate(r, b, db, inst);
  return 0;
}

/* In a pair other threads run at the same time (sig.parallel: an OpenMP
 * region), several threads may read one location, so its shadow receives
 * their adjoints concurrently: *sp += d with atomic fadds, one per float
 * lane (a vector's lanes).  0 for other types (aggregates, x86_fp80),
 * whose plain add is kept. */
static int atomic_float(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
    return 1;
  default: /* x86_fp80, fp128: no atomic fadd of their width */
    return 0;
  }
}

static int atomic_add_into(ad_rev_fn *r, LLVMValueRef sp, LLVMValueRef d,
                           LLVMTypeRef t, LLVMValueRef inst) {
  LLVMBuilderRef b = r->rb;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(r->mc->llctx);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(r->mc->llctx);
  unsigned align = LLVMGetAlignment(inst);
  if (atomic_float(t)) {
    LLVMValueRef a = LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpFAdd, sp, d,
                                        LLVMAtomicOrderingMonotonic, 0);
    LLVMSetAlignment(a, align ? align : LLVMABIAlignmentOfType(r->mc->td, t));
    return 1;
  }
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k == LLVMVectorTypeKind && atomic_float(LLVMGetElementType(t))) {
    LLVMTypeRef e = LLVMGetElementType(t);
    unsigned long long es = LLVMABISizeOfType(r->mc->td, e);
    for (unsigned i = 0; i < LLVMGetVectorSize(t); i++) {
      LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(r->mc->llctx),
                                      i * es, 0);
      LLVMValueRef at = LLVMBuildGEP2(b, i8, sp, &off, 1, "");
      LLVMValueRef lane =
          LLVMBuildExtractElement(b, d, LLVMConstInt(i32, i, 0), "");
      LLVMValueRef a = LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpFAdd, at, lane,
                                          LLVMAtomicOrderingMonotonic, 0);
      LLVMSetAlignment(a, (unsigned)LLVMABIAlignmentOfType(r->mc->td, e));
    }
    return 1;
  }
  return 0;
}

static int reverse_load(ad_rev_fn *r, LLVMValueRef inst) {
  LLVMValueRef p = LLVMGetOperand(inst, 0);
  if (!ad_rev_has_adjoint(r, inst) || !ad_shadow_or_null(&r->fc, p))
    return 0;
  LLVMValueRef d = ad_rev_take(r, inst);
  LLVMBasicBlockRef after = ad_rev_guard(r, p);
  LLVMValueRef sp = ad_rev_shadow(r, p);
  LLVMTypeRef t = ad_rev_adjoint_type(r, inst); /* float bits: as floats */
  if (r->sig->parallel && atomic_add_into(r, sp, d, t, inst)) {
    ad_rev_guard_end(r, after);
    return 0;
  }
  LLVMValueRef old = LLVMBuildLoad2(r->rb, t, sp, "");
  LLVMSetAlignment(old, LLVMGetAlignment(inst));
  LLVMValueRef st = LLVMBuildStore(r->rb, ad_rev_add(r->rb, old, d, inst), sp);
  LLVMSetAlignment(st, LLVMGetAlignment(inst));
  ad_rev_guard_end(r, after);
  return 0;
}

static int reverse_store(ad_rev_fn *r, LLVMValueRef inst) {
  LLVMValueRef v = LLVMGetOperand(inst, 0), p = LLVMGetOperand(inst, 1);
  if (ad_types_stores_float_constant(r->fc.types, r->mc->td, inst) &&
      ad_shadow_or_null(&r->fc, p)) {
    /* a float constant written as its bits: the value overwritten has no
     * adjoint from here on, the constant none at all */
    LLVMBasicBlockRef after = ad_rev_guard(r, p);
    LLVMValueRef st = LLVMBuildStore(r->rb, LLVMConstNull(LLVMTypeOf(v)),
                                     ad_rev_shadow(r, p));
    LLVMSetAlignment(st, LLVMGetAlignment(inst));
    ad_rev_guard_end(r, after);
    return 0;
  }
  int f = 0, o = 0;
  LLVMTypeRef t = ad_rev_adjoint_type(r, v); /* float bits: as floats */
  ad_rev_leaves(t, &f, &o);
  if (!f || !ad_shadow_or_null(&r->fc, p))
    return 0;
  LLVMBasicBlockRef after = ad_rev_guard(r, p);
  LLVMValueRef sp = ad_rev_shadow(r, p);
  LLVMValueRef old = LLVMBuildLoad2(r->rb, t, sp, "");
  LLVMSetAlignment(old, LLVMGetAlignment(inst));
  /* the stored value's adjoint is what the shadow gathered since; the
   * value overwritten there has none from here on */
  LLVMValueRef st = LLVMBuildStore(r->rb, ad_rev_zero_floats(r->rb, old), sp);
  LLVMSetAlignment(st, LLVMGetAlignment(inst));
  ad_rev_accumulate(r, v, old, inst);
  ad_rev_guard_end(r, after);
  return 0;
}

int ad_rev_atomic_is_linear(LLVMValueRef inst) {
  LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(inst);
  return (op == LLVMAtomicRMWBinOpFAdd || op == LLVMAtomicRMWBinOpFSub) &&
         ad_type_is_float(LLVMTypeOf(LLVMGetOperand(inst, 1)));
}

/* atomicrmw fadd/fsub p, v (result: the old *p): *p's adjoint flows on
 * unchanged (new = old +- v), v's adjoint is +-(p's shadow), and the old
 * value's adjoint is added into the shadow, atomically as the primal. */
static int reverse_atomic(ad_rev_fn *r, LLVMValueRef inst) {
  LLVMValueRef p = LLVMGetOperand(inst, 0), v = LLVMGetOperand(inst, 1);
  if (!ad_shadow_or_null(&r->fc, p) || !ad_rev_atomic_is_linear(inst))
    return 0; /* an integer update (aug.c) has no adjoint */
  LLVMTypeRef t = LLVMTypeOf(v);
  LLVMValueRef d = ad_rev_has_adjoint(r, inst) ? ad_rev_take(r, inst) : NULL;
  LLVMBasicBlockRef after = ad_rev_guard(r, p);
  LLVMValueRef sp = ad_rev_shadow(r, p);
  if (ad_rev_has_adjoint(r, v)) {
    LLVMValueRef g = LLVMBuildLoad2(r->rb, t, sp, "");
    LLVMSetOrdering(g, LLVMAtomicOrderingMonotonic);
    LLVMSetAlignment(g, LLVMGetAlignment(inst));
    if (LLVMGetAtomicRMWBinOp(inst) == LLVMAtomicRMWBinOpFSub)
      g = LLVMBuildFNeg(r->rb, g, "");
    ad_rev_accumulate(r, v, g, NULL);
  }
  if (d) {
    LLVMValueRef a = LLVMBuildAtomicRMW(r->rb, LLVMAtomicRMWBinOpFAdd, sp, d,
                                        LLVMAtomicOrderingMonotonic,
                                        LLVMIsAtomicSingleThread(inst));
    LLVMSetAlignment(a, LLVMGetAlignment(inst));
  }
  ad_rev_guard_end(r, after);
  return 0;
}

static int reverse_instruction(ad_rev_fn *r, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  switch (op) {
  case LLVMAtomicRMW:
    return reverse_atomic(r, inst);
  case LLVMStore:
    return reverse_store(r, inst);
  case LLVMLoad:
    return reverse_load(r, inst);
  case LLVMAlloca:
    if (ad_shadow_or_null(&r->fc, inst)) {
      ad_rev_shadow_free(r->mc, r->rb, ad_rev_shadow(r, inst));
    }
    return 0;
  default:
    break;
  }
  if (!ad_rev_has_adjoint(r, inst))
    return 0;
  switch (op) {
  case LLVMFAdd:
  case LLVMFSub:
  case LLVMFMul:
  case LLVMFDiv:
  case LLVMFRem:
  case LLVMFNeg:
    return reverse_arith(r, inst);
  case LLVMFPExt:
  case LLVMFPTrunc: {
    LLVMValueRef a = LLVMGetOperand(inst, 0);
    LLVMValueRef d = ad_rev_take(r, inst);
    if (ad_rev_has_adjoint(r, a))
      ad_rev_accumulate(r, a, LLVMBuildFPCast(r->rb, d, LLVMTypeOf(a), ""), inst);
    return 0;
  }
  case LLVMFreeze: {
    LLVMValueRef d = ad_rev_take(r, inst);
    ad_rev_accumulate(r, LLVMGetOperand(inst, 0), d, inst);
    return 0;
  }
  case LLVMBitCast: {
    LLVMValueRef a = LLVMGetOperand(inst, 0);
    /* float <-> its bits as an integer: the adjoint is the float's */
    if (ad_rev_adjoint_type(r, a) != ad_rev_adjoint_type(r, inst) &&
        ad_rev_has_adjoint(r, a))
      return fail_inst(r, inst, "a bitcast between float layouts is not "
                                "supported");
    LLVMValueRef d = ad_rev_take(r, inst);
    ad_rev_accumulate(r, a, d, inst);
    return 0;
  }
  case LLVMSelect: {
    LLVMValueRef c = ad_rev_primal(r, LLVMGetOperand(inst, 0));
    LLVMValueRef d = ad_rev_take(r, inst);
    LLVMValueRef z = LLVMConstNull(ad_rev_adjoint_type(r, inst));
    LLVMValueRef t = LLVMGetOperand(inst, 1), f = LLVMGetOperand(inst, 2);
    if (ad_rev_has_adjoint(r, t))
      ad_rev_accumulate(r, t, LLVMBuildSelect(r->rb, c, d, z, ""), inst);
    if (ad_rev_has_adjoint(r, f))
      ad_rev_accumulate(r, f, LLVMBuildSelect(r->rb, c, z, d, ""), inst);
    return 0;
  }
  case LLVMExtractValue: {
    LLVMValueRef agg = LLVMGetOperand(inst, 0);
    LLVMValueRef d = ad_rev_take(r, inst);
    if (!ad_rev_has_adjoint(r, agg))
      return 0;
    unsigned n = LLVMGetNumIndices(inst);
    const unsigned *idx = LLVMGetIndices(inst);
    /* d placed at the path, zeros elsewhere */
    LLVMTypeRef types[16];
    LLVMTypeRef t = LLVMTypeOf(agg);
    if (n > 16)
      return fail_inst(r, inst, "extractvalue deeper than 16 levels");
    for (unsigned k = 0; k < n; k++) {
      types[k] = t;
      t = LLVMGetTypeKind(t) == LLVMStructTypeKind
              ? LLVMStructGetTypeAtIndex(t, idx[k])
              : LLVMGetElementType(t);
    }
    LLVMValueRef v = d;
    for (unsigned k = n; k-- > 0;)
      v = LLVMBuildInsertValue(r->rb, LLVMConstNull(types[k]), v, idx[k], "");
    ad_rev_accumulate(r, agg, v, inst);
    return 0;
  }
  case LLVMInsertValue: {
    LLVMValueRef agg = LLVMGetOperand(inst, 0), el = LLVMGetOperand(inst, 1);
    unsigned n = LLVMGetNumIndices(inst);
    const unsigned *idx = LLVMGetIndices(inst);
    if (n != 1)
      return fail_inst(r, inst, "insertvalue with a nested index");
    LLVMValueRef d = ad_rev_take(r, inst);
    if (ad_rev_has_adjoint(r, el))
      ad_rev_accumulate(r, el, LLVMBuildExtractValue(r->rb, d, idx[0], ""), inst);
    if (ad_rev_has_adjoint(r, agg))
      ad_rev_accumulate(
          r, agg,
          LLVMBuildInsertValue(r->rb, d, LLVMConstNull(LLVMTypeOf(el)), idx[0], ""),
          inst);
    return 0;
  }
  case LLVMExtractElement: {
    LLVMValueRef vec = LLVMGetOperand(inst, 0);
    LLVMValueRef d = ad_rev_take(r, inst);
    if (ad_rev_has_adjoint(r, vec))
      ad_rev_accumulate(
          r, vec,
          LLVMBuildInsertElement(r->rb,
                                 LLVMConstNull(ad_rev_adjoint_type(r, vec)), d,
                                 ad_rev_primal(r, LLVMGetOperand(inst, 1)), ""),
          inst);
    return 0;
  }
  case LLVMInsertElement: {
    LLVMValueRef vec = LLVMGetOperand(inst, 0), el = LLVMGetOperand(inst, 1);
    LLVMValueRef i = ad_rev_primal(r, LLVMGetOperand(inst, 2));
    LLVMValueRef d = ad_rev_take(r, inst);
    if (ad_rev_has_adjoint(r, el))
      ad_rev_accumulate(r, el, LLVMBuildExtractElement(r->rb, d, i, ""), inst);
    if (ad_rev_has_adjoint(r, vec))
      ad_rev_accumulate(
          r, vec,
          LLVMBuildInsertElement(
              r->rb, d,
              LLVMConstNull(LLVMGetElementType(ad_rev_adjoint_type(r, inst))),
              i, ""),
          inst);
    return 0;
  }
  case LLVMShuffleVector:
    return reverse_shuffle(r, inst);
  case LLVMPHI:
    return 0;
  default:
    /* integer-typed active values (pointers in disguise) carry no adjoint;
     * a float one here has no rule */
    return fail_inst(r, inst, "no reverse-mode rule for this instruction");
  }
}

/* The incoming value of phi from block `pred`, or NULL. */
static LLVMValueRef incoming_from(LLVMValueRef phi, LLVMBasicBlockRef pred) {
  unsigned n = LLVMCountIncoming(phi);
  for (unsigned k = 0; k < n; k++)
    if (LLVMGetIncomingBlock(phi, k) == pred)
      return LLVMGetIncomingValue(phi, k);
  return NULL;
}

/* The most blocks a replay walks: their branches are rebuilt in the
 * join's reverse. */
#define REPLAY_BLOCKS 32

static size_t block_index(ad_rev_fn *r, LLVMBasicBlockRef bb) {
  uintptr_t i = (uintptr_t)ad_map_get(&r->block_id, LLVMBasicBlockAsValue(bb));
  return i ? (size_t)i - 1 : r->nblocks;
}

/* A branch's or switch's condition, NULL for a plain branch. */
static LLVMValueRef branch_condition(LLVMValueRef term) {
  if (LLVMIsASwitchInst(term))
    return LLVMGetOperand(term, 0);
  return LLVMIsConditional(term) ? LLVMGetCondition(term) : NULL;
}

/*
 * A join s whose predecessor the branches from its immediate dominator d
 * decide, replayed in s's reverse instead of an id its predecessors
 * record (a boundary test `i == 0 || j == 0 || ...` compiled to a branch
 * and a switch: two edges into the join, no single branch choosing).
 * in[] marks the blocks between: those reaching s without passing d (each
 * is dominated by d).  It applies when
 *  - d, s and those blocks share their innermost loop, d and they end in a
 *    branch or a switch, their edges among themselves and into s go
 *    forward in rpo, and none is reached from s but through d: between
 *    d's last run and s's the forward pass ran each of them at most once;
 *  - each of those terminators' conditions is free at s (ad_rev_free_at:
 *    induction variables, values from before a loop, integer arithmetic
 *    over them; loads and floats are data and keep the id), so at s's
 *    reverse it has the value it had when its block ran.
 * Following the conditions from d then retraces the forward pass's path,
 * and the block it leaves for s is the predecessor.  Returns 1 and fills
 * in (nblocks entries, zeroed by the caller) when it applies.
 */
static int replay_region(ad_rev_fn *r, size_t s, unsigned char *in) {
  size_t nb = r->nblocks, d = ad_rev_loops_idom(r, s);
  if (d >= nb || d == s || !ad_rev_loops_same_loop(r, d, s))
    return 0;
  size_t stack[REPLAY_BLOCKS + 1], sp = 0, count = 0;
  stack[sp++] = s;
  while (sp) {
    size_t x = stack[--sp];
    for (size_t q = r->pred_start[x]; q < r->pred_start[x + 1]; q++) {
      size_t p = r->pred_list[q];
      if (p == d || in[p])
        continue;
      if (p == s || ++count > REPLAY_BLOCKS)
        return 0;
      in[p] = 1;
      stack[sp++] = p;
    }
  }
  for (size_t b = 0; b < nb; b++) {
    if (b != d && !in[b])
      continue;
    LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[b]);
    if (!ad_rev_loops_same_loop(r, b, s) ||
        (!LLVMIsASwitchInst(term) && !LLVMIsABranchInst(term)))
      return 0;
    LLVMValueRef cond = branch_condition(term);
    if (cond && !ad_rev_free_at(r, cond, s))
      return 0;
    unsigned ns = LLVMGetNumSuccessors(term);
    for (unsigned k = 0; k < ns && b != d; k++) {
      size_t t = block_index(r, LLVMGetSuccessor(term, k));
      if (t < nb && (t == s || in[t]) && t <= b)
        return 0;
    }
  }
  return 1;
}

/* Where the replay of block b goes along its edge to t: the edge into the
 * join (for predecessor b), the replay of t, or nowhere (the forward pass
 * reached the join, so it did not leave the blocks between). */
typedef struct replay {
  unsigned char *in;
  LLVMBasicBlockRef *at, *edge, none;
  size_t *work, nwork, join;
} replay;

static LLVMBasicBlockRef replay_target(ad_rev_fn *r, replay *rp, size_t b,
                                       LLVMBasicBlockRef to) {
  LLVMContextRef c = r->mc->llctx;
  size_t t = block_index(r, to);
  if (t == rp->join) {
    if (!rp->edge[b])
      rp->edge[b] = LLVMAppendBasicBlockInContext(c, r->rev, "replay.edge");
    return rp->edge[b];
  }
  if (t < r->nblocks && rp->in[t]) {
    if (!rp->at[t]) {
      rp->at[t] = LLVMAppendBasicBlockInContext(c, r->rev, "replay");
      rp->work[rp->nwork++] = t;
    }
    return rp->at[t];
  }
  if (!rp->none)
    rp->none = LLVMAppendBasicBlockInContext(c, r->rev, "replay.none");
  return rp->none;
}

int ad_rev_join_known(ad_rev_fn *r, size_t index) {
  return index < r->nblocks && r->pred_start[index + 1] - r->pred_start[index] > 1 &&
         !ad_rev_loops_is_managed_header(r, index) &&
         ((r->pred_start[index + 1] - r->pred_start[index] == 2 &&
           r->route_cond[index]) ||
          r->route_replay[index]);
}

/* The blocks whose branches decide join `index`'s edge (route_cond's
 * block, or replay_region's immediate dominator and blocks between),
 * marked in in[] (nblocks entries, zeroed by the caller); 0 when neither
 * applies. */
static int deciding_blocks(ad_rev_fn *r, size_t index, unsigned char *in) {
  if (r->route_cond[index] && r->pred_start[index + 1] - r->pred_start[index] == 2)
    return 1; /* one condition, read directly */
  if (!r->route_replay[index] || !replay_region(r, index, in))
    return 0;
  in[ad_rev_loops_idom(r, index)] = 1;
  return 1;
}

int ad_rev_join_conditions(ad_rev_fn *r, size_t index) {
  size_t nb = r->nblocks;
  unsigned char *in = tj_calloc(nb ? nb : 1, 1);
  if (!in)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  int ok = deciding_blocks(r, index, in);
  if (ok && r->route_cond[index] && r->pred_start[index + 1] - r->pred_start[index] == 2)
    ad_rev_primal(r, r->route_cond[index]);
  for (size_t b = 0; ok && b < nb; b++) {
    LLVMValueRef cond =
        in[b] ? branch_condition(LLVMGetBasicBlockTerminator(r->rpo[b])) : NULL;
    if (cond)
      ad_rev_primal(r, cond);
  }
  free(in);
  if (!ok)
    return fail_inst(r, LLVMGetFirstInstruction(r->rpo[index]),
                     "internal: a join's edge is not decided by its branches");
  return r->mc->diag.failed ? -1 : 0;
}

/* The branches of ad_rev_join_edges for a join route_by_branch planned:
 * its one condition. */
static int edges_by_branch(ad_rev_fn *r, size_t index, LLVMBuilderRef b,
                           LLVMBasicBlockRef *edge) {
  LLVMValueRef c = ad_rev_primal(r, r->route_cond[index]);
  for (int k = 0; k < 2; k++)
    edge[r->route_pred[2 * index + (size_t)k]] =
        LLVMAppendBasicBlockInContext(r->mc->llctx, r->rev, "edge");
  LLVMBuildCondBr(b, c, edge[r->route_pred[2 * index]],
                  edge[r->route_pred[2 * index + 1]]);
  return r->mc->diag.failed ? -1 : 0;
}

/* The branches of ad_rev_join_edges for a join planned for replay: d's and
 * the blocks' branches rebuilt over their conditions' values. */
static int edges_by_replay(ad_rev_fn *r, size_t index, LLVMBuilderRef b,
                           LLVMBasicBlockRef from, LLVMBasicBlockRef *edge) {
  size_t nb = r->nblocks, d = ad_rev_loops_idom(r, index);
  replay rp = {tj_calloc(nb, 1), tj_calloc(nb, sizeof *rp.at), edge, NULL,
               tj_malloc(nb * sizeof *rp.work), 0, index};
  int rc = 0;
  if (!rp.in || !rp.at || !rp.work)
    rc = ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  else if (!replay_region(r, index, rp.in))
    rc = fail_inst(r, LLVMGetFirstInstruction(r->rpo[index]),
                   "internal: a join planned for replay is not replayable");
  if (rc == 0) {
    rp.at[d] = from;
    rp.work[rp.nwork++] = d;
  }
  while (rc == 0 && rp.nwork) {
    size_t x = rp.work[--rp.nwork];
    LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[x]);
    LLVMValueRef cond = branch_condition(term);
    LLVMValueRef c = cond ? ad_rev_primal(r, cond) : NULL;
    unsigned ns = LLVMGetNumSuccessors(term);
    LLVMPositionBuilderAtEnd(b, rp.at[x]);
    if (LLVMIsASwitchInst(term)) {
      LLVMValueRef sw = LLVMBuildSwitch(
          b, c, replay_target(r, &rp, x, LLVMGetSuccessor(term, 0)), ns - 1);
      for (unsigned k = 1; k < ns; k++)
        LLVMAddCase(sw, ad_switch_case_value(term, k),
                    replay_target(r, &rp, x, LLVMGetSuccessor(term, k)));
    } else if (c) {
      LLVMBasicBlockRef t = replay_target(r, &rp, x, LLVMGetSuccessor(term, 0));
      LLVMBasicBlockRef f = replay_target(r, &rp, x, LLVMGetSuccessor(term, 1));
      LLVMPositionBuilderAtEnd(b, rp.at[x]);
      LLVMBuildCondBr(b, c, t, f);
    } else {
      LLVMBuildBr(b, replay_target(r, &rp, x, LLVMGetSuccessor(term, 0)));
    }
    if (r->mc->diag.failed)
      rc = -1;
  }
  if (rc == 0 && rp.none) {
    LLVMPositionBuilderAtEnd(b, rp.none);
    LLVMBuildUnreachable(b);
  }
  free(rp.in);
  free(rp.at);
  free(rp.work);
  return rc;
}

int ad_rev_join_edges(ad_rev_fn *r, size_t index, LLVMBasicBlockRef from,
                      LLVMBasicBlockRef *edge) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(r->mc->llctx);
  LLVMPositionBuilderAtEnd(b, from);
  int rc;
  if (r->route_cond[index] && r->pred_start[index + 1] - r->pred_start[index] == 2)
    rc = edges_by_branch(r, index, b, edge);
  else if (r->route_replay[index])
    rc = edges_by_replay(r, index, b, from, edge);
  else
    rc = fail_inst(r, LLVMGetFirstInstruction(r->rpo[index]),
                   "internal: a join's edge is not decided by its branches");
  LLVMDisposeBuilder(b);
  return rc;
}

/* The reverse of a join whose edge its branches decide: each edge adds
 * the PHIs' adjoints (n, ds) for its predecessor and goes on to its
 * reverse. */
static int route_by_edges(ad_rev_fn *r, size_t index, LLVMValueRef *phis,
                          LLVMValueRef *ds, unsigned n) {
  size_t nb = r->nblocks;
  LLVMBasicBlockRef *edge = tj_calloc(nb, sizeof *edge);
  if (!edge)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  int rc = ad_rev_join_edges(r, index, LLVMGetInsertBlock(r->rb), edge);
  for (size_t p = 0; rc == 0 && p < nb; p++) {
    if (!edge[p])
      continue;
    LLVMPositionBuilderAtEnd(r->rb, edge[p]);
    for (unsigned j = 0; j < n; j++)
      ad_rev_accumulate(r, incoming_from(phis[j], r->rpo[p]), ds[j], phis[j]);
    LLVMBuildBr(r->rb, ad_rev_loops_to_pred(r, index, p));
  }
  free(edge);
  return rc;
}

/* Routes the adjoints of bb's PHIs to the edge taken, then on to the
 * reverse of the predecessor the forward pass came from: directly when bb
 * has one predecessor, else from the id on top of the tape (each of bb's
 * predecessors records its id).  The PHIs' adjoints are all read before
 * any is added to (an incoming value may be another PHI of bb). */
static int route_phis(ad_rev_fn *r, LLVMBasicBlockRef bb, size_t index) {
  LLVMValueRef phis[64];
  LLVMValueRef ds[64];
  unsigned n = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && LLVMIsAPHINode(i);
       i = LLVMGetNextInstruction(i)) {
    if (!ad_rev_has_adjoint(r, i))
      continue;
    if (n == 64)
      return fail_inst(r, i, "a block with more than 64 active PHIs");
    phis[n] = i;
    ds[n++] = ad_rev_take(r, i);
  }
  size_t first = r->pred_start[index], np = r->pred_start[index + 1] - first;
  if (!np) {
    LLVMBuildBr(r->rb, r->dispatch);
    return 0;
  }
  if (ad_rev_loops_is_managed_header(r, index))
    return ad_rev_loops_route_header(r, index, phis, ds, n);
  LLVMValueRef sw = NULL;
  LLVMBasicBlockRef unreachable = NULL;
  if (ad_rev_join_known(r, index))
    return route_by_edges(r, index, phis, ds, n);
  if (np > 1) {
    LLVMValueRef id = ad_rev_peek_id(r, r->rb);
    unreachable = LLVMAppendBasicBlockInContext(r->mc->llctx, r->rev, "no.edge");
    sw = LLVMBuildSwitch(r->rb, id, unreachable, (unsigned)np);
  }
  for (size_t j = 0; j < np; j++) {
    size_t pi = r->pred_list[first + j];
    LLVMBasicBlockRef pred = r->rpo[pi];
    if (sw) {
      LLVMBasicBlockRef edge =
          LLVMAppendBasicBlockInContext(r->mc->llctx, r->rev, "edge");
      LLVMAddCase(sw, LLVMConstInt(LLVMInt64TypeInContext(r->mc->llctx),
                                   pi + 1, 0),
                  edge);
      LLVMPositionBuilderAtEnd(r->rb, edge);
    }
    for (unsigned k = 0; k < n; k++)
      ad_rev_accumulate(r, incoming_from(phis[k], pred), ds[k], phis[k]);
    LLVMBuildBr(r->rb, ad_rev_loops_to_pred(r, index, pi));
  }
  if (unreachable) {
    LLVMPositionBuilderAtEnd(r->rb, unreachable);
    LLVMBuildUnreachable(r->rb);
  }
  return 0;
}

static int reverse_block(ad_rev_fn *r, LLVMBasicBlockRef bb, size_t index) {
  ad_module_ctx *mc = r->mc;
  LLVMBasicBlockRef head = r->heads[index];
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(
      mc->llctx, r->rev, "rev.body");
  if (r->dispatch_switch)
    LLVMAddCase(r->dispatch_switch,
                LLVMConstInt(LLVMInt64TypeInContext(mc->llctx), index + 1, 0),
                head);
  r->cur_block = index;
  ad_rev_begin_block(r, bb, head, body);
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  if (LLVMGetInstructionOpcode(term) == LLVMRet && LLVMGetNumOperands(term) &&
      r->dret)
    ad_rev_accumulate(r, LLVMGetOperand(term, 0), r->dret, NULL);
  /* an invoke is its block's terminator and its call (exceptions.c) */
  int rc = LLVMIsAInvokeInst(term) ? ad_rev_reverse_call(r, term) : 0;
  for (LLVMValueRef i = LLVMGetPreviousInstruction(term);
       i && !LLVMIsAPHINode(i) && rc == 0; i = LLVMGetPreviousInstruction(i)) {
    rc = LLVMIsACallInst(i) ? ad_rev_reverse_call(r, i)
                            : reverse_instruction(r, i);
    if (mc->diag.failed)
      rc = -1;
  }
  if (rc)
    return rc;
  if (bb == LLVMGetEntryBasicBlock(r->sig->fn)) {
    /* the OUT parameters' adjoints, in order */
    LLVMTypeRef rt = LLVMGetReturnType(LLVMGlobalGetValueType(r->rev));
    if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind) {
      LLVMBuildRetVoid(r->rb);
    } else {
      LLVMValueRef agg = LLVMGetPoison(rt);
      unsigned k = 0;
      for (unsigned i = 0; i < r->sig->nparams; i++) {
        if (r->sig->activity[i] != AD_REV_OUT)
          continue;
        LLVMValueRef p = LLVMGetParam(r->sig->fn, i);
        LLVMTypeRef at = LLVMStructGetTypeAtIndex(rt, k);
        LLVMValueRef v = ad_rev_has_adjoint(r, p) &&
                                 ad_rev_adjoint_type(r, p) == at
                             ? LLVMBuildLoad2(r->rb, at, slot_of(r, p), "")
                             : LLVMConstNull(at);
        if (!ad_engine_fast_derivatives(r->mc->engine))
          v = ad_rev_positive_zero(r->rb, v);
        agg = LLVMBuildInsertValue(r->rb, agg, v, k++, "");
      }
      LLVMBuildRet(r->rb, agg);
    }
  } else if ((rc = route_phis(r, bb, index)) != 0) {
    return rc;
  }
  return ad_rev_end_block(r, bb);
}

/* Whether a block never finishes (nothing pushed, nothing reversed):
 * unreachable, or resume: an exception leaves the gradient, no reverse
 * runs (exceptions.c); except in an unwinding clone, whose resumes are
 * exits the reverse starts from (unwinding.c). */
static int never_finishes(ad_rev_fn *r, LLVMBasicBlockRef bb) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  LLVMOpcode op = LLVMGetInstructionOpcode(term);
  return op == LLVMUnreachable ||
         (op == LLVMResume && !ad_rev_is_exit(r, term));
}

static size_t npreds(ad_rev_fn *r, size_t i) {
  return r->pred_start[i + 1] - r->pred_start[i];
}

/* Whether block index d ends in a two-way branch to blocks a and b. */
static int branches_to(ad_rev_fn *r, size_t d, size_t a, size_t b) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[d]);
  if (!LLVMIsABranchInst(term) || !LLVMIsConditional(term))
    return 0;
  LLVMBasicBlockRef t = LLVMGetSuccessor(term, 0), f = LLVMGetSuccessor(term, 1);
  return (t == r->rpo[a] && f == r->rpo[b]) || (t == r->rpo[b] && f == r->rpo[a]);
}

/* The successor other than s of block index d when d ends in a two-way
 * branch to s and it, else nblocks. */
static size_t other_successor(ad_rev_fn *r, size_t d, size_t s) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[d]);
  if (!LLVMIsABranchInst(term) || !LLVMIsConditional(term))
    return r->nblocks;
  LLVMBasicBlockRef a = LLVMGetSuccessor(term, 0), b = LLVMGetSuccessor(term, 1);
  LLVMBasicBlockRef other = a == r->rpo[s] ? b : b == r->rpo[s] ? a : NULL;
  if (!other || other == r->rpo[s])
    return r->nblocks;
  uintptr_t i = (uintptr_t)ad_map_get(&r->block_id, LLVMBasicBlockAsValue(other));
  return i ? (size_t)i - 1 : r->nblocks;
}

static int only_pred_is(ad_rev_fn *r, size_t o, size_t d) {
  return npreds(r, o) == 1 && r->pred_list[r->pred_start[o]] == d;
}

/*
 * A join whose predecessor is decided by one branch, so its reverse reads
 * that branch's condition instead of an id its predecessors record:
 *  - a triangle: preds {D, O}, D branching to the join and to S, whose
 *    only predecessor is D and which is O or dominates O (n-body's outer
 *    latch: reached from the inner loop's exit or straight from the
 *    header that skipped it);
 *  - a diamond: preds {A, B}, both with only predecessor D, D branching to
 *    them.
 * D dominates the join and is not the join itself, so the condition's
 * value at the join's terminator (where its record is pushed) is the one
 * of D's last run, and from there the path reached the join through the
 * predecessor that condition chose (O, A and B are reached only through
 * D's edges to S, A and B).
 * Sets route_cond / route_pred for block index s; 1 when it applies.
 */
static int route_by_branch(ad_rev_fn *r, size_t s) {
  if (npreds(r, s) != 2)
    return 0;
  size_t x = r->pred_list[r->pred_start[s]], y = r->pred_list[r->pred_start[s] + 1];
  size_t d = r->nblocks, on_true = 0, on_false = 0;
  for (int k = 0; k < 2 && d == r->nblocks; k++) {
    size_t dd = k ? y : x, o = k ? x : y, side = other_successor(r, dd, s);
    if (dd != s && o != s && side < r->nblocks && only_pred_is(r, side, dd) &&
        (side == o || ad_rev_loops_dominates(r, side, o)))
      d = dd;
  }
  if (d == r->nblocks && x != s && y != s && npreds(r, x) == 1 &&
      only_pred_is(r, y, r->pred_list[r->pred_start[x]]) &&
      r->pred_list[r->pred_start[x]] != s &&
      branches_to(r, r->pred_list[r->pred_start[x]], x, y))
    d = r->pred_list[r->pred_start[x]];
  if (d == r->nblocks)
    return 0;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[d]);
  LLVMBasicBlockRef t = LLVMGetSuccessor(term, 0);
  /* the predecessor reached when the condition holds */
  if (t == r->rpo[s])
    on_true = d, on_false = d == x ? y : x;
  else if (d == x || d == y)
    on_true = d == x ? y : x, on_false = d;
  else if (t == r->rpo[x] || t == r->rpo[y])
    on_true = t == r->rpo[x] ? x : y, on_false = on_true == x ? y : x;
  else
    return 0;
  r->route_cond[s] = LLVMGetCondition(term);
  r->route_pred[2 * s] = on_true;
  r->route_pred[2 * s + 1] = on_false;
  return 1;
}

/*
 * The reachable CFG's distinct predecessors of each block (pred_start /
 * pred_list, by rpo index), and which blocks record their id: a block
 * does when one of its successors has more than one predecessor (that
 * successor's reverse asks which one ran), and a returning block does
 * when there are several (the reverse starts from the one that ran).
 * Every other block's predecessor, and the first block to reverse, are
 * known when the reverse is built, so it jumps there directly.  Returns
 * the only returning block's index, or nblocks when there is not exactly
 * one; -1 when memory runs out.
 */
static long plan_blocks(ad_rev_fn *r) {
  size_t nb = r->nblocks, nedges = 0, nret = 0, ret = nb;
  size_t *count = tj_calloc(nb + 1, sizeof *count);
  r->pred_start = tj_calloc(nb + 1, sizeof *r->pred_start);
  r->needs_id = tj_calloc(nb ? nb : 1, 1);
  r->heads = tj_calloc(nb ? nb : 1, sizeof *r->heads);
  r->route_cond = tj_calloc(nb ? nb : 1, sizeof *r->route_cond);
  r->route_pred = tj_calloc(2 * (nb ? nb : 1), sizeof *r->route_pred);
  r->route_replay = tj_calloc(nb ? nb : 1, 1);
  unsigned char *region = tj_calloc(nb ? nb : 1, 1);
  if (!count || !r->pred_start || !r->needs_id || !r->heads ||
      !r->route_cond || !r->route_pred || !r->route_replay || !region) {
    free(region);
    free(count);
    return -1;
  }
  /* two passes over the edges: count, then fill; a block's own repeated
   * edges to one successor (condbr, switch cases) count once */
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < nb; i++) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[i]);
      unsigned ns = LLVMGetNumSuccessors(term);
      for (unsigned k = 0; k < ns; k++) {
        LLVMBasicBlockRef s = LLVMGetSuccessor(term, k);
        uintptr_t si = (uintptr_t)ad_map_get(&r->block_id, LLVMBasicBlockAsValue(s));
        int repeat = 0;
        for (unsigned j = 0; j < k; j++)
          repeat |= LLVMGetSuccessor(term, j) == s;
        if (!si || repeat)
          continue;
        if (pass == 0)
          count[si - 1]++, nedges++;
        else
          r->pred_list[r->pred_start[si - 1] + count[si - 1]++] = i;
      }
    }
    if (pass == 0) {
      for (size_t i = 0; i < nb; i++)
        r->pred_start[i + 1] = r->pred_start[i] + count[i];
      memset(count, 0, (nb + 1) * sizeof *count);
      r->pred_list = tj_malloc((nedges ? nedges : 1) * sizeof *r->pred_list);
      if (!r->pred_list) {
        free(count);
        free(region);
        return -1;
      }
    }
  }
  free(count);
  for (size_t i = 0; i < nb; i++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[i]);
    if (ad_rev_is_exit(r, term))
      nret++, ret = i;
    if (r->pred_start[i + 1] - r->pred_start[i] < 2 ||
        ad_rev_loops_is_managed_header(r, i) || route_by_branch(r, i))
      continue;
    memset(region, 0, nb);
    if ((r->route_replay[i] = (unsigned char)replay_region(r, i, region)))
      continue;
    for (size_t j = r->pred_start[i]; j < r->pred_start[i + 1]; j++)
      if (!ad_rev_loops_exit_carries_id(r, r->pred_list[j], i))
        r->needs_id[r->pred_list[j]] = 1;
  }
  free(region);
  if (nret != 1)
    for (size_t i = 0; i < nb; i++)
      if (ad_rev_is_exit(r, LLVMGetBasicBlockTerminator(r->rpo[i])))
        r->needs_id[i] = 1;
  for (size_t i = 0; i < nb; i++)
    if (!never_finishes(r, r->rpo[i]))
      r->heads[i] = LLVMAppendBasicBlockInContext(r->mc->llctx, r->rev,
                                                  "rev.head");
  return nret == 1 ? (long)ret : (long)nb;
}

/* Adjoint arithmetic takes the derivative flags tangents take
 * (tanjit_options.derivative_fp: reassoc nsz contract unless strict), so
 * LLVM may factor and fuse it as it does Enzyme's; the primal's own flags
 * were copied at each instruction.  Primal values the reverse rebuilds
 * (tape.c, named "recomputed") keep the primal's flags only. */
static void derivative_flags(ad_rev_fn *r) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->rev); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      size_t n;
      const char *name = LLVMGetValueName2(i, &n);
      if (n >= 10 && strncmp(name, "recomputed", 10) == 0)
        continue;
      switch (LLVMGetInstructionOpcode(i)) {
      case LLVMFAdd:
      case LLVMFSub:
      case LLVMFMul:
      case LLVMFDiv:
      case LLVMFNeg:
        ad_tangent_fmf(&r->fc, i, i);
        break;
      default:
        break;
      }
    }
}

/* Whether v is `fdiv 1.0, x`. */
static int reciprocal_of(LLVMValueRef v, LLVMValueRef x) {
  if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMFDiv ||
      LLVMGetOperand(v, 1) != x || !LLVMIsAConstantFP(LLVMGetOperand(v, 0)))
    return 0;
  LLVMBool lost = 0;
  return LLVMConstRealGetDouble(LLVMGetOperand(v, 0), &lost) == 1.0 && !lost;
}

/*
 * An adjoint `k / x` (k a constant, reassociation allowed) where the
 * reverse also computes the primal's `1 / x` becomes `k * (1 / x)`, so
 * LLVM shares the one division: the reverse of `1 / sqrt(r2)` whose sqrt
 * has other uses (fold_reciprocal_sqrt takes the others) rebuilds
 * q = 1 / s for the quotient's partial -q^2 and the sqrt row reads
 * 0.5 / s, three divider operations per pair (sqrt included) where two
 * do.  Only under the derivative flags (tanjit_options.derivative_fp
 * not strict): one more rounding, as LLVM's own reciprocal folds make.
 */
static void share_reciprocals(ad_rev_fn *r) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->rev); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMGetInstructionOpcode(i) != LLVMFDiv ||
          !(LLVMGetFastMathFlags(i) & LLVMFastMathAllowReassoc))
        continue;
      LLVMValueRef k = LLVMGetOperand(i, 0), x = LLVMGetOperand(i, 1);
      if (!LLVMIsAConstantFP(k) || reciprocal_of(i, x))
        continue;
      int shared = 0;
      for (LLVMUseRef u = LLVMGetFirstUse(x); u && !shared;
           u = LLVMGetNextUse(u))
        shared = LLVMGetUser(u) != i && reciprocal_of(LLVMGetUser(u), x);
      if (!shared)
        continue;
      LLVMPositionBuilderBefore(r->rb, i);
      LLVMValueRef one = LLVMBuildFDiv(
          r->rb, LLVMConstReal(LLVMTypeOf(x), 1.0), x, "recip");
      LLVMValueRef m = LLVMBuildFMul(r->rb, k, one, "");
      LLVMSetFastMathFlags(m, LLVMGetFastMathFlags(i));
      LLVMReplaceAllUsesWith(i, m);
      LLVMValueRef dead = i;
      i = m;
      LLVMInstructionEraseFromParent(dead);
    }
}

int ad_rev_build_reverse(ad_rev_fn *r) {
  ad_module_ctx *mc = r->mc;
  LLVMContextRef c = mc->llctx;
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, r->rev, "entry");
  r->dispatch = LLVMAppendBasicBlockInContext(c, r->rev, "dispatch");
  LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(c, r->rev, "no.block");
  LLVMPositionBuilderAtEnd(r->eb, entry);
  r->entry_term = LLVMBuildBr(r->eb, r->dispatch);
  LLVMPositionBuilderAtEnd(r->rb, none);
  LLVMBuildUnreachable(r->rb);
  long only_ret = plan_blocks(r);
  ad_rev_plan_reloads(r);
  int rc = 0;
  if (only_ret < 0) {
    rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  } else {
    LLVMPositionBuilderAtEnd(r->rb, r->dispatch);
    if ((size_t)only_ret < r->nblocks) {
      /* one returning block: the reverse starts there */
      LLVMBuildBr(r->rb, r->heads[only_ret]);
      r->dispatch_switch = NULL;
    } else {
      LLVMValueRef id = ad_rev_peek_id(r, r->rb);
      r->dispatch_switch =
          LLVMBuildSwitch(r->rb, id, none, (unsigned)r->nblocks);
    }
  }
  for (size_t i = 0; i < r->nblocks && rc == 0; i++) {
    if (never_finishes(r, r->rpo[i]))
      continue; /* never finishes: nothing to reverse, nothing pushed */
    rc = reverse_block(r, r->rpo[i], i);
  }
  if (rc == 0)
    rc = ad_rev_loops_finish(r);
  if (rc == 0) {
    derivative_flags(r);
    share_reciprocals(r);
    ad_rev_sync_tape(r);
    ad_rev_sync_resumes(r); /* exceptions.c */
  }
  free(r->pred_start);
  free(r->pred_list);
  free(r->needs_id);
  free(r->heads);
  free(r->route_cond);
  free(r->route_pred);
  free(r->route_replay);
  r->route_replay = NULL;
  r->route_cond = NULL;
  r->route_pred = NULL;
  r->pred_start = r->pred_list = NULL;
  r->needs_id = NULL;
  r->heads = NULL;
  return mc->diag.failed ? -1 : rc;
}
