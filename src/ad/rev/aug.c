/*
 * The augmented forward body: the primal, cloned block by block in
 * reverse post-order, with the shadows of pointers (and of integers that
 * may hold one) computed as forward mode computes them, so the reverse
 * knows where each value's adjoint lives in memory.  Float values get no
 * tangent here and shadow memory holding floats is never written: in
 * reverse mode a shadow holds the adjoint the caller seeded, consumed by
 * the reverse of the stores.  Pointer stores store the pointer's shadow
 * into shadow memory, so linked structures keep their shadows.  An active
 * alloca's shadow lives on the heap (calloc), since it must outlive the
 * aug until the reverse frees it.  The records for the tape are added
 * once the reverse body knows what each block needs (tape.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/analysis/globals.h"
#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

static const unsigned op0[] = {0}, op01[] = {0, 1}, op12[] = {1, 2};

void ad_rev_leaves(LLVMTypeRef t, int *has_float, int *has_other) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(t);
    for (unsigned i = 0; i < n; i++)
      ad_rev_leaves(LLVMStructGetTypeAtIndex(t, i), has_float, has_other);
    return;
  }
  case LLVMArrayTypeKind:
  case LLVMVectorTypeKind:
    ad_rev_leaves(LLVMGetElementType(t), has_float, has_other);
    return;
  case LLVMVoidTypeKind:
    return;
  default:
    if (ad_type_is_float_scalar(t))
      *has_float = 1;
    else
      *has_other = 1;
  }
}

LLVMTypeRef ad_rev_bits_float(ad_module_ctx *mc, LLVMTypeRef t) {
  int vector = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
  LLVMTypeRef el = vector ? LLVMGetElementType(t) : t;
  if (LLVMGetTypeKind(el) != LLVMIntegerTypeKind)
    return t;
  LLVMContextRef c = mc->llctx;
  unsigned bits = LLVMGetIntTypeWidth(el);
  LLVMTypeRef f = bits == 16   ? LLVMHalfTypeInContext(c)
                  : bits == 32 ? LLVMFloatTypeInContext(c)
                  : bits == 64 ? LLVMDoubleTypeInContext(c)
                               : NULL;
  if (!f)
    return t;
  return vector ? LLVMVectorType(f, LLVMGetVectorSize(t)) : f;
}

/* The float type whose bits integer v holds by type analysis (one float
 * of the integer's width, per lane of a vector), or NULL. */
static LLVMTypeRef float_of_bits(ad_rev_fn *r, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  int vector = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
  LLVMTypeRef el = vector ? LLVMGetElementType(t) : t;
  unsigned bits = 0;
  if (LLVMGetTypeKind(el) != LLVMIntegerTypeKind || !r->fc.types ||
      ad_types_kind(r->fc.types, v, -1, &bits) != AD_T_FLOAT ||
      bits != LLVMGetIntTypeWidth(el))
    return NULL;
  LLVMTypeRef f = ad_rev_bits_float(r->mc, t);
  return f != t ? f : NULL;
}

LLVMTypeRef ad_rev_adjoint_type(ad_rev_fn *r, LLVMValueRef v) {
  LLVMTypeRef f = float_of_bits(r, v);
  return f ? f : LLVMTypeOf(v);
}

int ad_rev_has_adjoint(ad_rev_fn *r, LLVMValueRef v) {
  if (!v || !ad_is_active(&r->fc, v))
    return 0;
  int f = 0, o = 0;
  ad_rev_leaves(LLVMTypeOf(v), &f, &o);
  return f || float_of_bits(r, v) != NULL;
}

/* Active and holding pointers or integers: it gets a shadow value here
 * (float bits in an integer get an adjoint instead). */
static int needs_shadow(ad_rev_fn *r, LLVMValueRef v) {
  if (!ad_is_active(&r->fc, v) || float_of_bits(r, v))
    return 0;
  int f = 0, o = 0;
  ad_rev_leaves(LLVMTypeOf(v), &f, &o);
  return o;
}

static int fail_inst(ad_rev_fn *r, LLVMValueRef inst, const char *what) {
  char *t = ad_value_text(inst);
  int rc = ad_fail_code(r->mc, TANJIT_ERR_UNSUPPORTED, inst,
                        "reverse mode: %s: `%s`", what, t ? t : "?");
  free(t);
  return rc;
}

/* An integer the type analysis says holds float bits that are not one
 * float of its width (two floats in an i64): its adjoint would need
 * splitting, which reverse mode does not do. */
