/*
 * One copy rule for host and device memory: memcpy/memmove (rules/memory.c)
 * and the CUDA transfers (rules/cuda.c) differentiate the same way, and
 * differ only in how bytes are moved or zeroed (an ad_copy_emitter).
 *
 * Each part of the copied bytes is treated by what it holds (analysis/copy_layout.c's
 * ad_copy_layout_of), as Enzyme does:
 *
 *   source has a shadow   float, pointer, unknown   copy the shadow
 *                          integer                   nothing
 *   source has none       float, unknown            zero the dest's shadow
 *                          pointer                   the source's primal bytes
 *                          integer                   nothing
 *
 * Unknown bytes behave as float bytes: right for the float data copies
 * usually move, and what the engine did before layouts existed.  When every
 * part takes the same action, one action covers the whole range (so a copy
 * of plain float data stays one call); otherwise each part gets its own,
 * in a loop over the repetitions when the layout has a period (the last,
 * partial repetition of a run-time length clipped to what is left).
 *
 * Piece by piece is not one copy: when the operands may overlap (memmove,
 * the CUDA transfers) a piece must not overwrite source bytes a later piece
 * still reads.  As memmove itself does, the pieces go in descending order
 * when the destination lies above the source and ascending otherwise,
 * decided by comparing the addresses at run time (folded when known).
 * Comparing integers touches no memory, so device addresses stay with the
 * CUDA API.
 *
 * Reverse mode's augmented pass uses the same walk with the float bytes
 * left alone (ad_copy_non_float_shadows): their shadows hold adjoints,
 * which the reverse of the copy moves (rev/memory.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "ad/analysis/activity.h"
#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/registry/registry.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"

typedef enum copy_action {
  ACT_NONE,        /* leave the destination's shadow alone */
  ACT_SHADOW,      /* copy the source's shadow */
  ACT_ZERO,        /* zero the destination's shadow */
  ACT_PRIMAL_BYTES /* copy the source's primal bytes into the shadow */
} copy_action;

/* Indexed by ad_byte_kind: UNKNOWN, FLOAT, POINTER, INTEGER. */
static const copy_action action_with_source_shadow[] = {
    ACT_SHADOW, ACT_SHADOW, ACT_SHADOW, ACT_NONE};
static const copy_action action_without_source_shadow[] = {
    ACT_ZERO, ACT_ZERO, ACT_PRIMAL_BYTES, ACT_NONE};
_Static_assert(sizeof action_with_source_shadow /
                           sizeof *action_with_source_shadow ==
                       AD_BYTES_INTEGER + 1,
               "one action per ad_byte_kind");
_Static_assert(sizeof action_without_source_shadow /
                           sizeof *action_without_source_shadow ==
                       AD_BYTES_INTEGER + 1,
               "one action per ad_byte_kind");

LLVMValueRef ad_address_as(ad_fn_ctx *fc, LLVMValueRef addr, LLVMTypeRef to) {
  LLVMTypeRef from = LLVMTypeOf(addr);
  if (from == to)
    return addr;
  int from_ptr = LLVMGetTypeKind(from) == LLVMPointerTypeKind;
  int to_ptr = LLVMGetTypeKind(to) == LLVMPointerTypeKind;
  if (from_ptr && !to_ptr)
    return LLVMBuildPtrToInt(fc->b, addr, to, "");
  if (!from_ptr && to_ptr)
    return LLVMBuildIntToPtr(fc->b, addr, to, "");
  if (from_ptr)
    return LLVMBuildAddrSpaceCast(fc->b, addr, to, "");
  return LLVMBuildZExtOrBitCast(fc->b, addr, to, "");
}

LLVMValueRef ad_offset_address(ad_fn_ctx *fc, LLVMValueRef addr,
                               LLVMValueRef off) {
  if (LLVMIsAConstantInt(off) && LLVMConstIntGetZExtValue(off) == 0)
    return addr;
  LLVMTypeRef t = LLVMTypeOf(addr);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(fc->mc->llctx);
  LLVMTypeRef ptr = LLVMGetTypeKind(t) == LLVMPointerTypeKind
                        ? t
                        : LLVMPointerTypeInContext(fc->mc->llctx, 0);
  LLVMValueRef p = ad_address_as(fc, addr, ptr);
  LLVMValueRef q = LLVMBuildGEP2(fc->b, i8, p, &off, 1, "");
  return ad_address_as(fc, q, t);
}

