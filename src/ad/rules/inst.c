/*
 * Instruction rules: for each primal instruction, its clone and, when it is
 * active, its tangent, emitted beside it.  One switch on the opcode; an
 * opcode without a rule is an error quoting the instruction, never a
 * silent zero.  Calls go to fwd/call.c, PHIs are built in fwd/derivative.c.
 *
 * Loads and stores through a pointer whose shadow may be the pointer
 * itself (a PHI or select of a duplicated and a constant pointer) compare
 * the two at run time, as Enzyme's runtime activity does, so a tangent is
 * never written into primal memory nor read from it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/analysis/globals.h"
#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"

static const unsigned op0[] = {0}, op01[] = {0, 1}, op12[] = {1, 2};

static int emit_ret(ad_fn_ctx *fc, LLVMValueRef inst) {
  LLVMValueRef v = LLVMGetNumOperands(inst) ? LLVMGetOperand(inst, 0) : NULL;
  switch (fc->sig->ret) {
  case AD_RET_VOID:
    LLVMBuildRetVoid(fc->b);
    return 0;
  case AD_RET_PRIMAL:
    LLVMBuildRet(fc->b, ad_primal(fc, v));
    return 0;
  case AD_RET_TANGENT:
    LLVMBuildRet(fc->b, ad_shadow_value(fc, v));
    return 0;
  case AD_RET_BOTH: {
    LLVMTypeRef rt = LLVMGetReturnType(LLVMGlobalGetValueType(fc->deriv_fn));
    LLVMValueRef agg = LLVMGetPoison(rt);
    agg = LLVMBuildInsertValue(fc->b, agg, ad_primal(fc, v), 0, "");
    agg = LLVMBuildInsertValue(fc->b, agg, ad_shadow_value(fc, v), 1, "");
    LLVMBuildRet(fc->b, agg);
    return 0;
  }
  }
  return 0;
}

int ad_const_fp_splat(LLVMValueRef v, double *out) {
  if (LLVMIsAConstantDataVector(v) || LLVMIsAConstantVector(v)) {
    LLVMTypeRef vt = LLVMTypeOf(v);
    unsigned n = LLVMGetVectorSize(vt);
    double first = 0;
    for (unsigned i = 0; i < n; i++) {
      double e;
      if (!ad_const_fp_splat(LLVMGetAggregateElement(v, i), &e))
        return 0;
      if (i == 0)
        first = e;
      else if (e != first)
        return 0;
    }
    *out = first;
    return n > 0;
  }
  if (!v || !LLVMIsAConstantFP(v))
    return 0;
  LLVMBool loses = 0;
  *out = LLVMConstRealGetDouble(v, &loses);
  return !loses;
}

/*
 * The partials of the float arithmetic instructions, stated once, in the
 * math rows' language (x, y the operands, r the result; NULL is 1), each
 * times -1 where `negate` says.  Forward mode evaluates
 * d r = sum_k partial_k d x_k from them (emit_float_arith), reverse mode
 * adds partial_k * adjoint(r) to x_k's adjoint (rev/adjoint.c).
 */
static const struct inst_row {
  LLVMOpcode op;
  unsigned char arity;
  ad_inst_partial partial[2];
} inst_rows[] = {
    /* d(a+b) = da + db */
    {LLVMFAdd, 2, {{NULL, 0}, {NULL, 0}}},
    /* d(a-b) = da - db */
    {LLVMFSub, 2, {{NULL, 0}, {NULL, 1}}},
    /* d(-a) = -da */
    {LLVMFNeg, 1, {{NULL, 1}}},
    /* d(ab) = b da + a db */
    {LLVMFMul, 2, {{"y", 0}, {"x", 0}}},
    /* d(a/b) = da / b - (a/b) db / b */
    {LLVMFDiv, 2, {{"1 y /", 0}, {"r y /", 1}}},
    /* d fmod(a,b) = da - trunc(a/b) db */
    {LLVMFRem, 2, {{NULL, 0}, {"x y / trunc", 1}}},
};

int ad_inst_partial_of(LLVMOpcode op, unsigned k, ad_inst_partial *out) {
  for (size_t i = 0; i < sizeof inst_rows / sizeof *inst_rows; i++)
    if (inst_rows[i].op == op && k < inst_rows[i].arity) {
      *out = inst_rows[i].partial[k];
      return 1;
    }
  return 0;
}

/* Error estimation: the result's bound from the same rows'
 * partials (tangent/error_bound.c). */
