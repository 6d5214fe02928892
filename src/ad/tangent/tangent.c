/*
 * Shadows and lanes: how a derivative body reads and builds tangents.  With
 * width N > 1 a shadow of a scalar float T is a <N x T> (one element per
 * direction), so the arithmetic of tangents is one vector instruction and
 * a loop-carried tangent one vector PHI; any other T (pointers, integers,
 * aggregates, vectors, x86_fp80) is an [N x T].  The helpers here hide
 * that, so rules are written once for every width.  Requests keep the
 * array ABI (request.c converts at the boundary).
 */
#include <string.h>

#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/tangent/tangent.h"

LLVMValueRef ad_primal(ad_fn_ctx *fc, LLVMValueRef v) {
  LLVMValueRef m = ad_map_get(&fc->vmap, v);
  return m ? m : v;
}

/* The per-lane shadows of a constant, packed. */
static LLVMValueRef constant_shadow(ad_fn_ctx *fc, LLVMValueRef v) {
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++)
    lanes[lane] = ad_constant_shadow(fc->mc, v, lane);
  return ad_pack(fc, LLVMTypeOf(v), lanes);
}

LLVMValueRef ad_shadow_or_null(ad_fn_ctx *fc, LLVMValueRef v) {
  LLVMValueRef s = ad_map_get(&fc->shadow, v);
  if (s || !v || !LLVMIsConstant(v))
    return s;
  /* an active mutable global, or a constant expression over one */
  return ad_is_active(fc, v) ? constant_shadow(fc, v) : NULL;
}

void ad_set_shadow(ad_fn_ctx *fc, LLVMValueRef primal, LLVMValueRef shadow) {
  if (ad_map_put(&fc->shadow, primal, shadow) != 0)
    ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
}

/* Scalar floats a vector holds as well as an array: not x86_fp80, fp128
 * or ppc_fp128, whose vectors LLVM lays out and lowers poorly. */
static int lanes_as_vector(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
    return 1;
  default:
    return 0;
  }
}

LLVMTypeRef ad_lanes_type(LLVMTypeRef t, unsigned width) {
  if (width <= 1)
    return t;
  return lanes_as_vector(t) ? LLVMVectorType(t, width)
                            : LLVMArrayType2(t, width);
}

LLVMTypeRef ad_shadow_type(ad_fn_ctx *fc, LLVMTypeRef t) {
  return ad_lanes_type(t, fc->width);
}

/* Whether `shadow` (at width > 1) holds its lanes as vector elements. */
static int is_vector_of_lanes(LLVMValueRef shadow) {
  return LLVMGetTypeKind(LLVMTypeOf(shadow)) == LLVMVectorTypeKind;
}

static LLVMValueRef lane_index(LLVMContextRef c, unsigned lane) {
  return LLVMConstInt(LLVMInt32TypeInContext(c), lane, 0);
}

LLVMValueRef ad_lane(ad_fn_ctx *fc, LLVMValueRef shadow, unsigned lane) {
  if (fc->width == 1)
    return shadow;
  if (LLVMIsConstant(shadow) && (LLVMIsNull(shadow) || LLVMIsUndef(shadow)))
    return LLVMIsNull(shadow)
               ? LLVMConstNull(LLVMGetElementType(LLVMTypeOf(shadow)))
               : LLVMGetUndef(LLVMGetElementType(LLVMTypeOf(shadow)));
  if (is_vector_of_lanes(shadow))
    return LLVMBuildExtractElement(fc->b, shadow,
                                   lane_index(fc->mc->llctx, lane), "");
  return LLVMBuildExtractValue(fc->b, shadow, lane, "");
}

/* The vector whose lanes are lanes[0..width), when each lane i is element
 * i of it (a lane-wise rule that only moved lanes), else NULL. */
static LLVMValueRef lanes_source(LLVMTypeRef vt, LLVMValueRef *lanes,
                                 unsigned width) {
  LLVMValueRef src = NULL;
  for (unsigned i = 0; i < width; i++) {
    LLVMValueRef e = lanes[i];
    if (!LLVMIsAExtractElementInst(e))
      return NULL;
    LLVMValueRef v = LLVMGetOperand(e, 0), idx = LLVMGetOperand(e, 1);
    if ((src && v != src) || LLVMTypeOf(v) != vt ||
        !LLVMIsAConstantInt(idx) || LLVMConstIntGetZExtValue(idx) != i)
      return NULL;
    src = v;
  }
  return src;
}