/* What the primal call site promised about an operand's memory (its
 * alignment, how many bytes are dereferenceable) need not hold for another
 * address: a piece at an offset inside a shadow is less aligned and closer
 * to the end.  Kept, they license misaligned or out-of-bounds accesses. */
static const char *const operand_memory_facts[] = {
    "align", "dereferenceable", "dereferenceable_or_null"};

static void forget_operand_facts(LLVMValueRef call, unsigned op) {
  LLVMAttributeIndex idx = (LLVMAttributeIndex)op + 1; /* 0: the result */
  for (size_t i = 0;
       i < sizeof operand_memory_facts / sizeof *operand_memory_facts; i++) {
    const char *name = operand_memory_facts[i];
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    if (LLVMGetCallSiteEnumAttribute(call, idx, kind))
      LLVMRemoveCallSiteEnumAttribute(call, idx, kind);
  }
}

LLVMValueRef ad_replay_call(ad_fn_ctx *fc, LLVMValueRef clone,
                            const unsigned *ops, LLVMValueRef *vals,
                            unsigned n) {
  LLVMValueRef conv[8];
  if (n > 8)
    return NULL;
  /* conversions first: they must dominate the replayed call */
  for (unsigned i = 0; i < n; i++)
    conv[i] = ad_address_as(fc, vals[i],
                            LLVMTypeOf(LLVMGetOperand(clone, ops[i])));
  LLVMValueRef c = LLVMInstructionClone(clone);
  LLVMInsertIntoBuilderWithName(fc->b, c, "");
  for (unsigned i = 0; i < n; i++) {
    if (conv[i] == LLVMGetOperand(clone, ops[i]))
      continue;
    LLVMSetOperand(c, ops[i], conv[i]);
    forget_operand_facts(c, ops[i]);
  }
  return c;
}

/* The per-lane operands one action needs. */
typedef struct copy_lane {
  LLVMValueRef dst_shadow, src_shadow, src_primal;
} copy_lane;

static int apply(ad_fn_ctx *fc, const ad_copy_emitter *em, LLVMValueRef clone,
                 copy_action act, const copy_lane *l, LLVMValueRef off,
                 LLVMValueRef n) {
  LLVMValueRef d = ad_offset_address(fc, l->dst_shadow, off);
  switch (act) {
  case ACT_NONE:
    return 0;
  case ACT_SHADOW:
    return em->copy(fc, em, clone, d, ad_offset_address(fc, l->src_shadow, off),
                    n);
  case ACT_ZERO:
    return em->zero(fc, em, clone, d, n);
  case ACT_PRIMAL_BYTES:
    return em->copy(fc, em, clone, d, ad_offset_address(fc, l->src_primal, off),
                    n);
  }
  return 0;
}

/* The byte count of segment `s` inside a range of `total` bytes (a value of
 * the copy's length type): its size, clipped to what is left. */
static LLVMValueRef segment_bytes(ad_fn_ctx *fc, const ad_segment *s,
                                  LLVMValueRef total) {
  LLVMTypeRef t = LLVMTypeOf(total);
  if (LLVMIsAConstantInt(total)) {
    unsigned long long all = LLVMConstIntGetZExtValue(total);
    unsigned long long left = s->offset < all ? all - s->offset : 0;
    return LLVMConstInt(t, s->size < left ? s->size : left, 0);
  }
  LLVMValueRef off = LLVMConstInt(t, s->offset, 0);
  LLVMValueRef inside = LLVMBuildICmp(fc->b, LLVMIntULT, off, total, "");
  LLVMValueRef left = LLVMBuildSub(fc->b, total, off, "");
  LLVMValueRef n = left;
  if (s->size != ~0ull) {
    LLVMValueRef size = LLVMConstInt(t, s->size, 0);
    LLVMValueRef smaller = LLVMBuildICmp(fc->b, LLVMIntULT, size, left, "");
    n = LLVMBuildSelect(fc->b, smaller, size, left, "");
  }
  return LLVMBuildSelect(fc->b, inside, n, LLVMConstNull(t), "");
}

