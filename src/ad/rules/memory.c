/*
 * Memory call rules: the memcpy family, heap allocation (C and C++), and
 * the masked/reduction intrinsics that vectorizers emit.
 *
 * Shadow allocations mirror primal ones: allocated beside them with the same
 * function (declared through ad_get_or_insert_helper), zeroed, and freed
 * when the primal is freed, unless the shadow is the primal itself (then
 * free(NULL), a no-op, keeps the code branch-free).
 *
 * memcpy and memmove go through the copy rule shared with the CUDA
 * transfers (rules/copy.c), which treats float, pointer and integer bytes apart.
 */
#include <string.h>

#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"

enum { LAST_ARG = 255 };

/* What a row's emitter needs besides the call; each kind of memory call
 * has an emitter of its own (the row names it). */
typedef struct mem_rule_data {
  int size_arg;    /* allocations, realloc, posix_memalign: the byte count */
  int zero;        /* allocations: zero the shadow (malloc; calloc's is) */
  unsigned ops[2]; /* linear, store-like: operands replaced by shadows;
                      LAST_ARG: the call's last argument (masked.load's
                      pass-through: LLVM 21 dropped the alignment operand
                      before it) */
  unsigned nops;
  unsigned ptr_arg; /* store-like: the pointer operand */
} mem_rule_data;

static LLVMValueRef helper_like(ad_fn_ctx *fc, LLVMValueRef call,
                                const char *name) {
  LLVMValueRef fn = ad_called_function(call);
  LLVMTypeRef ft = fn ? LLVMGlobalGetValueType(fn) : LLVMGetCalledFunctionType(call);
  return ad_get_or_insert_helper(fc->mc->mod, call, name, ft);
}

/* p may be an integer: a frontend's allocator returning Ptr as i64 */
static void zero_bytes(ad_fn_ctx *fc, LLVMValueRef p, LLVMValueRef n) {
  LLVMValueRef zero = LLVMConstInt(LLVMInt8TypeInContext(fc->mc->llctx), 0, 0);
  if (LLVMGetTypeKind(LLVMTypeOf(p)) != LLVMPointerTypeKind)
    p = ad_address_as(fc, p, LLVMPointerTypeInContext(fc->mc->llctx, 0));
  LLVMBuildMemSet(fc->b, p, zero, n, 1);
}

/* Host copies: the primal memcpy/memmove (intrinsic or libc call, with
 * its volatility and alignment) replayed on other operands. */
static int replay_copy(ad_fn_ctx *fc, const ad_copy_emitter *em,
                       LLVMValueRef clone, LLVMValueRef dst, LLVMValueRef src,
                       LLVMValueRef n) {
  static const unsigned ops[3] = {0, 1, 2};
  LLVMValueRef vals[3] = {dst, src, n};
  (void)em;
  ad_replay_call(fc, clone, ops, vals, 3);
  return 0;
}

static int memset_zero(ad_fn_ctx *fc, const ad_copy_emitter *em,
                       LLVMValueRef clone, LLVMValueRef dst, LLVMValueRef n) {
  (void)em, (void)clone;
  zero_bytes(fc, dst, n);
  return 0;
}

/* What one access through `ptr` touches, for a vector `data`: all of it,
 * or one element per pointer of a gather/scatter. */
static LLVMTypeRef accessed_type(LLVMValueRef ptr, LLVMTypeRef data) {
  return LLVMGetTypeKind(LLVMTypeOf(ptr)) == LLVMVectorTypeKind
             ? LLVMGetElementType(data)
             : data;
}

static int remapped_args(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef *args,
                         unsigned *n) {
  *n = LLVMGetNumArgOperands(call);
  if (*n > 8)
    return -1;
  for (unsigned k = 0; k < *n; k++)
    args[k] = ad_primal(fc, LLVMGetOperand(call, k));
  return 0;
}

/*
 * realloc's shadow when the old block's shadow may be the block itself
 * (inactive memory): growing it would free the primal's block a second
 * time, so that case starts a fresh, zeroed shadow (nothing of the old
 * contents had a tangent); otherwise the old shadow grows.  args hold the
 * primal call's arguments (args[0] the old block).
 */