LLVMValueRef ad_pack_lanes(LLVMBuilderRef b, LLVMTypeRef t, unsigned width,
                           LLVMValueRef *lanes) {
  if (width == 1)
    return lanes[0];
  LLVMTypeRef st = ad_lanes_type(t, width);
  if (LLVMGetTypeKind(st) == LLVMVectorTypeKind) {
    LLVMValueRef same = lanes_source(st, lanes, width);
    if (same)
      return same;
    LLVMContextRef c = LLVMGetTypeContext(t);
    LLVMValueRef vec = LLVMGetPoison(st);
    for (unsigned i = 0; i < width; i++)
      vec = LLVMBuildInsertElement(b, vec, lanes[i], lane_index(c, i), "");
    return vec;
  }
  LLVMValueRef agg = LLVMGetPoison(st);
  for (unsigned i = 0; i < width; i++)
    agg = LLVMBuildInsertValue(b, agg, lanes[i], i, "");
  return agg;
}

LLVMValueRef ad_lanes_to_array(LLVMBuilderRef b, LLVMValueRef v) {
  LLVMTypeRef vt = LLVMTypeOf(v);
  if (LLVMGetTypeKind(vt) != LLVMVectorTypeKind)
    return v;
  LLVMContextRef c = LLVMGetTypeContext(vt);
  unsigned n = LLVMGetVectorSize(vt);
  LLVMValueRef agg = LLVMGetPoison(LLVMArrayType2(LLVMGetElementType(vt), n));
  for (unsigned i = 0; i < n; i++)
    agg = LLVMBuildInsertValue(
        b, agg, LLVMBuildExtractElement(b, v, lane_index(c, i), ""), i, "");
  return agg;
}

LLVMValueRef ad_pack(ad_fn_ctx *fc, LLVMTypeRef t, LLVMValueRef *lanes) {
  return ad_pack_lanes(fc->b, t, fc->width, lanes);
}

/* v in every element of vector type vt: a constant, or an insert and a
 * shuffle (LLVM's splat idiom). */
static LLVMValueRef splat_vector(ad_fn_ctx *fc, LLVMTypeRef vt, LLVMValueRef v) {
  unsigned n = LLVMGetVectorSize(vt);
  if (LLVMIsConstant(v)) {
    LLVMValueRef lanes[AD_MAX_WIDTH];
    for (unsigned i = 0; i < n && i < AD_MAX_WIDTH; i++)
      lanes[i] = v;
    return LLVMConstVector(lanes, n);
  }
  LLVMTypeRef i32 = LLVMInt32TypeInContext(fc->mc->llctx);
  LLVMValueRef one = LLVMBuildInsertElement(fc->b, LLVMGetPoison(vt), v,
                                            LLVMConstInt(i32, 0, 0), "");
  return LLVMBuildShuffleVector(fc->b, one, LLVMGetPoison(vt),
                                LLVMConstNull(LLVMVectorType(i32, n)), "");
}

LLVMValueRef ad_splat(ad_fn_ctx *fc, LLVMValueRef v) {
  LLVMValueRef lanes[AD_MAX_WIDTH];
  if (fc->width == 1)
    return v;
  LLVMTypeRef st = ad_shadow_type(fc, LLVMTypeOf(v));
  if (LLVMGetTypeKind(st) == LLVMVectorTypeKind)
    return splat_vector(fc, st, v);
  for (unsigned i = 0; i < fc->width && i < AD_MAX_WIDTH; i++)
    lanes[i] = v;
  return ad_pack(fc, LLVMTypeOf(v), lanes);
}

LLVMValueRef ad_shadow_value(ad_fn_ctx *fc, LLVMValueRef v) {
  LLVMValueRef s = ad_shadow_or_null(fc, v);
  if (s)
    return s;
  LLVMTypeRef t = LLVMTypeOf(v);
  if (ad_type_is_float(t))
    return LLVMConstNull(ad_shadow_type(fc, t));
  if (LLVMIsUndef(v) || LLVMIsAConstantPointerNull(v))
    return ad_splat(fc, v);
  if (LLVMIsConstant(v))
    return constant_shadow(fc, v);
  /* Inactive ints and pointers stand for themselves (Enzyme's convention
   * for constant pointers); their memory is never given a tangent. */
  return ad_splat(fc, ad_primal(fc, v));
}

static int may_equal_walk(ad_fn_ctx *fc, LLVMValueRef v, ad_map *seen,
                          int depth);

/* A slot's stored value, walked as may_equal_walk walks (the slot's
 * frame is the function's own). */
