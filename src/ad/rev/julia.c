/*
 * Julia's runtime calls in reverse mode.  Renamed ccalls (`ejlstr$...`,
 * jlplt GOTs, which src/jit binds to renamed declarations at load) reach
 * reverse mode as the rules their names say (CUDA: rev/cuda.c; libm
 * through "enzyme_math": the math rows); the GC.@preserve markers are
 * dropped at load, and julia.get_pgcstack and julia.safepoint are
 * inactive.  The rest is the table below, one row per entry point:
 *
 *   block    a GC allocation (julia.gc_alloc_obj, ijl_gc_alloc_typed,
 *            ijl_gc_big_alloc, ijl_gc_pool_alloc, and jl_ names): an
 *            active object gets a zeroed shadow block of the size
 *            argument's bytes (memory.c's, seen in the object's address
 *            space), freed at the reverse of the allocation, or by the
 *            gradient's guard when an exception leaves aug.  The shadow
 *            is host memory the GC does not know: it lives exactly from
 *            the allocation in aug to its reverse, holding adjoints
 *            (floats; a tracked pointer stored in a shadow object is not
 *            a GC root).
 *   box      ijl_box_float64: an 8-byte block the same way; its reverse
 *            adds what the box's loads left there to x's adjoint.
 *   forward  forward mode's rule at width 1, in aug (rules/memory.c):
 *            ijl_alloc_array_1d (a shadow array from the same call, its
 *            data zeroed; the collector's, never freed),
 *            julia.pointer_from_objref (the call on the shadow object),
 *            julia.gc_loaded (the call on the shadow address and object),
 *            julia.write_barrier (repeated on a shadow parent).  No
 *            reverse step.
 */
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"

typedef enum { JL_BLOCK, JL_BOX, JL_FORWARD } jl_kind;

static const struct jl_row {
  const char *name;
  jl_kind kind;
  unsigned size_arg; /* JL_BLOCK: the argument giving the bytes */
} jl_rows[] = {
    {"julia.gc_alloc_obj", JL_BLOCK, 1},
    {"ijl_gc_alloc_typed", JL_BLOCK, 1},
    {"jl_gc_alloc_typed", JL_BLOCK, 1},
    {"ijl_gc_big_alloc", JL_BLOCK, 1},
    {"jl_gc_big_alloc", JL_BLOCK, 1},
    {"ijl_gc_pool_alloc", JL_BLOCK, 2},
    {"jl_gc_pool_alloc", JL_BLOCK, 2},
    {"ijl_box_float64", JL_BOX, 0},
    {"jl_box_float64", JL_BOX, 0},
    {"ijl_alloc_array_1d", JL_FORWARD, 0},
    {"jl_alloc_array_1d", JL_FORWARD, 0},
    {"julia.pointer_from_objref", JL_FORWARD, 0},
    {"julia.gc_loaded", JL_FORWARD, 0},
    {"julia.write_barrier", JL_FORWARD, 0},
    {"julia.write_barrier_binding", JL_FORWARD, 0},
};

static const struct jl_row *row_of(const ad_call_rule *rule) {
  if (!rule || !rule->name)
    return NULL;
  for (size_t i = 0; i < sizeof jl_rows / sizeof *jl_rows; i++)
    if (ad_name_matches(rule->name, jl_rows[i].name))
      return &jl_rows[i];
  return NULL;
}

/* A zeroed host block of n bytes as the shadow of `call`, recorded for
 * its reverse (which frees it). */
static int shadow_block(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef n) {
  ad_fn_ctx *fc = &r->fc;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->mc->llctx);
  /* memory.c's block: zeroed, and on the gradient's owned list, so an
   * exception out of aug frees it as it frees the host shadows */
  LLVMValueRef s = ad_rev_shadow_alloc(r, fc->b, LLVMConstInt(i64, 16, 0),
                                       LLVMBuildZExtOrBitCast(fc->b, n, i64, ""));
  LLVMSetValueName2(s, "shadow.gc_obj", 13);
  if (ad_rev_record(r, call, s) != 0)
    return -1;
  LLVMTypeRef t = LLVMTypeOf(call);
  ad_set_shadow(fc, call,
                t == LLVMTypeOf(s) ? s
                                   : LLVMBuildAddrSpaceCast(fc->b, s, t, ""));
  return 0;
}

int ad_rev_julia_aug(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef clone,
                     const ad_call_rule *rule) {
  const struct jl_row *row = row_of(rule);
  if (!row)
    return 1;
  ad_fn_ctx *fc = &r->fc;
  if (row->kind == JL_FORWARD)
    return rule->emit(fc, rule, call, clone);
  if (!ad_is_active(fc, call))
    return 0;
  if (row->kind == JL_BOX)
    return shadow_block(r, call, LLVMConstInt(LLVMInt64TypeInContext(r->mc->llctx), 8, 0));
  if (LLVMGetNumArgOperands(call) <= row->size_arg)
    return ad_fail(r->mc, call,
                   "%s is called with %u arguments; its reverse rule needs "
                   "the size (argument %u)",
                   row->name, LLVMGetNumArgOperands(call), row->size_arg + 1);
  LLVMValueRef size = ad_primal(fc, LLVMGetOperand(call, row->size_arg));
  if (LLVMGetTypeKind(LLVMTypeOf(size)) != LLVMIntegerTypeKind)
    return ad_fail(r->mc, call, "%s: the size (argument %u) is not an integer",
                   row->name, row->size_arg + 1);
  return shadow_block(r, call, size);
}

int ad_rev_julia_reverse(ad_rev_fn *r, LLVMValueRef call) {
  const struct jl_row *row = row_of(ad_rule_of_call(r->mc, call));
  if (!row || row->kind == JL_FORWARD)
    return 0;
  LLVMValueRef s = ad_rev_recorded(r, call);
  if (!s)
    return 0;
  if (row->kind == JL_BOX) {
    /* what the box's loads accumulated is x's adjoint */
    LLVMValueRef x = LLVMGetOperand(call, 0);
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef p = LLVMBuildPointerCast(
        r->rb, s, LLVMPointerTypeInContext(r->mc->llctx, 0), "");
    ad_rev_accumulate(r, x, LLVMBuildLoad2(r->rb, t, p, "box.adjoint"), NULL);
  }
  ad_rev_shadow_free(r->mc, r->rb, s);
  return 0;
}