static LLVMValueRef realloc_shadow_or_fresh(ad_fn_ctx *fc, LLVMValueRef fn,
                                            LLVMValueRef *args, unsigned nargs,
                                            LLVMValueRef old_shadow,
                                            LLVMValueRef n) {
  LLVMContextRef c = fc->mc->llctx;
  LLVMBasicBlockRef fresh = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "realloc.fresh");
  LLVMBasicBlockRef grow = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "realloc.grow");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "realloc.shadow");
  LLVMValueRef same = LLVMBuildICmp(fc->b, LLVMIntEQ, old_shadow, args[0], "");
  LLVMBuildCondBr(fc->b, same, fresh, grow);
  LLVMValueRef a2[8];
  memcpy(a2, args, nargs * sizeof *a2);
  LLVMPositionBuilderAtEnd(fc->b, fresh);
  a2[0] = LLVMConstNull(LLVMTypeOf(args[0]));
  LLVMValueRef s_fresh = ad_call_helper(fc->b, fn, a2, nargs, "shadow");
  zero_bytes(fc, s_fresh, n);
  LLVMBasicBlockRef fresh_end = LLVMGetInsertBlock(fc->b);
  LLVMBuildBr(fc->b, join);
  LLVMPositionBuilderAtEnd(fc->b, grow);
  a2[0] = old_shadow;
  LLVMValueRef s_grow = ad_call_helper(fc->b, fn, a2, nargs, "shadow");
  LLVMBuildBr(fc->b, join);
  LLVMPositionBuilderAtEnd(fc->b, join);
  LLVMValueRef s = LLVMBuildPhi(fc->b, LLVMTypeOf(s_grow), "shadow");
  LLVMValueRef vals[2] = {s_fresh, s_grow};
  LLVMBasicBlockRef from[2] = {fresh_end, grow};
  LLVMAddIncoming(s, vals, from, 2);
  return s;
}

/* The primal call's operands remapped, and its rule name for messages. */
typedef struct mem_call {
  const mem_rule_data *d;
  char buf[256];
  const char *rname;
  LLVMValueRef args[8];
  unsigned nargs;
} mem_call;

static int begin_memory_call(ad_fn_ctx *fc, const ad_call_rule *rule,
                             LLVMValueRef call, mem_call *m) {
  m->d = rule->data;
  m->rname = ad_call_rule_name(fc->mc->engine, call, m->buf, sizeof m->buf);
  if (remapped_args(fc, call, m->args, &m->nargs) != 0)
    return ad_fail(fc->mc, call, "too many arguments for %s", m->rname);
  return 0;
}

/* begin_memory_call for a call whose rule names a byte-count argument. */
static int begin_sized_call(ad_fn_ctx *fc, const ad_call_rule *rule,
                            LLVMValueRef call, mem_call *m) {
  if (begin_memory_call(fc, rule, call, m) != 0)
    return -1;
  if ((unsigned)m->d->size_arg >= m->nargs)
    return ad_fail(fc->mc, call, "%s: missing size argument", m->rname);
  return 0;
}

/* malloc, calloc, operator new, ...: the same call again for the shadow,
 * zeroed unless the allocator zeroes. */
static int emit_allocation(ad_fn_ctx *fc, const ad_call_rule *rule,
                           LLVMValueRef call, LLVMValueRef clone) {
  (void)clone;
  mem_call m;
  if (!ad_is_active(fc, call))
    return 0;
  if (begin_sized_call(fc, rule, call, &m) != 0)
    return -1;
  LLVMValueRef fn = helper_like(fc, call, m.rname);
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    lanes[lane] = ad_call_helper(fc->b, fn, m.args, m.nargs, "shadow");
    if (m.d->zero)
      zero_bytes(fc, lanes[lane], m.args[m.d->size_arg]);
  }
  ad_set_shadow(fc, call, ad_pack(fc, LLVMTypeOf(call), lanes));
  return 0;
}

/* realloc: the old block's shadow grows; one that may be the block itself
 * starts fresh at run time (realloc_shadow_or_fresh); with no old shadow,
 * a fresh zeroed block. */