/* Every segment's action, at base offset `base` within a range of `total`
 * bytes; in descending offset order when `backward`. */
static int apply_segments(ad_fn_ctx *fc, const ad_copy_emitter *em,
                          LLVMValueRef clone, const ad_copy_layout *lay,
                          const copy_action *acts, const copy_lane *l,
                          LLVMValueRef base, LLVMValueRef total, int backward) {
  LLVMTypeRef t = LLVMTypeOf(total);
  for (size_t k = 0; k < lay->n; k++) {
    size_t i = backward ? lay->n - 1 - k : k;
    if (acts[i] == ACT_NONE)
      continue;
    LLVMValueRef n = segment_bytes(fc, &lay->segs[i], total);
    if (LLVMIsAConstantInt(n) && LLVMConstIntGetZExtValue(n) == 0)
      continue;
    LLVMValueRef off = LLVMBuildAdd(
        fc->b, base, LLVMConstInt(t, lay->segs[i].offset, 0), "");
    if (apply(fc, em, clone, acts[i], l, off, n) != 0)
      return -1;
  }
  return 0;
}

/* The bytes past the last whole repetition (a length that is not a
 * multiple of the period): the segments of one more repetition at `base`,
 * clipped to the `rest` bytes left. */
static int apply_partial_period(ad_fn_ctx *fc, const ad_copy_emitter *em,
                                LLVMValueRef clone, const ad_copy_layout *lay,
                                const copy_action *acts, const copy_lane *l,
                                LLVMValueRef base, LLVMValueRef rest,
                                int backward) {
  if (LLVMIsAConstantInt(rest))
    return LLVMConstIntGetZExtValue(rest) == 0
               ? 0
               : apply_segments(fc, em, clone, lay, acts, l, base, rest,
                                backward);
  LLVMContextRef c = fc->mc->llctx;
  LLVMBasicBlockRef tail =
      LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "copy.partial");
  LLVMBasicBlockRef done =
      LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "copy.partial_done");
  LLVMValueRef none =
      LLVMBuildICmp(fc->b, LLVMIntEQ, rest, LLVMConstNull(LLVMTypeOf(rest)), "");
  LLVMBuildCondBr(fc->b, none, done, tail);
  LLVMPositionBuilderAtEnd(fc->b, tail);
  if (apply_segments(fc, em, clone, lay, acts, l, base, rest, backward) != 0)
    return -1;
  LLVMBuildBr(fc->b, done);
  LLVMPositionBuilderAtEnd(fc->b, done);
  return 0;
}

/* A layout with a period: one pass of the segments per repetition, then
 * the partial one; all of it in reverse when `backward`. */
static int apply_periodic(ad_fn_ctx *fc, const ad_copy_emitter *em,
                          LLVMValueRef clone, const ad_copy_layout *lay,
                          const copy_action *acts, const copy_lane *l,
                          LLVMValueRef len, int backward) {
  LLVMContextRef c = fc->mc->llctx;
  LLVMTypeRef t = LLVMTypeOf(len);
  LLVMValueRef one = LLVMConstInt(t, 1, 0);
  LLVMValueRef period = LLVMConstInt(t, lay->period, 0);
  LLVMValueRef count = LLVMBuildUDiv(fc->b, len, period, "copy.reps");
  LLVMValueRef whole = LLVMBuildMul(fc->b, count, period, "");
  LLVMValueRef rest = LLVMBuildSub(fc->b, len, whole, "copy.rest");
  if (backward &&
      apply_partial_period(fc, em, clone, lay, acts, l, whole, rest, 1) != 0)
    return -1;
  LLVMBasicBlockRef before = LLVMGetInsertBlock(fc->b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fc->deriv_fn,
                                                         "copy.segments");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fc->deriv_fn,
                                                         "copy.done");
  LLVMValueRef none = LLVMBuildICmp(fc->b, LLVMIntEQ, count,
                                    LLVMConstNull(t), "");
  LLVMBuildCondBr(fc->b, none, done, loop);
  LLVMPositionBuilderAtEnd(fc->b, loop);
  LLVMValueRef k = LLVMBuildPhi(fc->b, t, "copy.step");
  LLVMValueRef rep =
      backward ? LLVMBuildSub(fc->b, LLVMBuildSub(fc->b, count, one, ""), k,
                              "copy.rep")
               : k;
  LLVMValueRef base = LLVMBuildMul(fc->b, rep, period, "");
  if (apply_segments(fc, em, clone, lay, acts, l, base, period, backward) != 0)
    return -1;
  LLVMValueRef next = LLVMBuildAdd(fc->b, k, one, "");
  LLVMValueRef more = LLVMBuildICmp(fc->b, LLVMIntULT, next, count, "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(fc->b);
  LLVMBuildCondBr(fc->b, more, loop, done);
  LLVMValueRef in_vals[2] = {LLVMConstNull(t), next};
  LLVMBasicBlockRef in_blocks[2] = {before, latch};
  LLVMAddIncoming(k, in_vals, in_blocks, 2);
  LLVMPositionBuilderAtEnd(fc->b, done);
  if (!backward)
    return apply_partial_period(fc, em, clone, lay, acts, l, whole, rest, 0);
  return 0;
}