typedef struct slot_visit {
  ad_fn_ctx *fc;
  ad_map *seen;
  int depth;
} slot_visit;

static int stored_may_equal(void *ctx, LLVMValueRef v) {
  slot_visit *sv = ctx;
  return may_equal_walk(sv->fc, v, sv->seen, sv->depth + 1);
}

/* Whether a local slot may hold a pointer whose shadow is itself: one of
 * the values stored into it may, or its address goes where stores cannot
 * be seen (a call, memory). */
static int slot_may_hold_primal(ad_fn_ctx *fc, LLVMValueRef addr, ad_map *seen,
                                int depth) {
  slot_visit sv = {fc, seen, depth};
  return depth > 64 || ad_slot_stores_any(addr, stored_may_equal, &sv);
}

/* See ad_shadow_may_equal_primal; `seen` ends cycles through loop PHIs. */
static int may_equal_walk(ad_fn_ctx *fc, LLVMValueRef v, ad_map *seen,
                          int depth) {
  if (!v || depth > 64 || ad_map_get(seen, v))
    return 0;
  if (ad_map_put(seen, v, (void *)1) != 0)
    return 1;
  if (LLVMIsUndef(v) || LLVMIsAConstantPointerNull(v))
    return 0; /* nothing valid to store through */
  if (LLVMIsConstant(v)) /* an inactive mutable global stands for itself */
    return ad_constant_is_own_shadow(fc->mc, v);
  /* inactive: no shadow of its own, the primal stands in (an active value
   * defined later, across a loop's back edge, gets its shadow then).
   * Activity alone decides, not the shadows recorded so far, so that a
   * callee's signature (fwd/call.c) is a function of activity. */
  if (!ad_is_active(fc, v))
    return 1;
  if (LLVMIsAArgument(v)) /* duplicated: its own shadow, unless the caller
                            * could not promise that */
    for (unsigned i = 0; i < fc->sig->nparams; i++)
      if (LLVMGetParam(fc->primal_fn, i) == v)
        return fc->sig->activity[i] == AD_ARG_DUP_RUNTIME;
  if (!LLVMIsAInstruction(v))
    return 0;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMGetElementPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMFreeze:
    return may_equal_walk(fc, LLVMGetOperand(v, 0), seen, depth + 1);
  case LLVMSelect:
    return may_equal_walk(fc, LLVMGetOperand(v, 1), seen, depth + 1) ||
           may_equal_walk(fc, LLVMGetOperand(v, 2), seen, depth + 1);
  case LLVMPHI:
    for (unsigned k = 0; k < LLVMCountIncoming(v); k++)
      if (may_equal_walk(fc, LLVMGetIncomingValue(v, k), seen, depth + 1))
        return 1;
    return 0;
  case LLVMExtractValue:
  case LLVMExtractElement:
    return may_equal_walk(fc, LLVMGetOperand(v, 0), seen, depth + 1);
  case LLVMInsertValue:
  case LLVMInsertElement:
  case LLVMShuffleVector:
    /* the aggregate or vector, and what was put in it */
    return may_equal_walk(fc, LLVMGetOperand(v, 0), seen, depth + 1) ||
           may_equal_walk(fc, LLVMGetOperand(v, 1), seen, depth + 1);
  case LLVMLoad: {
    /* a local slot holds what was stored into it (a parameter spilled at
     * -O0): its shadow slot holds their shadows */
    LLVMValueRef slot = ad_strip_casts(LLVMGetOperand(v, 0),
                                       AD_STRIP_GEPS | AD_STRIP_INSTRUCTIONS);
    if (LLVMIsAAllocaInst(slot))
      return slot_may_hold_primal(fc, slot, seen, depth + 1);
    return 1;
  }
  case LLVMAtomicRMW:
  case LLVMIntToPtr:
    /* Read from memory: an inactive pointer stored into shadowed memory (an
     * enzyme_const array kept next to active ones, a constant table) stands
     * for itself in the shadow memory too. */
    return 1;
  case LLVMCall:
  case LLVMInvoke: {
    /* A fresh allocation has a shadow of its own; a derivative may return
     * an inactive pointer as its own shadow. */
    const ad_call_rule *r = ad_rule_of_call(fc->mc, v);
    return !(r && r->returns_allocation);
  }
  default:
    return 0; /* allocas: a shadow of their own */
  }
}