static int emit_realloc(ad_fn_ctx *fc, const ad_call_rule *rule,
                        LLVMValueRef call, LLVMValueRef clone) {
  (void)clone;
  mem_call m;
  if (!ad_is_active(fc, call))
    return 0;
  if (begin_sized_call(fc, rule, call, &m) != 0)
    return -1;
  LLVMValueRef fn = helper_like(fc, call, m.rname);
  LLVMValueRef old = ad_shadow_or_null(fc, LLVMGetOperand(call, 0));
  int may_be_block =
      old && ad_shadow_may_equal_primal(fc, LLVMGetOperand(call, 0));
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef a2[8];
    memcpy(a2, m.args, sizeof a2);
    if (may_be_block) {
      lanes[lane] = realloc_shadow_or_fresh(fc, fn, m.args, m.nargs,
                                            ad_lane(fc, old, lane),
                                            m.args[m.d->size_arg]);
    } else if (old) {
      a2[0] = ad_lane(fc, old, lane);
      lanes[lane] = ad_call_helper(fc->b, fn, a2, m.nargs, "shadow");
    } else {
      a2[0] = LLVMConstNull(LLVMTypeOf(m.args[0]));
      lanes[lane] = ad_call_helper(fc->b, fn, a2, m.nargs, "shadow");
      zero_bytes(fc, lanes[lane], m.args[m.d->size_arg]);
    }
  }
  ad_set_shadow(fc, call, ad_pack(fc, LLVMTypeOf(call), lanes));
  return 0;
}

static int emit_memalign(ad_fn_ctx *fc, const ad_call_rule *rule,
                         LLVMValueRef call, LLVMValueRef clone) {
  (void)clone;
  mem_call m;
  if (begin_memory_call(fc, rule, call, &m) != 0)
    return -1;
  const mem_rule_data *d = m.d;
  const char *rname = m.rname;
  LLVMValueRef *args = m.args;
  unsigned nargs = m.nargs;
  LLVMValueRef sp = ad_shadow_or_null(fc, LLVMGetOperand(call, 0));
  if (!sp)
    return 0;
  LLVMValueRef fn = helper_like(fc, call, rname);
  /* the out-parameter may be an integer (Ptr{Ptr} as i64): the slot
   * holds a pointer either way */
  LLVMTypeRef ptr = LLVMGetTypeKind(LLVMTypeOf(args[0])) == LLVMPointerTypeKind
                        ? LLVMTypeOf(args[0])
                        : LLVMPointerTypeInContext(fc->mc->llctx, 0);
  /* A slot whose shadow may be the slot itself (inactive memory) gets no
   * shadow block: it would overwrite the primal's, which then leaks. */
  int guard = ad_shadow_may_equal_primal(fc, LLVMGetOperand(call, 0));
  LLVMContextRef c = fc->mc->llctx;
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef a2[8];
    memcpy(a2, args, sizeof a2);
    a2[0] = ad_lane(fc, sp, lane);
    LLVMBasicBlockRef done =
        LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "memalign.shadow_done");
    if (guard) {
      LLVMBasicBlockRef work =
          LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "memalign.shadow");
      LLVMBuildCondBr(fc->b,
                      LLVMBuildICmp(fc->b, LLVMIntEQ, a2[0], args[0], ""), done,
                      work);
      LLVMPositionBuilderAtEnd(fc->b, work);
    }
    LLVMValueRef rc = ad_call_helper(fc->b, fn, a2, nargs, "");
    /* zeroed only if it was allocated (status 0) */
    LLVMBasicBlockRef zero =
        LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "memalign.shadow_zero");
    if (LLVMGetTypeKind(LLVMTypeOf(rc)) == LLVMIntegerTypeKind)
      LLVMBuildCondBr(fc->b,
                      LLVMBuildICmp(fc->b, LLVMIntEQ, rc,
                                    LLVMConstNull(LLVMTypeOf(rc)), ""),
                      zero, done);
    else
      LLVMBuildBr(fc->b, zero);
    LLVMPositionBuilderAtEnd(fc->b, zero);
    LLVMValueRef p =
        LLVMBuildLoad2(fc->b, ptr, ad_address_as(fc, a2[0], ptr), "");
    zero_bytes(fc, p, args[d->size_arg]);
    LLVMBuildBr(fc->b, done);
    LLVMPositionBuilderAtEnd(fc->b, done);
  }
  return 0;
}