/* Whether `src` is (inside) a constant global: its shadow is a constant
 * template (zero floats, pointers to constant tables replaced by their
 * shadows, integers kept), so copying it is copying a shadow. */
static int from_constant_template(LLVMValueRef src) {
  LLVMValueRef root = ad_pointer_root(src);
  return LLVMIsAGlobalVariable(root) && LLVMIsGlobalConstant(root);
}

/* The actions of one source state, for one lane. */
typedef struct copy_plan {
  copy_action *acts;
  int uniform; /* every segment takes acts[0] */
} copy_plan;

static int plan_actions(const ad_copy_layout *lay, const copy_action *table,
                        int floats_stay, copy_plan *p) {
  p->acts = tj_malloc((lay->n ? lay->n : 1) * sizeof *p->acts);
  if (!p->acts)
    return -1;
  p->uniform = 1;
  for (size_t i = 0; i < lay->n; i++) {
    ad_byte_kind k = lay->segs[i].kind;
    p->acts[i] = floats_stay && k == AD_BYTES_FLOAT
                     ? ACT_NONE
                     : table[k <= AD_BYTES_INTEGER ? k : AD_BYTES_UNKNOWN];
    if (p->acts[i] != p->acts[0])
      p->uniform = 0;
  }
  return 0;
}

static int apply_plan_in_order(ad_fn_ctx *fc, const ad_copy_emitter *em,
                               LLVMValueRef clone, const ad_copy_layout *lay,
                               const copy_plan *p, const copy_lane *l,
                               LLVMValueRef len, int backward) {
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(len));
  if (lay->n == 0)
    return 0;
  if (p->uniform) /* padding between segments may be treated alike */
    return apply(fc, em, clone, p->acts[0], l, zero, len);
  if (lay->period)
    return apply_periodic(fc, em, clone, lay, p->acts, l, len, backward);
  return apply_segments(fc, em, clone, lay, p->acts, l, zero, len, backward);
}

/* The address a plan reads from (the source's shadow, or its primal bytes
 * for pointers without a shadow); NULL when it reads nothing. */
static LLVMValueRef plan_source(const copy_plan *p, const ad_copy_layout *lay,
                                const copy_lane *l) {
  for (size_t i = 0; i < lay->n; i++) {
    if (p->acts[i] == ACT_SHADOW)
      return l->src_shadow;
    if (p->acts[i] == ACT_PRIMAL_BYTES)
      return l->src_primal;
  }
  return NULL;
}

/* Copies whose operands may not overlap (the C standard's memcpy); every
 * other copy rule is treated as memmove. */
static const char *const non_overlapping_copies[] = {
    "memcpy", "llvm.memcpy", "llvm.memcpy.inline"};

static int may_overlap(const ad_fn_ctx *fc, LLVMValueRef call) {
  const ad_call_rule *rule = ad_rule_of_call(fc->mc, call);
  if (!rule || !rule->name)
    return 1;
  for (size_t i = 0;
       i < sizeof non_overlapping_copies / sizeof *non_overlapping_copies; i++)
    if (strcmp(rule->name, non_overlapping_copies[i]) == 0)
      return 0;
  return 1;
}