static int float_bits_in_integer(ad_rev_fn *r, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || !ad_is_active(&r->fc, v) ||
      !r->fc.types)
    return 0;
  return ad_types_kind(r->fc.types, v, -1, NULL) == AD_T_FLOAT &&
         !float_of_bits(r, v);
}

/* Integers, vectors of integers, and aggregates made only of them. */
static int integer_based(LLVMTypeRef t) {
  int f = 0, o = 0;
  ad_rev_leaves(t, &f, &o);
  return o && !f && !ad_type_is_pointerish(t) &&
         LLVMGetTypeKind(t) != LLVMStructTypeKind;
}

/*
 * Float bits moved through integers (a bitcast to i64, a union, memcpy
 * into an integer, selects and PHIs of them) carry the float's adjoint, as
 * in Enzyme (ad_rev_adjoint_type); integer arithmetic on them is refused
 * by activity analysis.  Bits that are not one float of the integer's
 * width, or bytes used both ways, are refused here rather than given a
 * gradient that silently drops them.  Integers that may hold pointers keep
 * shadows as in forward mode; ones known to be plain integers are never
 * active.
 */
static int check_integer(ad_rev_fn *r, LLVMValueRef v) {
  if (!r->fc.types || !integer_based(LLVMTypeOf(v)) ||
      !ad_is_active(&r->fc, v) || float_of_bits(r, v))
    return 0;
  ad_tkind k = ad_types_kind(r->fc.types, v, -1, NULL);
  if (k != AD_T_FLOAT && k != AD_T_CONFLICT)
    return 0;
  if (LLVMIsAArgument(v))
    return ad_fail_code(r->mc, TANJIT_ERR_UNSUPPORTED, r->sig->fn,
                        "reverse mode: parameter %s of %s is an integer "
                        "holding float bits, which reverse mode does not "
                        "differentiate",
                        ad_value_name(v), ad_value_name(r->sig->fn));
  return fail_inst(r, v,
                   "an integer holding float bits (a float reinterpreted "
                   "as an integer: a cast, a union, memcpy) is not "
                   "differentiated in reverse mode");
}

/*
 * An active float stored through a pointer whose shadow is, at run time,
 * the pointer itself (memory reverse mode could not give a shadow: a
 * pointer from an indirect call, a constant argument mixed in): its
 * adjoint would be lost, so the program traps there rather than return a
 * wrong gradient.  (No run-time report: its host addresses, baked into
 * the code, would be stale in an object reused from the persistent cache.)
 */
static void trap_if_same(ad_rev_fn *r, LLVMValueRef p) {
  ad_fn_ctx *fc = &r->fc;
  LLVMContextRef c = r->mc->llctx;
  LLVMValueRef same = LLVMBuildICmp(fc->b, LLVMIntEQ, ad_primal(fc, p),
                                    ad_shadow_value(fc, p), "");
  LLVMValueRef fn = fc->deriv_fn;
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(c, fn, "no.shadow");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "has.shadow");
  LLVMBuildCondBr(fc->b, same, bad, ok);
  LLVMPositionBuilderAtEnd(fc->b, bad);
  ad_call_intrinsic(fc, "llvm.trap", NULL, 0, NULL, 0);
  LLVMBuildUnreachable(fc->b);
  LLVMPositionBuilderAtEnd(fc->b, ok);
}

int ad_rev_into_unread_constant(ad_rev_fn *r, LLVMValueRef p) {
  return r->sig->back_to_back &&
         ad_points_into_unread_constant(r->mc, r->sig->fn, r->sig->activity,
                                        r->sig->nparams, p);
}