static int emit_free(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
                     LLVMValueRef clone) {
  (void)clone;
  mem_call m;
  if (begin_memory_call(fc, rule, call, &m) != 0)
    return -1;
  const char *rname = m.rname;
  LLVMValueRef *args = m.args;
  unsigned nargs = m.nargs;
  LLVMValueRef p = LLVMGetOperand(call, 0);
  LLVMValueRef sp = ad_shadow_or_null(fc, p);
  if (!sp)
    return 0;
  LLVMValueRef fn = helper_like(fc, call, rname);
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef s = ad_lane(fc, sp, lane);
    LLVMValueRef same = LLVMBuildICmp(fc->b, LLVMIntEQ, s, args[0], "");
    LLVMValueRef a2[8];
    memcpy(a2, args, sizeof a2);
    a2[0] = LLVMBuildSelect(fc->b, same, LLVMConstNull(LLVMTypeOf(s)), s, "");
    ad_call_helper(fc->b, fn, a2, nargs, "");
  }
  return 0;
}

static int emit_copy(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
                     LLVMValueRef clone) {
  mem_call m;
  if (begin_memory_call(fc, rule, call, &m) != 0)
    return -1;
  static const ad_copy_emitter host = {replay_copy, memset_zero, NULL};
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  if (ad_differentiate_copy(fc, call, clone, dst, LLVMGetOperand(call, 1),
                            LLVMGetOperand(call, 2), &host) != 0)
    return -1;
  /* memcpy/memmove return their destination */
  LLVMValueRef sd = ad_shadow_or_null(fc, dst);
  if (sd && ad_is_active(fc, call) && ad_type_is_pointerish(LLVMTypeOf(call)))
    ad_set_shadow(fc, call, sd);
  return 0;
}

static int emit_set(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
                    LLVMValueRef clone) {
  mem_call m;
  if (begin_memory_call(fc, rule, call, &m) != 0)
    return -1;
  LLVMValueRef sd = ad_shadow_or_null(fc, LLVMGetOperand(call, 0));
  if (!sd)
    return 0;
  static const unsigned ops[1] = {0};
  LLVMValueRef s = ad_lanewise(fc, call, clone, ops, 1);
  if (ad_is_active(fc, call) && ad_type_is_pointerish(LLVMTypeOf(call)))
    ad_set_shadow(fc, call, s);
  return 0;
}

static int emit_linear(ad_fn_ctx *fc, const ad_call_rule *rule,
                       LLVMValueRef call, LLVMValueRef clone) {
  mem_call m;
  if (begin_memory_call(fc, rule, call, &m) != 0)
    return -1;
  const mem_rule_data *d = m.d;
  unsigned ops[2];
  for (unsigned k = 0; k < d->nops; k++)
    ops[k] = d->ops[k] == LAST_ARG ? (unsigned)LLVMGetNumArgOperands(call) - 1
                                   : d->ops[k];
  if (!ad_is_active(fc, call))
    return 0;
  /* masked.load / gather read through their pointer operand 0 */
  LLVMValueRef ptr = LLVMGetOperand(call, 0);
  ad_set_shadow(fc, call,
                ad_type_is_pointerish(LLVMTypeOf(ptr))
                    ? ad_lanewise_guarded(fc, call, clone, ops, d->nops, 0,
                                          accessed_type(ptr, LLVMTypeOf(call)),
                                          AD_ACCESS_READ)
                    : ad_lanewise(fc, call, clone, ops, d->nops));
  return 0;
}

static int emit_store_like(ad_fn_ctx *fc, const ad_call_rule *rule,
                           LLVMValueRef call, LLVMValueRef clone) {
  mem_call m;
  if (begin_memory_call(fc, rule, call, &m) != 0)
    return -1;
  const mem_rule_data *d = m.d;
  const char *rname = m.rname;
  if (ad_shadow_or_null(fc, LLVMGetOperand(call, d->ptr_arg)))
    ad_lanewise_guarded(
        fc, call, clone, d->ops, d->nops, d->ptr_arg,
        accessed_type(LLVMGetOperand(call, d->ptr_arg),
                      LLVMTypeOf(LLVMGetOperand(call, d->ops[0]))),
        AD_ACCESS_WRITE);
  else if (ad_is_active(fc, LLVMGetOperand(call, d->ops[0])))
    return ad_fail(fc->mc, call,
                   "%s stores an active value through a pointer with no "
                   "shadow",
                   rname);
  return 0;
}

/* ---- Julia's runtime ---- */