/* A plan, piece by piece in the order an overlapping copy needs: backward
 * when the destination lies above the source. */
static int apply_plan(ad_fn_ctx *fc, const ad_copy_emitter *em,
                      LLVMValueRef clone, const ad_copy_layout *lay,
                      const copy_plan *p, const copy_lane *l, LLVMValueRef len,
                      int overlap) {
  LLVMValueRef from = plan_source(p, lay, l);
  if (!overlap || p->uniform || !from)
    return apply_plan_in_order(fc, em, clone, lay, p, l, len, 0);
  LLVMContextRef c = fc->mc->llctx;
  LLVMTypeRef word = LLVMInt64TypeInContext(c);
  LLVMValueRef above = LLVMBuildICmp(
      fc->b, LLVMIntUGT, ad_address_as(fc, l->dst_shadow, word),
      ad_address_as(fc, from, word), "copy.dst_above");
  LLVMBasicBlockRef backward =
      LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "copy.backward");
  LLVMBasicBlockRef forward =
      LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "copy.forward");
  LLVMBasicBlockRef join =
      LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "copy.ordered");
  LLVMBuildCondBr(fc->b, above, backward, forward);
  LLVMPositionBuilderAtEnd(fc->b, backward);
  if (apply_plan_in_order(fc, em, clone, lay, p, l, len, 1) != 0)
    return -1;
  LLVMBuildBr(fc->b, join);
  LLVMPositionBuilderAtEnd(fc->b, forward);
  if (apply_plan_in_order(fc, em, clone, lay, p, l, len, 0) != 0)
    return -1;
  LLVMBuildBr(fc->b, join);
  LLVMPositionBuilderAtEnd(fc->b, join);
  return 0;
}

/* Whether a source shadow may, at run time, be the primal itself: an
 * inactive pointer stands for itself (core/context.h), and one stored in memory
 * that has a shadow (a local slot at -O0) comes back as its own "shadow".
 * Arguments' shadows are distinct by the request's contract, unless the
 * caller passed one it could not vouch for (AD_ARG_DUP_RUNTIME). */
static int shadow_may_be_primal(ad_fn_ctx *fc, LLVMValueRef shadow_lane) {
  if (LLVMIsAArgument(shadow_lane))
    return ad_shadow_param_may_be_primal(fc, shadow_lane);
  return !LLVMIsConstant(shadow_lane);
}

/* One lane of a copy's tangent work: the plan with the source's shadow, the
 * plan without it, or (when the source's shadow may be its primal) a run-time
 * choice between them, as Enzyme's runtime activity does. */
static int copy_one_lane(ad_fn_ctx *fc, const ad_copy_emitter *em,
                         LLVMValueRef clone, const ad_copy_layout *lay,
                         const copy_plan *with, const copy_plan *without,
                         const copy_lane *l, LLVMValueRef plen, int overlap,
                         int has_source_shadow, int template) {
  if (!has_source_shadow)
    return apply_plan(fc, em, clone, lay, without, l, plen, overlap);
  if (template || !shadow_may_be_primal(fc, l->src_shadow))
    return apply_plan(fc, em, clone, lay, with, l, plen, overlap);
  LLVMContextRef c = fc->mc->llctx;
  LLVMBasicBlockRef inactive =
      LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "copy.src_inactive");
  LLVMBasicBlockRef active =
      LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "copy.src_active");
  LLVMBasicBlockRef join =
      LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "copy.joined");
  LLVMValueRef same = LLVMBuildICmp(fc->b, LLVMIntEQ, l->src_shadow,
                                    l->src_primal, "src.noshadow");
  LLVMBuildCondBr(fc->b, same, inactive, active);
  LLVMPositionBuilderAtEnd(fc->b, inactive);
  int rc = apply_plan(fc, em, clone, lay, without, l, plen, overlap);
  LLVMBuildBr(fc->b, join);
  LLVMPositionBuilderAtEnd(fc->b, active);
  if (rc == 0)
    rc = apply_plan(fc, em, clone, lay, with, l, plen, overlap);
  LLVMBuildBr(fc->b, join);
  LLVMPositionBuilderAtEnd(fc->b, join);
  return rc;
}