static int aug_store(ad_rev_fn *r, LLVMValueRef inst, LLVMValueRef c) {
  ad_fn_ctx *fc = &r->fc;
  LLVMValueRef v = LLVMGetOperand(inst, 0), p = LLVMGetOperand(inst, 1);
  int f = 0, o = 0;
  ad_rev_leaves(LLVMTypeOf(v), &f, &o);
  if (float_of_bits(r, v) ||
      ad_types_stores_float_constant(fc->types, r->mc->td, inst))
    f = 1, o = 0; /* stored as the float it holds: its adjoint, later */
  if (f && ad_is_active(fc, v) && ad_shadow_or_null(fc, p) &&
      ad_shadow_may_equal_primal(fc, p))
    trap_if_same(r, p);
  if (float_bits_in_integer(r, v))
    return fail_inst(r, inst,
                     "a store of an integer holding float bits (a copy "
                     "through integers) is not supported");
  if (ad_shadow_or_null(fc, p)) {
    if (f && o && ad_is_active(fc, v))
      return fail_inst(r, inst,
                       "a store of an aggregate mixing floats and pointers "
                       "is not supported");
    if (o && !f) {
      if (ad_shadow_may_equal_primal(fc, p))
        ad_guarded_access(fc, inst, c);
      else
        ad_lanewise(fc, inst, c, op01, 2);
    }
    return 0;
  }
  if (ad_is_active(fc, v) && ad_type_can_carry(LLVMTypeOf(v)) &&
      !ad_rev_into_unread_constant(r, p)) {
    LLVMValueRef g = ad_pointer_root(p);
    if (LLVMIsAGlobalVariable(g)) {
      char *t = ad_value_text(inst);
      int rc = ad_fail_code(r->mc, TANJIT_ERR_UNSUPPORTED, inst,
                            "reverse mode: a store of an active value into "
                            "global @%s, which has no shadow (%s): `%s`",
                            ad_value_name(g), ad_global_no_shadow_why(g),
                            t ? t + strspn(t, " ") : "?");
      free(t);
      return rc;
    }
    return fail_inst(r, inst,
                     "a store of an active value through a pointer with no "
                     "shadow (a constant argument whose memory the gradient "
                     "may read back, or unknown memory)");
  }
  return 0;
}

/* An atomic update of integer bytes in memory with a shadow (a
 * shared_ptr's reference count beside the object make_shared put in the
 * same block) by an inactive integer: no adjoint, as Enzyme's constant
 * instruction (all the bytes integral); the shadow's bytes follow the
 * primal's, as an integer store's do (aug_store), the update absorbed
 * where the shadow may be the primal memory itself.  (An integer update
 * of a float's bits would be bit arithmetic, which no program does
 * atomically: std::atomic<double> adds with fadd or a compare-exchange.) */
static int integer_update(ad_rev_fn *r, LLVMValueRef inst) {
  ad_fn_ctx *fc = &r->fc;
  LLVMValueRef p = LLVMGetOperand(inst, 0), v = LLVMGetOperand(inst, 1);
  /* whatever type analysis says of the bytes, as forward mode takes it
   * (rules/inst.c): in a forward derivative's block the counts may read
   * as float, the context-insensitive facts of the object beside them */
  return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMIntegerTypeKind &&
         ad_shadow_or_null(fc, p) && !ad_is_active(fc, v);
}

static int aug_integer_update(ad_rev_fn *r, LLVMValueRef inst) {
  ad_fn_ctx *fc = &r->fc;
  LLVMValueRef c = ad_clone(fc, inst);
  if (!c)
    return -1;
  LLVMValueRef s =
      ad_lanewise_guarded(fc, inst, c, op01, 2, 0,
                          LLVMTypeOf(LLVMGetOperand(inst, 1)), AD_ACCESS_UPDATE);
  if (ad_is_active(fc, inst))
    ad_set_shadow(fc, inst, s);
  return r->mc->diag.failed ? -1 : 0;
}

static int aug_alloca(ad_rev_fn *r, LLVMValueRef inst) {
  ad_fn_ctx *fc = &r->fc;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->mc->llctx);
  LLVMValueRef count = ad_primal(fc, LLVMGetOperand(inst, 0));
  LLVMValueRef bytes = LLVMConstInt(
      i64, LLVMABISizeOfType(r->mc->td, LLVMGetAllocatedType(inst)), 0);
  LLVMValueRef n = LLVMBuildZExtOrBitCast(fc->b, count, i64, "");
  /* memory.c's block: on the owned list, freed if an exception leaves aug */
  LLVMValueRef s = ad_rev_shadow_alloc(
      r, fc->b, LLVMConstInt(i64, LLVMGetAlignment(inst), 0),
      LLVMBuildMul(fc->b, n, bytes, ""));
  LLVMSetValueName2(s, "shadow.alloca", 13);
  ad_set_shadow(fc, inst, s);
  return 0;
}