int ad_shadow_param_may_be_primal(ad_fn_ctx *fc, LLVMValueRef shadow) {
  for (unsigned i = 0; i < fc->sig->nparams; i++)
    if (fc->sig->activity[i] == AD_ARG_DUP_RUNTIME &&
        ad_shadow_or_null(fc, LLVMGetParam(fc->primal_fn, i)) == shadow)
      return 1;
  return 0;
}

int ad_shadow_may_equal_primal(ad_fn_ctx *fc, LLVMValueRef p) {
  ad_map seen;
  ad_map_init(&seen);
  int r = may_equal_walk(fc, p, &seen, 0);
  ad_map_free(&seen);
  return r;
}

LLVMValueRef ad_const_fp(LLVMTypeRef t, double v) {
  return LLVMConstReal(t, v); /* a splat for vector types, any length */
}

/* mantissa / x is 2^-e exactly (a power of two, correctly rounded), and 1
 * at x = 0, where frexp gives e = 0.  Not ldexp(1, -e) of frexp's exponent:
 * once vectorized, that pair crashes LLVM 22's x86 instruction selection
 * (SimplifyDemandedVectorElts). */
LLVMValueRef ad_frexp_inverse_scale(LLVMBuilderRef b, LLVMValueRef x,
                                    LLVMValueRef mantissa) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef zero = LLVMBuildFCmp(b, LLVMRealOEQ, x, LLVMConstNull(t), "");
  LLVMValueRef q = LLVMBuildFDiv(b, mantissa, x, "");
  return LLVMBuildSelect(b, zero, ad_const_fp(t, 1.0), q, "frexp.scale");
}

void ad_copy_fmf(LLVMValueRef to, LLVMValueRef from) {
  if (!to || !from || !LLVMIsAInstruction(to) || !LLVMIsAInstruction(from))
    return;
  if (LLVMCanValueUseFastMathFlags(from) && LLVMCanValueUseFastMathFlags(to))
    LLVMSetFastMathFlags(to, LLVMGetFastMathFlags(from));
}

/* Reassociation (with nsz, which LLVM's reassociation and factoring of
 * floating point ask for besides reassoc) is what lets LLVM rewrite a Horner
 * tangent x dacc + acc dx into dx p'(x) and keep the tangent of a stencil
 * as scalar sums; contract lets a product and a sum fuse where the target
 * has FMA.  Nothing else: nnan, ninf and arcp would let LLVM assume what
 * tangents do not promise (an inf or NaN tangent is an answer). */
#define FAST_DERIVATIVE_FMF                                                    \
  (LLVMFastMathAllowReassoc | LLVMFastMathNoSignedZeros |                     \
   LLVMFastMathAllowContract)

void ad_tangent_fmf(ad_fn_ctx *fc, LLVMValueRef to, LLVMValueRef from) {
  if (!to || !LLVMIsAInstruction(to) || !LLVMCanValueUseFastMathFlags(to))
    return;
  LLVMFastMathFlags f = LLVMFastMathNone;
  if (from && LLVMIsAInstruction(from) && LLVMCanValueUseFastMathFlags(from))
    f = LLVMGetFastMathFlags(from);
  if (ad_engine_fast_derivatives(fc->mc->engine))
    f |= FAST_DERIVATIVE_FMF;
  if (f != LLVMGetFastMathFlags(to))
    LLVMSetFastMathFlags(to, f);
}

static int term_is_zero(const ad_term *term) {
  return !term->tangent ||
         (LLVMIsConstant(term->tangent) && LLVMIsNull(term->tangent));
}