static int emit_float_error(ad_fn_ctx *fc, LLVMValueRef inst, LLVMValueRef c) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  unsigned arity = op == LLVMFNeg ? 1 : 2;
  LLVMValueRef args[2] = {NULL, NULL};
  ad_error_term terms[2];
  for (unsigned k = 0; k < arity; k++)
    args[k] = ad_primal(fc, LLVMGetOperand(inst, k));
  for (unsigned k = 0; k < arity; k++) {
    ad_inst_partial row;
    if (!ad_inst_partial_of(op, k, &row))
      return ad_fail(fc->mc, inst, "internal: no row for %s",
                     LLVMGetValueName(inst));
    terms[k].primal = args[k];
    terms[k].error = ad_shadow_or_null(fc, LLVMGetOperand(inst, k));
    terms[k].coef = NULL;
    if (terms[k].error && row.program &&
        !(terms[k].coef = ad_math_eval_text(fc, row.program, arity,
                                            LLVMTypeOf(inst), args, c)))
      return -1;
  }
  LLVMValueRef bound = ad_error_bound(fc, inst, c, terms, arity);
  if (!bound)
    return -1;
  ad_set_shadow(fc, inst, bound);
  return 0;
}

/* d(a op b) as a linear combination of da and db, from the rows above;
 * a quotient's tangent is their combination rearranged: (da - (a/b) db)/b,
 * one division instead of two, or for a constant numerator k the
 * primal quotient reused (numbers as before the rows). */
static int emit_float_arith(ad_fn_ctx *fc, LLVMValueRef inst, LLVMValueRef c) {
  if (ad_estimates_error(fc))
    return emit_float_error(fc, inst, c);
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  LLVMTypeRef t = LLVMTypeOf(inst);
  LLVMValueRef a = LLVMGetOperand(inst, 0);
  LLVMValueRef da = ad_shadow_or_null(fc, a), db = NULL;
  LLVMValueRef pa = ad_primal(fc, a), pb = NULL;
  if (op != LLVMFNeg) {
    LLVMValueRef b = LLVMGetOperand(inst, 1);
    db = ad_shadow_or_null(fc, b);
    pb = ad_primal(fc, b);
  }
  ad_term terms[2] = {{NULL, da, 0}, {NULL, db, 0}};
  LLVMValueRef divisor = NULL;
  LLVMValueRef args[2] = {pa, pb};
  unsigned arity = op == LLVMFNeg ? 1 : 2;
  switch (op) {
  case LLVMFAdd:
  case LLVMFSub:
  case LLVMFNeg:
  case LLVMFMul:
  case LLVMFRem:
    for (unsigned k = 0; k < arity; k++) {
      ad_inst_partial row;
      if (!ad_inst_partial_of(op, k, &row))
        return ad_fail(fc->mc, inst, "internal: no row for %s",
                       LLVMGetValueName(inst));
      terms[k].negate = row.negate;
      if (row.program &&
          !(terms[k].coef = ad_math_eval_text(fc, row.program, arity, t, args, c)))
        return -1;
    }
    break;
  case LLVMFDiv: {
    /* d(k/b) = -(k/b) ((k/b) (1/k)) db for a constant numerator (1/r,
     * k/r^2): the tangent reuses the primal quotient and needs no division
     * of its own, which matters where the divider is the bottleneck.  1/k
     * folds in the operand's own type; (k/b)(1/k) is about 1/b, so nothing
     * overflows that -k/b^2 would not.  Otherwise
     * d(a/b) = (da - (a/b) db) / b. */
    double k;
    LLVMValueRef inv_k = NULL;
    if (!da && ad_const_fp_splat(pa, &k) && k != 0 && isfinite(k)) {
      inv_k = LLVMBuildFDiv(fc->b, ad_const_fp(t, 1.0), pa, "");
      double r;
      if (!ad_const_fp_splat(inv_k, &r) || !isfinite(r) || r == 0)
        inv_k = NULL;
    }
    if (inv_k) {
      LLVMValueRef about_inv_b = LLVMBuildFMul(fc->b, c, inv_k, "");
      ad_copy_fmf(about_inv_b, inst);
      LLVMValueRef coef = LLVMBuildFMul(fc->b, c, about_inv_b, "");
      ad_copy_fmf(coef, inst);
      terms[1].coef = coef;
      terms[1].negate = 1;
      break;
    }
    terms[1].coef = c;
    terms[1].negate = 1;
    divisor = pb;
    break;
  }
  default:
    break;
  }
  LLVMValueRef s = ad_lincomb(fc, t, terms, op == LLVMFNeg ? 1 : 2, divisor,
                              inst);
  ad_set_shadow(fc, inst, s);
  return 0;
}