static int aug_instruction(ad_rev_fn *r, LLVMValueRef inst) {
  ad_fn_ctx *fc = &r->fc;
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  ad_opclass cls = ad_opcode_class(op);
  LLVMValueRef c;
  if (op == LLVMRet) {
    LLVMValueRef v = LLVMGetNumOperands(inst) ? LLVMGetOperand(inst, 0) : NULL;
    if (!v) {
      LLVMBuildRetVoid(fc->b);
    } else if (r->sig->ret_shadow) {
      LLVMTypeRef rt = LLVMGetReturnType(LLVMGlobalGetValueType(r->aug));
      LLVMValueRef agg = LLVMGetPoison(rt);
      agg = LLVMBuildInsertValue(fc->b, agg, ad_primal(fc, v), 0, "");
      agg = LLVMBuildInsertValue(fc->b, agg, ad_shadow_value(fc, v), 1, "");
      LLVMBuildRet(fc->b, agg);
    } else {
      LLVMBuildRet(fc->b, ad_primal(fc, v));
    }
    return 0;
  }
  if (ad_opclass_has_no_tangent(cls))
    return ad_clone(fc, inst) ? 0 : -1;
  if (ad_opclass_is_int_arith(cls) || op == LLVMInsertValue ||
      op == LLVMInsertElement || op == LLVMShuffleVector) {
    if (!(c = ad_clone(fc, inst)))
      return -1;
    if (needs_shadow(r, inst))
      ad_set_shadow(fc, inst, ad_lanewise(fc, inst, c, op01, 2));
    return 0;
  }
  switch (op) {
  case LLVMFAdd:
  case LLVMFSub:
  case LLVMFMul:
  case LLVMFDiv:
  case LLVMFRem:
  case LLVMFNeg:
    return ad_clone(fc, inst) ? 0 : -1;
  case LLVMLoad:
    if (!(c = ad_clone(fc, inst)))
      return -1;
    if (float_bits_in_integer(r, inst) &&
        ad_shadow_or_null(fc, LLVMGetOperand(inst, 0)))
      return fail_inst(r, inst,
                       "a load of float bits as an integer (a copy through "
                       "integers) is not supported");
    if (needs_shadow(r, inst) && ad_shadow_or_null(fc, LLVMGetOperand(inst, 0))) {
      if (ad_shadow_may_equal_primal(fc, LLVMGetOperand(inst, 0)))
        ad_set_shadow(fc, inst, ad_guarded_access(fc, inst, c));
      else
        ad_set_shadow(fc, inst, ad_lanewise(fc, inst, c, op0, 1));
      ad_emit_global_shadow_check(fc, inst, c, ad_shadow_or_null(fc, inst));
    }
    return 0;
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
    if (!(c = ad_clone(fc, inst)))
      return -1;
    if (needs_shadow(r, inst))
      ad_set_shadow(fc, inst, ad_lanewise(fc, inst, c, op0, 1));
    return 0;
  case LLVMSelect:
    if (!(c = ad_clone(fc, inst)))
      return -1;
    if (needs_shadow(r, inst))
      ad_set_shadow(fc, inst, ad_lanewise(fc, inst, c, op12, 2));
    return 0;
  case LLVMAlloca:
    if (!(c = ad_clone(fc, inst)))
      return -1;
    return ad_is_active(fc, inst) ? aug_alloca(r, inst) : 0;
  case LLVMStore:
    if (!(c = ad_clone(fc, inst)))
      return -1;
    return aug_store(r, inst, c);
  case LLVMAtomicRMW:
    if (ad_rev_atomic_is_linear(inst) &&
        ad_shadow_or_null(fc, LLVMGetOperand(inst, 0)))
      return ad_clone(fc, inst) ? 0 : -1; /* its reverse: adjoint.c */
    if (integer_update(r, inst))
      return aug_integer_update(r, inst);
    /* fall through */
  case LLVMAtomicCmpXchg:
    if (ad_shadow_or_null(fc, LLVMGetOperand(inst, 0)) ||
        ad_is_active(fc, inst) || ad_is_active(fc, LLVMGetOperand(inst, 1)))
      return fail_inst(r, inst, "atomic read-modify-write of active memory "
                                "or values, other than a float fadd/fsub "
                                "on memory with a shadow, is not "
                                "supported");
    return ad_clone(fc, inst) ? 0 : -1;
  case LLVMInvoke:
    return ad_rev_aug_invoke(r, inst); /* exceptions.c */
  case LLVMLandingPad:
    return ad_rev_aug_landing_pad(r, inst); /* exceptions.c */
  default:
    if (!ad_is_active(fc, inst)) {
      int any = 0;
      for (int k = 0; k < LLVMGetNumOperands(inst) && !any; k++)
        any = ad_is_active(fc, LLVMGetOperand(inst, (unsigned)k));
      if (!any && op != LLVMLandingPad && op != LLVMVAArg)
        return ad_clone(fc, inst) ? 0 : -1;
    }
    return fail_inst(r, inst, "no reverse-mode rule for this instruction");
  }
}