/* ijl_alloc_array_1d / jl_alloc_array_1d: the same call for the shadow
 * array, its data zeroed (Julia leaves isbits data uninitialized).  The
 * bytes come from the jl_array_t the call returned (Julia 1.6 to 1.10:
 * the data pointer at 0, the length, a size_t, at 8, the element size, a
 * uint16, at 18), since the element type is only in the type argument. */
static int emit_julia_array(ad_fn_ctx *fc, const ad_call_rule *rule,
                            LLVMValueRef call, LLVMValueRef clone) {
  (void)clone;
  mem_call m;
  if (!ad_is_active(fc, call))
    return 0;
  if (begin_memory_call(fc, rule, call, &m) != 0)
    return -1;
  LLVMContextRef c = fc->mc->llctx;
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c), i16 = LLVMInt16TypeInContext(c);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef fn = helper_like(fc, call, m.rname);
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef a = ad_call_helper(fc->b, fn, m.args, m.nargs, "shadow");
    lanes[lane] = a;
    LLVMValueRef h = LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind
                         ? LLVMBuildAddrSpaceCast(fc->b, a, ptr, "")
                         : ad_address_as(fc, a, ptr);
    LLVMValueRef at8 = LLVMConstInt(i64, 8, 0), at18 = LLVMConstInt(i64, 18, 0);
    LLVMValueRef len = LLVMBuildLoad2(
        fc->b, i64, LLVMBuildGEP2(fc->b, i8, h, &at8, 1, ""), "shadow.length");
    LLVMValueRef elsize = LLVMBuildZExt(
        fc->b,
        LLVMBuildLoad2(fc->b, i16, LLVMBuildGEP2(fc->b, i8, h, &at18, 1, ""),
                       "shadow.elsize"),
        i64, "");
    LLVMValueRef data = LLVMBuildLoad2(fc->b, ptr, h, "shadow.data");
    zero_bytes(fc, data, LLVMBuildMul(fc->b, len, elsize, ""));
  }
  ad_set_shadow(fc, call, ad_pack(fc, LLVMTypeOf(call), lanes));
  return 0;
}

/* julia.pointer_from_objref: the same call on the object's shadow. */
static int emit_view(ad_fn_ctx *fc, const ad_call_rule *rule,
                     LLVMValueRef call, LLVMValueRef clone) {
  unsigned k = rule->views_argument - 1u;
  if (!ad_is_active(fc, call) || k >= LLVMGetNumArgOperands(call) ||
      !ad_shadow_or_null(fc, LLVMGetOperand(call, k)))
    return 0;
  ad_set_shadow(fc, call, ad_lanewise(fc, call, clone, &k, 1));
  return 0;
}

/* julia.gc_loaded(root, p) (Julia 1.11+: p, an address inside the GC
 * object root, as a tracked derived pointer; every Array element access
 * goes through one): the same call on p's shadow, rooted at root's shadow
 * (the primal root where root has none: the call only tells the collector
 * what keeps p alive). */
static int emit_rooted_view(ad_fn_ctx *fc, const ad_call_rule *rule,
                            LLVMValueRef call, LLVMValueRef clone) {
  (void)rule;
  static const unsigned root_and_pointer[2] = {0, 1};
  if (!ad_is_active(fc, call) || LLVMGetNumArgOperands(call) != 2 ||
      !ad_shadow_or_null(fc, LLVMGetOperand(call, 1)))
    return 0;
  ad_set_shadow(fc, call, ad_lanewise(fc, call, clone, root_and_pointer, 2));
  return 0;
}

/* julia.write_barrier(parent, children...): no derivative of its own, but
 * a shadow parent now holds the children's shadows, so the barrier is
 * repeated on it (Enzyme's mirroring; the collector must see the shadow
 * store as it sees the primal one), a child with no shadow passed as
 * itself.  A parent with no shadow: nothing to mirror. */
static int emit_mirror(ad_fn_ctx *fc, const ad_call_rule *rule,
                       LLVMValueRef call, LLVMValueRef clone) {
  (void)rule;
  unsigned n = LLVMGetNumArgOperands(call);
  if (n == 0 || n > 8 || !ad_shadow_or_null(fc, LLVMGetOperand(call, 0)))
    return 0;
  unsigned ops[8], nops = 0;
  for (unsigned k = 0; k < n; k++)
    if (ad_shadow_or_null(fc, LLVMGetOperand(call, k)))
      ops[nops++] = k;
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef vals[8];
    for (unsigned i = 0; i < nops; i++)
      vals[i] = ad_lane(
          fc, ad_shadow_or_null(fc, LLVMGetOperand(call, ops[i])), lane);
    ad_replay_call(fc, clone, ops, vals, nops);
  }
  return 0;
}