LLVMValueRef ad_lincomb(ad_fn_ctx *fc, LLVMTypeRef t, const ad_term *terms,
                        unsigned nterms, LLVMValueRef divisor,
                        LLVMValueRef fmf_src) {
  LLVMValueRef lanes[AD_MAX_WIDTH];
  int any = 0;
  for (unsigned k = 0; k < nterms; k++)
    if (!term_is_zero(&terms[k]))
      any = 1;
  if (!any)
    return LLVMConstNull(ad_shadow_type(fc, t));
  LLVMTypeRef st = ad_shadow_type(fc, t);
  int whole = fc->width > 1 && LLVMGetTypeKind(st) == LLVMVectorTypeKind;
  for (unsigned k = 0; k < nterms && whole; k++)
    if (!term_is_zero(&terms[k]) && LLVMTypeOf(terms[k].tangent) != st)
      whole = 0;
  /* lanes as vector elements: every direction in one instruction, the
   * primal coefficients splat */
  for (unsigned lane = 0; lane < (whole ? 1 : fc->width); lane++) {
    LLVMValueRef acc = NULL;
    for (unsigned k = 0; k < nterms; k++) {
      if (term_is_zero(&terms[k]))
        continue;
      LLVMValueRef d =
          whole ? terms[k].tangent : ad_lane(fc, terms[k].tangent, lane);
      if (terms[k].coef) {
        LLVMValueRef coef =
            whole ? splat_vector(fc, st, terms[k].coef) : terms[k].coef;
        d = LLVMBuildFMul(fc->b, coef, d, "");
        ad_tangent_fmf(fc, d, fmf_src);
      }
      if (!acc) {
        acc = terms[k].negate ? LLVMBuildFNeg(fc->b, d, "") : d;
        if (terms[k].negate)
          ad_tangent_fmf(fc, acc, fmf_src);
      } else {
        acc = terms[k].negate ? LLVMBuildFSub(fc->b, acc, d, "")
                              : LLVMBuildFAdd(fc->b, acc, d, "");
        ad_tangent_fmf(fc, acc, fmf_src);
      }
    }
    if (divisor) {
      acc = LLVMBuildFDiv(fc->b, acc,
                          whole ? splat_vector(fc, st, divisor) : divisor, "");
      ad_tangent_fmf(fc, acc, fmf_src);
    }
    if (whole)
      return acc;
    lanes[lane] = acc;
  }
  return ad_pack(fc, t, lanes);
}

LLVMValueRef ad_select_tangent(ad_fn_ctx *fc, LLVMTypeRef t, LLVMValueRef cond,
                               LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef st = ad_shadow_type(fc, t);
  if (!a)
    a = LLVMConstNull(st);
  if (!b)
    b = LLVMConstNull(st);
  if (fc->width == 1 || LLVMGetTypeKind(st) == LLVMVectorTypeKind)
    return LLVMBuildSelect(fc->b, cond, a, b, "");
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++)
    lanes[lane] = LLVMBuildSelect(fc->b, cond, ad_lane(fc, a, lane),
                                  ad_lane(fc, b, lane), "");
  return ad_pack(fc, t, lanes);
}

/* Metadata that states facts about the primal access (its alias scopes,
 * that its pointer is non-null, its value range) and need not hold for the
 * shadow access; kept, it would let the optimizer miscompile the shadow. */
static void strip_primal_facts(LLVMContextRef c, LLVMValueRef inst) {
  static const char *const kinds[] = {
      "alias.scope", "noalias",   "nonnull",        "range",
      "dereferenceable", "dereferenceable_or_null", "align", "noundef",
      "invariant.load", "DIAssignID"};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    unsigned k = LLVMGetMDKindIDInContext(c, kinds[i], (unsigned)strlen(kinds[i]));
    if (LLVMGetMetadata(inst, k))
      LLVMSetMetadata(inst, k, NULL);
  }
}

LLVMValueRef ad_entry_alloca(LLVMValueRef fn, LLVMTypeRef t, const char *name) {
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(LLVMGetTypeContext(t));
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  LLVMValueRef first = LLVMGetFirstInstruction(entry);
  if (first)
    LLVMPositionBuilderBefore(eb, first);
  else
    LLVMPositionBuilderAtEnd(eb, entry);
  LLVMValueRef slot = LLVMBuildAlloca(eb, t, name);
  LLVMDisposeBuilder(eb);
  return slot;
}

LLVMValueRef ad_guard_shadow_pointer(ad_fn_ctx *fc, LLVMValueRef p,
                                     LLVMValueRef shadow_lane,
                                     LLVMTypeRef accessed,
                                     LLVMValueRef *same_out) {
  if (same_out)
    *same_out = NULL;
  if (!ad_shadow_may_equal_primal(fc, p))
    return shadow_lane;
  LLVMTypeRef pt = LLVMTypeOf(shadow_lane);
  int vector = LLVMGetTypeKind(pt) == LLVMVectorTypeKind;
  LLVMTypeRef scalar_pt = vector ? LLVMGetElementType(pt) : pt;
  /* the scratch slot lives in the entry block, zeroed before each use */
  LLVMValueRef slot = ad_entry_alloca(fc->deriv_fn, accessed, "inactive.scratch");
  LLVMSetAlignment(slot, LLVMPreferredAlignmentOfType(fc->mc->td, accessed));
  LLVMBuildStore(fc->b, LLVMConstNull(accessed), slot);
  LLVMValueRef scratch = slot;
  if (LLVMTypeOf(slot) != scalar_pt)
    scratch = LLVMBuildAddrSpaceCast(fc->b, slot, scalar_pt, "");
  if (vector) { /* one scratch element for every lane of a gather/scatter */
    LLVMTypeRef i32 = LLVMInt32TypeInContext(fc->mc->llctx);
    unsigned n = LLVMGetVectorSize(pt);
    LLVMValueRef one = LLVMBuildInsertElement(
        fc->b, LLVMGetPoison(pt), scratch, LLVMConstInt(i32, 0, 0), "");
    scratch = LLVMBuildShuffleVector(
        fc->b, one, LLVMGetPoison(pt),
        LLVMConstNull(LLVMVectorType(i32, n)), "");
  }
  LLVMValueRef same = LLVMBuildICmp(fc->b, LLVMIntEQ, shadow_lane,
                                    ad_primal(fc, p), "noshadow");
  if (same_out)
    *same_out = same;
  return LLVMBuildSelect(fc->b, same, scratch, shadow_lane, "");
}