typedef struct pending_phi {
  LLVMValueRef primal, clone, shadow;
} pending_phi;

int ad_rev_build_aug(ad_rev_fn *r) {
  ad_fn_ctx *fc = &r->fc;
  ad_module_ctx *mc = r->mc;
  int rc = 0;
  pending_phi *phis = NULL;
  size_t nphis = 0, capphis = 0;
  for (size_t i = 0; i < r->nblocks && rc == 0; i++) {
    LLVMBasicBlockRef nb = LLVMAppendBasicBlockInContext(
        mc->llctx, r->aug, LLVMGetBasicBlockName(r->rpo[i]));
    if (ad_map_put(&fc->vmap, LLVMBasicBlockAsValue(r->rpo[i]),
                   LLVMBasicBlockAsValue(nb)) != 0)
      rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  }
  for (unsigned i = 0; i < r->sig->nparams && rc == 0; i++)
    rc = check_integer(r, LLVMGetParam(r->sig->fn, i));
  for (size_t i = 0; i < r->nblocks && rc == 0; i++) {
    LLVMBasicBlockRef nb = LLVMValueAsBasicBlock(
        ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(r->rpo[i])));
    LLVMPositionBuilderAtEnd(fc->b, nb);
    for (LLVMValueRef inst = LLVMGetFirstInstruction(r->rpo[i]);
         inst && rc == 0; inst = LLVMGetNextInstruction(inst)) {
      LLVMPositionBuilderAtEnd(fc->b, LLVMGetInsertBlock(fc->b));
      if ((rc = check_integer(r, inst)) != 0)
        break;
      if (LLVMIsAPHINode(inst)) {
        LLVMValueRef c = LLVMBuildPhi(fc->b, LLVMTypeOf(inst), "");
        ad_copy_fmf(c, inst);
        LLVMValueRef s = NULL;
        if (needs_shadow(r, inst)) {
          s = LLVMBuildPhi(fc->b, LLVMTypeOf(inst), "shadow");
          ad_set_shadow(fc, inst, s);
        }
        if (ad_map_put(&fc->vmap, inst, c) != 0 ||
            (nphis == capphis &&
             !(phis = tj_realloc(phis, (capphis = capphis ? 2 * capphis : 16) *
                                           sizeof *phis)))) {
          rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
          break;
        }
        phis[nphis++] = (pending_phi){inst, c, s};
      } else if (LLVMIsACallInst(inst)) {
        rc = ad_rev_aug_call(r, inst);
      } else {
        rc = aug_instruction(r, inst);
      }
      if (mc->diag.failed)
        rc = -1;
    }
    if (rc == 0 &&
        ad_map_put(&fc->exit_block, LLVMBasicBlockAsValue(r->rpo[i]),
                   LLVMBasicBlockAsValue(LLVMGetInsertBlock(fc->b))))
      rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  }
  if (rc == 0)
    rc = ad_rev_loops_split_aug(r);
  for (size_t i = 0; i < nphis && rc == 0; i++) {
    pending_phi *p = &phis[i];
    unsigned n = LLVMCountIncoming(p->primal);
    for (unsigned k = 0; k < n; k++) {
      LLVMBasicBlockRef from = LLVMGetIncomingBlock(p->primal, k);
      LLVMValueRef nb = ad_map_get(
          &fc->exit_block,
          ad_rev_edge_key(from, LLVMGetInstructionParent(p->primal)));
      if (!nb)
        continue;
      LLVMBasicBlockRef nbb = LLVMValueAsBasicBlock(nb);
      /* an exit edge of a counted loop has its own block (loops.c) */
      LLVMBasicBlockRef edge = ad_rev_loops_aug_edge(
          r, from, LLVMGetInstructionParent(p->primal));
      if (edge)
        nbb = edge;
      LLVMValueRef v = LLVMGetIncomingValue(p->primal, k);
      LLVMValueRef pv = ad_primal(fc, v);
      LLVMAddIncoming(p->clone, &pv, &nbb, 1);
      if (p->shadow) {
        LLVMPositionBuilderBefore(fc->b, LLVMGetBasicBlockTerminator(nbb));
        LLVMValueRef sv = ad_shadow_value(fc, v);
        LLVMAddIncoming(p->shadow, &sv, &nbb, 1);
      }
    }
  }
  free(phis);
  return mc->diag.failed ? -1 : rc;
}