/* ijl_box_float64(x): the shadow is a box of x's tangent (0 for an inactive
 * x), so a load from the box gives the tangent. */
static int emit_box(ad_fn_ctx *fc, const ad_call_rule *rule,
                    LLVMValueRef call, LLVMValueRef clone) {
  (void)rule;
  static const unsigned op0[1] = {0};
  if (!ad_is_active(fc, call) || LLVMGetNumArgOperands(call) != 1)
    return 0;
  ad_set_shadow(fc, call, ad_lanewise(fc, call, clone, op0, 1));
  return 0;
}

static const mem_rule_data d_size0 = {.size_arg = 0};
static const mem_rule_data d_size0_zeroed = {.size_arg = 0, .zero = 1};
static const mem_rule_data d_size1 = {.size_arg = 1};
static const mem_rule_data d_size1_zeroed = {.size_arg = 1, .zero = 1};
static const mem_rule_data d_size2 = {.size_arg = 2};
static const mem_rule_data d_size2_zeroed = {.size_arg = 2, .zero = 1};
static const mem_rule_data d_none = {.size_arg = 0};
static const mem_rule_data d_reduce = {.ops = {0, 1}, .nops = 2};
static const mem_rule_data d_mload = {.ops = {0, LAST_ARG}, .nops = 2};
static const mem_rule_data d_mstore = {.ops = {0, 1}, .nops = 2, .ptr_arg = 1};

/* A row: name, emitter, its data, whether it writes through its pointer
 * arguments, and the argument classes type analysis learns (registry.h). */
#define ALLOC(n, fn, d, types)                                                 \
  {{.name = n, .emit = fn, .data = &d, .returns_allocation = 1}, types}
#define OTHER(n, fn, d, w, types)                                              \
  {{.name = n, .emit = fn, .data = &d, .writes_pointer_args = w}, types}
#define FREE(n, types)                                                         \
  {{.name = n, .emit = emit_free, .data = &d_none, .frees_argument = 1}, types}