static LLVMValueRef inactive_shadow_of(ad_fn_ctx *fc, LLVMValueRef v, int depth);

LLVMValueRef ad_guard_byval_shadow(ad_fn_ctx *fc, LLVMValueRef p,
                                   LLVMValueRef shadow_lane, LLVMTypeRef t) {
  if (!ad_shadow_may_equal_primal(fc, p))
    return shadow_lane;
  LLVMValueRef slot = ad_entry_alloca(fc->deriv_fn, t, "inactive.byval");
  /* at least the by-value parameter's own alignment, which the callee's
   * copy may rely on (aligned(32) structs are copied with aligned moves) */
  LLVMSetAlignment(slot, 64);
  LLVMValueRef primal = ad_primal(fc, p);
  LLVMValueRef v = LLVMBuildLoad2(fc->b, t, primal, "");
  LLVMBuildStore(fc->b, inactive_shadow_of(fc, v, 0), slot);
  LLVMValueRef at = slot;
  if (LLVMTypeOf(slot) != LLVMTypeOf(shadow_lane))
    at = LLVMBuildAddrSpaceCast(fc->b, slot, LLVMTypeOf(shadow_lane), "");
  LLVMValueRef same = LLVMBuildICmp(fc->b, LLVMIntEQ, shadow_lane, primal, "");
  return LLVMBuildSelect(fc->b, same, at, shadow_lane, "");
}

/* The mask of a masked.load or gather (the operand before the
 * pass-through, with or without LLVM 21's alignment operand), or NULL. */
static LLVMValueRef masked_read_mask(ad_fn_ctx *fc, LLVMValueRef primal) {
  if (!LLVMIsACallInst(primal))
    return NULL;
  unsigned n = LLVMGetNumArgOperands(primal);
  if (n < 3)
    return NULL;
  LLVMValueRef mask = LLVMGetOperand(primal, n - 2);
  LLVMTypeRef t = LLVMTypeOf(mask);
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind ||
      LLVMGetTypeKind(LLVMGetElementType(t)) != LLVMIntegerTypeKind ||
      LLVMGetIntTypeWidth(LLVMGetElementType(t)) != 1)
    return NULL;
  return ad_primal(fc, mask);
}

/* ad_lanewise, with the operand numbered `guarded` (~0u: none) a pointer
 * whose shadow may be the pointer itself, accessed as `mode` says. */
/* The shadow of a select, float cast or freeze of scalar floats as one
 * instruction on the vector of lanes, or NULL where the operands' shadows
 * are not such vectors (or the select's condition is a vector). */