static int differentiate_copy(ad_fn_ctx *fc, LLVMValueRef call,
                              LLVMValueRef clone, LLVMValueRef dst,
                              LLVMValueRef src, LLVMValueRef len,
                              const ad_copy_emitter *em, int floats_stay) {
  LLVMValueRef sd = ad_shadow_or_null(fc, dst);
  LLVMValueRef ss = ad_shadow_or_null(fc, src);
  if (!sd) {
    if (!ss || ad_fwd_into_unread_constant(fc, dst))
      return 0;
    char buf[256];
    const char *rn = ad_call_rule_name(fc->mc->engine, call, buf, sizeof buf);
    return ad_fail(fc->mc, call,
                   "%s copies active memory into memory with no shadow",
                   rn ? rn : "copy");
  }
  int template = 0;
  if (!ss && from_constant_template(src)) {
    ss = ad_shadow_value(fc, src);
    template = 1;
  }
  ad_copy_layout lay = {NULL, 0, 0};
  if (ad_copy_layout_of(fc, call, dst, src, len, &lay) != 0)
    return fc->mc->diag.failed ? -1
                          : ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call,
                                         "out of memory");
  copy_plan with = {NULL, 1}, without = {NULL, 1};
  if (plan_actions(&lay, action_with_source_shadow, floats_stay, &with) != 0 ||
      plan_actions(&lay, action_without_source_shadow, floats_stay,
                   &without) != 0) {
    free(with.acts);
    ad_copy_layout_free(&lay);
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  LLVMValueRef plen = ad_primal(fc, len);
  LLVMValueRef psrc = ad_primal(fc, src);
  int overlap = may_overlap(fc, call);
  int rc = 0;
  LLVMValueRef pdst = ad_primal(fc, dst);
  LLVMContextRef c = fc->mc->llctx;
  for (unsigned lane = 0; lane < fc->width && rc == 0; lane++) {
    copy_lane l = {ad_lane(fc, sd, lane), ss ? ad_lane(fc, ss, lane) : NULL,
                   psrc};
    /* A destination whose shadow is itself at run time (an inactive
     * pointer stored into shadowed memory comes back as its own shadow) is
     * inactive memory: writing tangents there would overwrite the user's
     * data.  Shadow allocas are always distinct. */
    LLVMBasicBlockRef dst_join = NULL;
    if (shadow_may_be_primal(fc, l.dst_shadow) &&
        !LLVMIsAAllocaInst(l.dst_shadow) &&
        LLVMTypeOf(l.dst_shadow) == LLVMTypeOf(pdst)) {
      LLVMBasicBlockRef work =
          LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "copy.dst_active");
      dst_join = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "copy.dst_done");
      LLVMValueRef same =
          LLVMBuildICmp(fc->b, LLVMIntEQ, l.dst_shadow, pdst, "dst.noshadow");
      LLVMBuildCondBr(fc->b, same, dst_join, work);
      LLVMPositionBuilderAtEnd(fc->b, work);
    }
    rc = copy_one_lane(fc, em, clone, &lay, &with, &without, &l, plen, overlap,
                       ss != NULL, template);
    if (dst_join) {
      LLVMBuildBr(fc->b, dst_join);
      LLVMPositionBuilderAtEnd(fc->b, dst_join);
    }
  }
  free(with.acts);
  free(without.acts);
  ad_copy_layout_free(&lay);
  return rc;
}

int ad_differentiate_copy(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef clone,
                          LLVMValueRef dst, LLVMValueRef src, LLVMValueRef len,
                          const ad_copy_emitter *em) {
  return differentiate_copy(fc, call, clone, dst, src, len, em, 0);
}

int ad_copy_non_float_shadows(ad_fn_ctx *fc, LLVMValueRef call,
                              LLVMValueRef clone, LLVMValueRef dst,
                              LLVMValueRef src, LLVMValueRef len,
                              const ad_copy_emitter *em) {
  return differentiate_copy(fc, call, clone, dst, src, len, em, 1);
}