/* A load of floats (scalar or vector) that orders nothing, neither
 * volatile nor atomic, so its shadow load may come before it. */
static int plain_float_load(LLVMValueRef load) {
  return ad_type_is_float(LLVMTypeOf(load)) && !LLVMGetVolatile(load) &&
         LLVMGetOrdering(load) == LLVMAtomicOrderingNotAtomic;
}

/*
 * Whether `load` sits in a block that carries a float accumulator around
 * itself: the block begins with a float PHI one of whose incoming values
 * comes from the block (a one-block loop's reduction, `s += a[i] * x[i]`).
 * There, under derivative reassociation, shadow-first loads give the
 * tangent sum the association Enzyme's has (docs/bench-side-by-side.md,
 * "Shadow loads first").
 */
static int in_block_carrying_float(LLVMValueRef load) {
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(load);
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && LLVMIsAPHINode(i);
       i = LLVMGetNextInstruction(i)) {
    if (!ad_type_is_float(LLVMTypeOf(i)))
      continue;
    for (unsigned k = 0, n = LLVMCountIncoming(i); k < n; k++)
      if (LLVMGetIncomingBlock(i, k) == bb)
        return 1;
  }
  return 0;
}

/*
 * The shadow of a plain float load, emitted before the primal load `clone`
 * (the builder is back after it on return): Enzyme's order, taken under
 * strict derivatives only.  There the tangent sums keep the rules' order
 * and the position changes only how the code is scheduled and registers
 * given; on bench/'s kernels it compiled to fewer instructions in five
 * cells (polynomial and stencil at width 8 among them) and to more in
 * none (docs/bench-side-by-side.md).  With derivative reassociation the
 * position decides the sums instead: LLVM's Reassociate ranks loads by
 * their position and sums the lowest-ranked terms first, and factors by
 * those ranks.  Shadows first there saved two register copies per element
 * of the width-8 matrix-vector loop (its accumulator is added to A*dx
 * first, then x*dA) but lost the factoring of stencil's cubic term
 * (d(c^3) as 3c^2 dc), 5-16% of its instructions, so the default takes
 * the shadow first only in a block that carries a float accumulator
 * around itself (in_block_carrying_float), and the primal first elsewhere.
 */
static LLVMValueRef shadow_load_first(ad_fn_ctx *fc, LLVMValueRef inst,
                                      LLVMValueRef clone) {
  LLVMValueRef after = LLVMGetNextInstruction(clone);
  LLVMPositionBuilderBefore(fc->b, clone);
  LLVMValueRef s = ad_lanewise(fc, inst, clone, op0, 1);
  if (after)
    LLVMPositionBuilderBefore(fc->b, after);
  else
    LLVMPositionBuilderAtEnd(fc->b, LLVMGetInstructionParent(clone));
  return s;
}

static int emit_alloca(ad_fn_ctx *fc, LLVMValueRef inst, LLVMValueRef c) {
  LLVMValueRef lanes[AD_MAX_WIDTH];
  LLVMTypeRef at = LLVMGetAllocatedType(inst);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(fc->mc->llctx);
  unsigned long long size = LLVMABISizeOfType(fc->mc->td, at);
  LLVMValueRef bytes = LLVMConstInt(i64, size, 0);
  LLVMValueRef count = ad_primal(fc, LLVMGetOperand(inst, 0));
  if (!(LLVMIsAConstantInt(count) && LLVMConstIntGetZExtValue(count) == 1))
    bytes = LLVMBuildMul(fc->b, bytes,
                         LLVMBuildZExtOrBitCast(fc->b, count, i64, ""), "");
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef s = LLVMInstructionClone(c);
    size_t n;
    const char *name = LLVMGetValueName2(inst, &n);
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s'ipa", (int)(n < 200 ? n : 200), name);
    LLVMInsertIntoBuilderWithName(fc->b, s, buf);
    /* A shadow allocation starts at zero: nothing has a derivative yet. */
    LLVMBuildMemSet(fc->b, s, LLVMConstInt(LLVMInt8TypeInContext(fc->mc->llctx), 0, 0),
                    bytes, LLVMGetAlignment(inst));
    lanes[lane] = s;
  }
  ad_set_shadow(fc, inst, ad_pack(fc, LLVMTypeOf(inst), lanes));
  return 0;
}

int ad_fwd_into_unread_constant(ad_fn_ctx *fc, LLVMValueRef p) {
  return fc->sig && fc->sig->direct &&
         ad_points_into_unread_constant(fc->mc, fc->sig->fn,
                                        fc->sig->activity, fc->sig->nparams,
                                        p);
}