static LLVMValueRef lanewise_whole(ad_fn_ctx *fc, LLVMValueRef primal,
                                   const unsigned *ops, unsigned nops) {
  LLVMTypeRef st = ad_shadow_type(fc, LLVMTypeOf(primal));
  if (fc->width == 1 || LLVMGetTypeKind(st) != LLVMVectorTypeKind ||
      !LLVMIsAInstruction(primal) || nops > 2)
    return NULL;
  LLVMOpcode op = LLVMGetInstructionOpcode(primal);
  if (op != LLVMSelect && op != LLVMFPExt && op != LLVMFPTrunc &&
      op != LLVMFreeze)
    return NULL;
  for (unsigned k = 0; k < nops; k++) {
    LLVMTypeRef ot = LLVMTypeOf(LLVMGetOperand(primal, ops[k]));
    if (LLVMGetTypeKind(ad_shadow_type(fc, ot)) != LLVMVectorTypeKind)
      return NULL;
  }
  LLVMValueRef sh[2];
  for (unsigned k = 0; k < nops; k++)
    sh[k] = ad_shadow_value(fc, LLVMGetOperand(primal, ops[k]));
  switch (op) {
  case LLVMSelect: {
    LLVMValueRef cond = ad_primal(fc, LLVMGetOperand(primal, 0));
    if (nops != 2 || ops[0] != 1 || ops[1] != 2 ||
        LLVMGetTypeKind(LLVMTypeOf(cond)) == LLVMVectorTypeKind)
      return NULL;
    return LLVMBuildSelect(fc->b, cond, sh[0], sh[1], "");
  }
  case LLVMFPExt:
    return nops == 1 ? LLVMBuildFPExt(fc->b, sh[0], st, "") : NULL;
  case LLVMFPTrunc:
    return nops == 1 ? LLVMBuildFPTrunc(fc->b, sh[0], st, "") : NULL;
  default:
    return nops == 1 ? LLVMBuildFreeze(fc->b, sh[0], "") : NULL;
  }
}

static LLVMValueRef lanewise(ad_fn_ctx *fc, LLVMValueRef primal,
                             LLVMValueRef clone, const unsigned *ops,
                             unsigned nops, unsigned guarded,
                             LLVMTypeRef accessed, ad_access mode) {
  LLVMValueRef lanes[AD_MAX_WIDTH];
  if (guarded == ~0u) {
    LLVMValueRef whole = lanewise_whole(fc, primal, ops, nops);
    if (whole)
      return whole;
  }
  LLVMValueRef shadows[8];
  size_t n;
  const char *name = LLVMGetValueName2(primal, &n);
  char buf[256];
  int has_name = n > 0 && n < sizeof buf - 2;
  if (has_name) {
    memcpy(buf, name, n);
    buf[n] = '\'';
    buf[n + 1] = 0;
  }
  for (unsigned k = 0; k < nops && k < 8; k++)
    shadows[k] = ad_shadow_value(fc, LLVMGetOperand(primal, ops[k]));
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef vals[8], same = NULL;
    for (unsigned k = 0; k < nops && k < 8; k++) {
      vals[k] = ad_lane(fc, shadows[k], lane);
      if (ops[k] != guarded)
        continue;
      LLVMValueRef p = LLVMGetOperand(primal, ops[k]);
      if (mode == AD_ACCESS_READ) {
        /* read through the shadow (the primal memory where they are equal)
         * and take what inactive memory's shadow holds there */
        if (ad_shadow_may_equal_primal(fc, p))
          same = LLVMBuildICmp(fc->b, LLVMIntEQ, vals[k], ad_primal(fc, p), "");
      } else {
        vals[k] = ad_guard_shadow_pointer(fc, p, vals[k], accessed, &same);
      }
    }
    LLVMValueRef c = LLVMInstructionClone(clone);
    LLVMInsertIntoBuilderWithName(fc->b, c, has_name ? buf : "");
    for (unsigned k = 0; k < nops && k < 8; k++)
      LLVMSetOperand(c, ops[k], vals[k]);
    if (LLVMIsALoadInst(c) || LLVMIsAStoreInst(c) || LLVMIsACallInst(c) ||
        LLVMIsAAtomicRMWInst(c))
      strip_primal_facts(fc->mc->llctx, c);
    lanes[lane] = c;
    if (same && LLVMGetTypeKind(LLVMTypeOf(c)) != LLVMVoidTypeKind) {
      /* floats read there have no tangent; pointers and integers stand
       * for themselves: as read (a read), or as the primal's old value
       * (an update, whose shadow went to the scratch slot) */
      LLVMValueRef inactive =
          inactive_shadow_of(fc, mode == AD_ACCESS_READ ? c : clone, 0);
      LLVMValueRef mask = masked_read_mask(fc, primal);
      if (mask) /* lanes masked off hold the pass-through's shadow */
        inactive = LLVMBuildSelect(fc->b, mask, inactive, c, "");
      lanes[lane] = LLVMBuildSelect(fc->b, same, inactive, c, "");
    }
  }
  if (LLVMGetTypeKind(LLVMTypeOf(primal)) == LLVMVoidTypeKind)
    return NULL;
  return ad_pack(fc, LLVMTypeOf(primal), lanes);
}

LLVMValueRef ad_lanewise(ad_fn_ctx *fc, LLVMValueRef primal, LLVMValueRef clone,
                         const unsigned *ops, unsigned nops) {
  return lanewise(fc, primal, clone, ops, nops, ~0u, NULL, AD_ACCESS_READ);
}