static const ad_typed_rule memory_rules[] = {
    ALLOC("malloc", emit_allocation, d_size0_zeroed, "i"),
    ALLOC("calloc", emit_allocation, d_size0, "ii"),
    {{.name = "realloc", .emit = emit_realloc, .data = &d_size1,
      .returns_allocation = 1, .frees_argument = 1}, "pi"},
    ALLOC("aligned_alloc", emit_allocation, d_size1_zeroed, "ii"),
    ALLOC("memalign", emit_allocation, d_size1_zeroed, "ii"),
    ALLOC("_Znwm", emit_allocation, d_size0_zeroed, "i"),
    ALLOC("_Znam", emit_allocation, d_size0_zeroed, "i"),
    ALLOC("_ZnwmSt11align_val_t", emit_allocation, d_size0_zeroed, "ii"),
    ALLOC("_ZnamSt11align_val_t", emit_allocation, d_size0_zeroed, "ii"),
    ALLOC("_ZnwmRKSt9nothrow_t", emit_allocation, d_size0_zeroed, "i-"),
    ALLOC("_ZnamRKSt9nothrow_t", emit_allocation, d_size0_zeroed, "i-"),
    /* Julia, before GC lowering: a garbage-collected object (ptls, size,
     * type); its shadow is another one, zeroed, which the collector owns
     * as it owns the primal (never freed explicitly) */
    ALLOC("julia.gc_alloc_obj", emit_allocation, d_size1_zeroed, "-i-"),
    /* the same after GC lowering, and libjulia's own: (ptls, size, type),
     * (ptls, size), (ptls, pool offset, object size) */
    ALLOC("ijl_gc_alloc_typed", emit_allocation, d_size1_zeroed, "-i-"),
    ALLOC("jl_gc_alloc_typed", emit_allocation, d_size1_zeroed, "-i-"),
    ALLOC("ijl_gc_big_alloc", emit_allocation, d_size1_zeroed, "-i"),
    ALLOC("jl_gc_big_alloc", emit_allocation, d_size1_zeroed, "-i"),
    ALLOC("ijl_gc_pool_alloc", emit_allocation, d_size2_zeroed, "-ii"),
    ALLOC("jl_gc_pool_alloc", emit_allocation, d_size2_zeroed, "-ii"),
    /* (array type, length): a shadow array, its data zeroed */
    ALLOC("ijl_alloc_array_1d", emit_julia_array, d_none, "-i"),
    ALLOC("jl_alloc_array_1d", emit_julia_array, d_none, "-i"),
    /* a box of a Float64: the shadow box holds the tangent */
    ALLOC("ijl_box_float64", emit_box, d_none, "-"),
    ALLOC("jl_box_float64", emit_box, d_none, "-"),
    /* an object's address, untracked: the shadow object's */
    {{.name = "julia.pointer_from_objref", .emit = emit_view, .data = &d_none,
      .views_argument = 1}, "p"},
    /* a derived address rooted at an object: the shadow address, rooted
     * at the shadow object */
    {{.name = "julia.gc_loaded", .emit = emit_rooted_view, .data = &d_none,
      .views_argument = 2}, "pp"},
    /* no derivative; repeated on a shadow parent */
    {{.name = "julia.write_barrier", .emit = emit_mirror, .data = &d_none},
     NULL},
    {{.name = "julia.write_barrier_binding", .emit = emit_mirror,
      .data = &d_none}, NULL},
    /* reverse over reverse's reservation of an inner tape's shadow
     * (rev/nested.c): zero pages of its own for a tangent, unmapped with
     * the primal's (forward over reverse over reverse) */
    ALLOC("tanjit.rev.nested.map", emit_allocation, d_size0, "i"),
    FREE("tanjit.rev.nested.unmap", "p"),
    OTHER("posix_memalign", emit_memalign, d_size2, 0, "Pii"),
    FREE("free", "p"),
    FREE("_ZdlPv", "p"),
    FREE("_ZdaPv", "p"),
    FREE("_ZdlPvm", "pi"),
    FREE("_ZdaPvm", "pi"),
    FREE("_ZdlPvSt11align_val_t", "pi"),
    FREE("_ZdaPvSt11align_val_t", "pi"),
    FREE("_ZdlPvmSt11align_val_t", "pii"),
    FREE("_ZdaPvmSt11align_val_t", "pii"),
    OTHER("memcpy", emit_copy, d_none, 1, "dsn"),
    OTHER("memmove", emit_copy, d_none, 1, "dsn"),
    OTHER("llvm.memcpy", emit_copy, d_none, 1, "dsni"),
    OTHER("llvm.memcpy.inline", emit_copy, d_none, 1, "dsni"),
    OTHER("llvm.memmove", emit_copy, d_none, 1, "dsni"),
    OTHER("memset", emit_set, d_none, 0, "pii"),
    OTHER("llvm.memset", emit_set, d_none, 0, "piii"),
    OTHER("llvm.memset.inline", emit_set, d_none, 0, "piii"),
    /* vectorizer output: an ordered sum is linear in start and vector */
    OTHER("llvm.vector.reduce.fadd", emit_linear, d_reduce, 0, NULL),
    OTHER("llvm.masked.load", emit_linear, d_mload, 0, NULL),
    OTHER("llvm.masked.store", emit_store_like, d_mstore, 1, NULL),
    /* the same on vectors of pointers (AVX2/AVX-512 vectorizers) */
    OTHER("llvm.masked.gather", emit_linear, d_mload, 0, NULL),
    OTHER("llvm.masked.scatter", emit_store_like, d_mstore, 1, NULL),
};

static const ad_typed_rule *memory_typed_lookup(const char *name) {
  for (size_t i = 0; i < sizeof memory_rules / sizeof *memory_rules; i++)
    if (ad_name_matches(name, memory_rules[i].rule.name))
      return &memory_rules[i];
  return NULL;
}

static const ad_call_rule *memory_lookup(const char *name) {
  const ad_typed_rule *r = memory_typed_lookup(name);
  return r ? &r->rule : NULL;
}

const ad_rule_family ad_memory_family = {
    .name = "memory",
    .lookup = memory_lookup,
    .typed_lookup = memory_typed_lookup,
};