static int emit_store(ad_fn_ctx *fc, LLVMValueRef inst, LLVMValueRef c) {
  LLVMValueRef v = LLVMGetOperand(inst, 0), p = LLVMGetOperand(inst, 1);
  if (ad_shadow_or_null(fc, p)) {
    /* a float constant written as its bits: its tangent is zero, where an
     * integer constant would stand for itself (an address kept as an
     * integer: a frontend's type tag; ad_types_stores_no_address says
     * which constants cannot be one) */
    int float_bits =
        ad_types_stores_float_constant(fc->types, fc->mc->td, inst) ||
        ad_types_stores_no_address(fc->types, fc->mc->td, inst);
    /* the constant is shared by every use: its zero tangent holds for
     * this store only, and what it had before comes back after */
    LLVMValueRef before = float_bits ? ad_map_get(&fc->shadow, v) : NULL;
    if (float_bits)
      ad_set_shadow(fc, v, ad_splat(fc, LLVMConstNull(LLVMTypeOf(v))));
    if (ad_shadow_may_equal_primal(fc, p))
      ad_guarded_access(fc, inst, c);
    else
      ad_lanewise(fc, inst, c, op01, 2);
    if (float_bits && ad_map_put(&fc->shadow, v, before) != 0)
      return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    return 0;
  }
  if (ad_is_active(fc, v) && ad_type_can_carry(LLVMTypeOf(v)) &&
      !ad_fwd_into_unread_constant(fc, p)) {
    LLVMValueRef root = ad_pointer_root(p);
    if (LLVMIsAGlobalVariable(root))
      return ad_fail(fc->mc, inst,
                     "store of an active value into global @%s, which has no "
                     "shadow (%s)",
                     ad_value_name(root), ad_global_no_shadow_why(root));
    LLVMValueRef from = LLVMIsACallInst(root) ? ad_called_function(root) : NULL;
    if (from && strcmp(ad_value_name(from), "__cxa_allocate_exception") == 0)
      return ad_fail(fc->mc, inst,
                     "an active value is thrown as a C++ exception (stored "
                     "into __cxa_allocate_exception's object): a thrown "
                     "value carries no derivative to its handler; throw an "
                     "inactive value and compute the active one in the "
                     "handler");
    char *t = ad_value_text(inst);
    int rc = ad_fail(fc->mc, inst,
                     "store of an active value through a pointer with no shadow "
                     "(a constant argument whose memory the derivative or its "
                     "caller may read back, or unknown memory): %s",
                     t ? t : "");
    free(t);
    return rc;
  }
  return 0;
}

static int emit_atomicrmw(ad_fn_ctx *fc, LLVMValueRef inst, LLVMValueRef c) {
  LLVMValueRef p = LLVMGetOperand(inst, 0), v = LLVMGetOperand(inst, 1);
  if (!ad_shadow_or_null(fc, p)) {
    if (ad_is_active(fc, v) && ad_type_can_carry(LLVMTypeOf(v)))
      return ad_fail(fc->mc, inst,
                     "atomicrmw of an active value through a pointer with no "
                     "shadow");
    return 0;
  }
  switch (LLVMGetAtomicRMWBinOp(inst)) {
  case LLVMAtomicRMWBinOpFAdd: /* d(*p += v) = (*dp += dv): linear */
  case LLVMAtomicRMWBinOpFSub:
  case LLVMAtomicRMWBinOpXchg:
  case LLVMAtomicRMWBinOpAdd:
  case LLVMAtomicRMWBinOpSub:
    break;
  default:
    if (ad_type_is_float(LLVMTypeOf(v))) {
      char *t = ad_value_text(inst);
      int rc = ad_fail(fc->mc, inst,
                       "no forward-mode rule for atomicrmw operation: %s",
                       t ? t : "");
      free(t);
      return rc;
    }
    /* integer min/max/and/or on shadow memory: apply to the shadow too */
    break;
  }
  /* the scratch slot absorbs the update where the memory is inactive */
  LLVMValueRef s = ad_lanewise_guarded(fc, inst, c, op01, 2, 0, LLVMTypeOf(v),
                                       AD_ACCESS_UPDATE);
  if (ad_is_active(fc, inst))
    ad_set_shadow(fc, inst, s);
  return 0;
}

/* An atomic update reads the primal it updates: none exists in
 * enzyme_dupnoneed memory (tangent/unneeded.c drops plain stores). */
static int unneeded_update(ad_fn_ctx *fc, LLVMValueRef inst) {
  char *t = ad_value_text(inst);
  int rc = ad_fail(fc->mc, inst,
                   "atomic update of enzyme_dupnoneed memory in the derivative "
                   "of %s: it reads the primal memory, which the caller did "
                   "not pass (dupnoneed); pass the argument as enzyme_dup: %s",
                   ad_value_name(fc->primal_fn), t ? t : "?");
  free(t);
  return rc;
}