LLVMValueRef ad_lanewise_guarded(ad_fn_ctx *fc, LLVMValueRef primal,
                                 LLVMValueRef clone, const unsigned *ops,
                                 unsigned nops, unsigned pointer_op,
                                 LLVMTypeRef accessed, ad_access mode) {
  return lanewise(fc, primal, clone, ops, nops, pointer_op, accessed, mode);
}

static int contains_float(LLVMTypeRef t, int depth) {
  if (ad_type_is_float(t))
    return 1;
  if (depth > 16)
    return 0;
  switch (LLVMGetTypeKind(t)) {
  case LLVMArrayTypeKind:
    return contains_float(LLVMGetElementType(t), depth + 1);
  case LLVMStructTypeKind:
    for (unsigned i = 0; i < LLVMCountStructElementTypes(t); i++)
      if (contains_float(LLVMStructGetTypeAtIndex(t, i), depth + 1))
        return 1;
    return 0;
  default:
    return 0;
  }
}

/* The shadow of a value read from inactive memory: floats 0, pointers and
 * integers themselves (they stand for themselves). */
static LLVMValueRef inactive_shadow_of(ad_fn_ctx *fc, LLVMValueRef v,
                                       int depth) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (!contains_float(t, 0))
    return v;
  LLVMTypeKind k = LLVMGetTypeKind(t);
  unsigned n = k == LLVMStructTypeKind  ? LLVMCountStructElementTypes(t)
               : k == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength2(t)
                                        : 0;
  if (ad_type_is_float(t) || n == 0 || n > 64 || depth > 16)
    return LLVMConstNull(t);
  LLVMValueRef agg = v;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef e = LLVMBuildExtractValue(fc->b, v, i, "");
    agg = LLVMBuildInsertValue(fc->b, agg, inactive_shadow_of(fc, e, depth + 1),
                               i, "");
  }
  return agg;
}

LLVMValueRef ad_guarded_access(ad_fn_ctx *fc, LLVMValueRef inst,
                               LLVMValueRef clone) {
  int is_store = LLVMIsAStoreInst(inst) != NULL;
  unsigned pop = is_store ? 1 : 0;
  LLVMValueRef p = LLVMGetOperand(inst, pop);
  LLVMValueRef sp = ad_shadow_value(fc, p), pp = ad_primal(fc, p);
  LLVMValueRef sv = NULL, pv = NULL;
  if (is_store) {
    sv = ad_shadow_value(fc, LLVMGetOperand(inst, 0));
    pv = ad_primal(fc, LLVMGetOperand(inst, 0));
  }
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef sl = ad_lane(fc, sp, lane);
    LLVMValueRef same = LLVMBuildICmp(fc->b, LLVMIntEQ, sl, pp, "");
    /* where the shadow is the primal, a store writes the primal value
     * again */
    LLVMValueRef val =
        is_store ? LLVMBuildSelect(fc->b, same, pv, ad_lane(fc, sv, lane), "")
                 : NULL;
    LLVMValueRef c = LLVMInstructionClone(clone);
    LLVMInsertIntoBuilderWithName(fc->b, c, "");
    LLVMSetOperand(c, pop, sl);
    if (val)
      LLVMSetOperand(c, 0, val);
    strip_primal_facts(fc->mc->llctx, c);
    if (is_store)
      continue;
    LLVMValueRef zero = inactive_shadow_of(fc, c, 0);
    lanes[lane] = zero == c ? c : LLVMBuildSelect(fc->b, same, zero, c, "");
  }
  return is_store ? NULL : ad_pack(fc, LLVMTypeOf(inst), lanes);
}

LLVMValueRef ad_call_intrinsic(ad_fn_ctx *fc, const char *base,
                               LLVMTypeRef *overload, unsigned noverload,
                               LLVMValueRef *args, unsigned nargs) {
  unsigned id = LLVMLookupIntrinsicID(base, strlen(base));
  if (!id) {
    ad_fail(fc->mc, NULL, "internal: unknown intrinsic %s", base);
    return NULL;
  }
  LLVMValueRef decl =
      LLVMGetIntrinsicDeclaration(fc->mc->mod, id, overload, noverload);
  LLVMTypeRef ft = LLVMIntrinsicGetType(fc->mc->llctx, id, overload, noverload);
  return LLVMBuildCall2(fc->b, ft, decl, args, nargs, "");
}