static int unsupported(ad_fn_ctx *fc, LLVMValueRef inst) {
  char *t = ad_value_text(inst);
  int rc = ad_fail(fc->mc, inst,
                   "no forward-mode rule for instruction `%s` (in the body of "
                   "%s)",
                   t ? t : "?", ad_value_name(fc->primal_fn));
  free(t);
  return rc;
}

int ad_emit_instruction(ad_fn_ctx *fc, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  ad_opclass cls = ad_opcode_class(op);
  LLVMValueRef c;
  if (ad_opclass_has_no_tangent(cls))
    return ad_clone(fc, inst) ? 0 : -1;
  if (ad_opclass_is_int_arith(cls) || op == LLVMInsertValue ||
      op == LLVMInsertElement || op == LLVMShuffleVector) {
    /* integer ops only carry a shadow integer (a pointer in disguise);
     * aggregate and vector element moves are linear */
    if (!(c = ad_clone(fc, inst)))
      return -1;
    if (ad_is_active(fc, inst))
      ad_set_shadow(fc, inst, ad_lanewise(fc, inst, c, op01, 2));
    return 0;
  }
  switch (op) {
  case LLVMRet:
    return emit_ret(fc, inst);
  case LLVMFAdd:
  case LLVMFSub:
  case LLVMFMul:
  case LLVMFDiv:
  case LLVMFRem:
  case LLVMFNeg:
    if (!(c = ad_clone(fc, inst)))
      return -1;
    return ad_is_active(fc, inst) ? emit_float_arith(fc, inst, c) : 0;
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMFPTrunc:
  case LLVMFPExt:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMFreeze:
  case LLVMGetElementPtr:
  case LLVMExtractValue:
  case LLVMExtractElement:
  case LLVMLoad:
    if (!(c = ad_clone(fc, inst)))
      return -1;
    if (op == LLVMLoad &&
        ad_points_only_into_unneeded(fc, LLVMGetOperand(inst, 0)) &&
        ad_note_unneeded_load(fc, inst, c) != 0)
      return -1;
    if (ad_is_active(fc, inst)) {
      LLVMValueRef p = op == LLVMLoad ? LLVMGetOperand(inst, 0) : NULL;
      if (p && !ad_shadow_or_null(fc, p))
        return 0;
      if (p && ad_shadow_may_equal_primal(fc, p))
        ad_set_shadow(fc, inst, ad_guarded_access(fc, inst, c));
      else if (p && plain_float_load(inst) &&
               (!ad_engine_fast_derivatives(fc->mc->engine) ||
                in_block_carrying_float(inst)))
        ad_set_shadow(fc, inst, shadow_load_first(fc, inst, c));
      else
        ad_set_shadow(fc, inst, ad_lanewise(fc, inst, c, op0, 1));
      if (p)
        ad_emit_global_shadow_check(fc, inst, c, ad_shadow_or_null(fc, inst));
    }
    return 0;
  case LLVMSelect:
    if (!(c = ad_clone(fc, inst)))
      return -1;
    if (ad_is_active(fc, inst))
      ad_set_shadow(fc, inst, ad_lanewise(fc, inst, c, op12, 2));
    return 0;
  case LLVMAlloca:
    if (!(c = ad_clone(fc, inst)))
      return -1;
    return ad_is_active(fc, inst) ? emit_alloca(fc, inst, c) : 0;
  case LLVMStore:
    if (!(c = ad_clone(fc, inst)) || emit_store(fc, inst, c) != 0)
      return -1;
    if (ad_points_only_into_unneeded(fc, LLVMGetOperand(inst, 1)))
      ad_drop_unneeded_clone(fc, inst, c);
    return 0;
  case LLVMAtomicRMW:
    if (ad_points_only_into_unneeded(fc, LLVMGetOperand(inst, 0)))
      return unneeded_update(fc, inst);
    if (!(c = ad_clone(fc, inst)))
      return -1;
    return emit_atomicrmw(fc, inst, c);
  case LLVMAtomicCmpXchg:
    if (ad_points_only_into_unneeded(fc, LLVMGetOperand(inst, 0)))
      return unneeded_update(fc, inst);
    if (ad_shadow_or_null(fc, LLVMGetOperand(inst, 0)))
      return unsupported(fc, inst);
    return ad_clone(fc, inst) ? 0 : -1;
  default:
    return unsupported(fc, inst);
  }
}
