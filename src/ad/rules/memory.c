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

typedef enum mem_kind {
  MEM_MALLOC,   /* shadow = same call, then memset 0 (size argument given) */
  MEM_CALLOC,   /* shadow = same call (already zero) */
  MEM_REALLOC,  /* shadow = realloc(shadow, n) */
  MEM_MEMALIGN, /* posix_memalign(&p, a, n) */
  MEM_FREE,     /* free the shadow too */
  MEM_COPY,     /* memcpy/memmove: copy shadows, or zero the destination */
  MEM_SET,      /* memset: same bytes into the shadow (Enzyme's rule) */
  MEM_LINEAR,   /* same operation on the shadows of the listed operands */
  MEM_STORE_LIKE /* masked.store: shadow op if the pointer has a shadow */
} mem_kind;

enum { LAST_ARG = 255 };

typedef struct mem_rule_data {
  mem_kind kind;
  int size_arg;    /* MALLOC / MEMALIGN: the byte count */
  unsigned ops[2]; /* LINEAR / STORE_LIKE: operands replaced by shadows;
                      LAST_ARG: the call's last argument (masked.load's
                      pass-through: LLVM 21 dropped the alignment operand
                      before it) */
  unsigned nops;
  unsigned ptr_arg; /* STORE_LIKE: the pointer operand */
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

static int emit_memory(ad_fn_ctx *fc, const ad_call_rule *rule,
                       LLVMValueRef call, LLVMValueRef clone) {
  const mem_rule_data *d = rule->data;
  char buf[256];
  const char *rname = ad_call_rule_name(fc->mc->engine, call, buf, sizeof buf);
  LLVMValueRef args[8];
  unsigned nargs;
  LLVMValueRef lanes[AD_MAX_WIDTH];
  if (remapped_args(fc, call, args, &nargs) != 0)
    return ad_fail(fc->mc, call, "too many arguments for %s", rname);
  switch (d->kind) {
  case MEM_MALLOC:
  case MEM_CALLOC:
  case MEM_REALLOC: {
    if (!ad_is_active(fc, call))
      return 0;
    if ((unsigned)d->size_arg >= nargs)
      return ad_fail(fc->mc, call, "%s: missing size argument", rname);
    LLVMValueRef fn = helper_like(fc, call, rname);
    LLVMValueRef old = NULL;
    if (d->kind == MEM_REALLOC)
      old = ad_shadow_or_null(fc, LLVMGetOperand(call, 0));
    for (unsigned lane = 0; lane < fc->width; lane++) {
      LLVMValueRef s;
      if (d->kind == MEM_REALLOC && old &&
          ad_shadow_may_equal_primal(fc, LLVMGetOperand(call, 0))) {
        s = realloc_shadow_or_fresh(fc, fn, args, nargs, ad_lane(fc, old, lane),
                                    args[d->size_arg]);
      } else if (d->kind == MEM_REALLOC && old) {
        LLVMValueRef a2[8];
        memcpy(a2, args, sizeof a2);
        a2[0] = ad_lane(fc, old, lane);
        s = ad_call_helper(fc->b, fn, a2, nargs, "shadow");
      } else if (d->kind == MEM_REALLOC) {
        /* the old block had no shadow: start a fresh, zeroed one */
        LLVMValueRef a2[8];
        memcpy(a2, args, sizeof a2);
        a2[0] = LLVMConstNull(LLVMTypeOf(args[0]));
        s = ad_call_helper(fc->b, fn, a2, nargs, "shadow");
        zero_bytes(fc, s, args[d->size_arg]);
      } else {
        s = ad_call_helper(fc->b, fn, args, nargs, "shadow");
        if (d->kind == MEM_MALLOC)
          zero_bytes(fc, s, args[d->size_arg]);
      }
      lanes[lane] = s;
    }
    ad_set_shadow(fc, call, ad_pack(fc, LLVMTypeOf(call), lanes));
    return 0;
  }
  case MEM_MEMALIGN: {
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
      LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "memalign.shadow_done");
      if (guard) {
        LLVMBasicBlockRef work = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "memalign.shadow");
        LLVMBuildCondBr(fc->b, LLVMBuildICmp(fc->b, LLVMIntEQ, a2[0], args[0], ""),
                        done, work);
        LLVMPositionBuilderAtEnd(fc->b, work);
      }
      LLVMValueRef rc = ad_call_helper(fc->b, fn, a2, nargs, "");
      /* zeroed only if it was allocated (status 0) */
      LLVMBasicBlockRef zero = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "memalign.shadow_zero");
      if (LLVMGetTypeKind(LLVMTypeOf(rc)) == LLVMIntegerTypeKind)
        LLVMBuildCondBr(fc->b, LLVMBuildICmp(fc->b, LLVMIntEQ, rc,
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
  case MEM_FREE: {
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
  case MEM_COPY: {
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
  case MEM_SET: {
    LLVMValueRef sd = ad_shadow_or_null(fc, LLVMGetOperand(call, 0));
    if (!sd)
      return 0;
    static const unsigned ops[1] = {0};
    LLVMValueRef s = ad_lanewise(fc, call, clone, ops, 1);
    if (ad_is_active(fc, call) && ad_type_is_pointerish(LLVMTypeOf(call)))
      ad_set_shadow(fc, call, s);
    return 0;
  }
  case MEM_LINEAR: {
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
  case MEM_STORE_LIKE:
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
  return 0;
}

static const mem_rule_data d_malloc0 = {MEM_MALLOC, 0, {0}, 0, 0};
static const mem_rule_data d_malloc1 = {MEM_MALLOC, 1, {0}, 0, 0};
static const mem_rule_data d_calloc = {MEM_CALLOC, 0, {0}, 0, 0};
static const mem_rule_data d_realloc = {MEM_REALLOC, 1, {0}, 0, 0};
static const mem_rule_data d_memalign = {MEM_MEMALIGN, 2, {0}, 0, 0};
static const mem_rule_data d_free = {MEM_FREE, 0, {0}, 0, 0};
static const mem_rule_data d_copy = {MEM_COPY, 0, {0}, 0, 0};
static const mem_rule_data d_set = {MEM_SET, 0, {0}, 0, 0};
static const mem_rule_data d_reduce = {MEM_LINEAR, 0, {0, 1}, 2, 0};
static const mem_rule_data d_mload = {MEM_LINEAR, 0, {0, LAST_ARG}, 2, 0};
static const mem_rule_data d_mstore = {MEM_STORE_LIKE, 0, {0, 1}, 2, 1};

/* {{name, emit, data, writes_pointer_args, returns_allocation, inactive},
 *  argument types (ad_typed_rule)} */
#define ALLOC(n, d, types) {{n, emit_memory, &d, 0, 1, 0}, types}
#define OTHER(n, d, w, types) {{n, emit_memory, &d, w, 0, 0}, types}
static const ad_typed_rule memory_rules[] = {
    ALLOC("malloc", d_malloc0, "i"),
    ALLOC("calloc", d_calloc, "ii"),
    ALLOC("realloc", d_realloc, "pi"),
    ALLOC("aligned_alloc", d_malloc1, "ii"),
    ALLOC("memalign", d_malloc1, "ii"),
    ALLOC("_Znwm", d_malloc0, "i"),
    ALLOC("_Znam", d_malloc0, "i"),
    ALLOC("_ZnwmSt11align_val_t", d_malloc0, "ii"),
    ALLOC("_ZnamSt11align_val_t", d_malloc0, "ii"),
    ALLOC("_ZnwmRKSt9nothrow_t", d_malloc0, "i-"),
    ALLOC("_ZnamRKSt9nothrow_t", d_malloc0, "i-"),
    /* Julia, before GC lowering: a garbage-collected object (ptls, size,
     * type); its shadow is another one, zeroed, which the collector owns
     * as it owns the primal (never freed explicitly) */
    ALLOC("julia.gc_alloc_obj", d_malloc1, "-i-"),
    OTHER("posix_memalign", d_memalign, 0, "Pii"),
    OTHER("free", d_free, 0, "p"),
    OTHER("_ZdlPv", d_free, 0, "p"),
    OTHER("_ZdaPv", d_free, 0, "p"),
    OTHER("_ZdlPvm", d_free, 0, "pi"),
    OTHER("_ZdaPvm", d_free, 0, "pi"),
    OTHER("_ZdlPvSt11align_val_t", d_free, 0, "pi"),
    OTHER("_ZdaPvSt11align_val_t", d_free, 0, "pi"),
    OTHER("_ZdlPvmSt11align_val_t", d_free, 0, "pii"),
    OTHER("_ZdaPvmSt11align_val_t", d_free, 0, "pii"),
    OTHER("memcpy", d_copy, 1, "dsn"),
    OTHER("memmove", d_copy, 1, "dsn"),
    OTHER("llvm.memcpy", d_copy, 1, "dsni"),
    OTHER("llvm.memcpy.inline", d_copy, 1, "dsni"),
    OTHER("llvm.memmove", d_copy, 1, "dsni"),
    OTHER("memset", d_set, 0, "pii"),
    OTHER("llvm.memset", d_set, 0, "piii"),
    OTHER("llvm.memset.inline", d_set, 0, "piii"),
    /* vectorizer output: an ordered sum is linear in start and vector */
    OTHER("llvm.vector.reduce.fadd", d_reduce, 0, NULL),
    OTHER("llvm.masked.load", d_mload, 0, NULL),
    OTHER("llvm.masked.store", d_mstore, 1, NULL),
    /* the same on vectors of pointers (AVX2/AVX-512 vectorizers) */
    OTHER("llvm.masked.gather", d_mload, 0, NULL),
    OTHER("llvm.masked.scatter", d_mstore, 1, NULL),
};

const ad_typed_rule *ad_memory_typed_lookup(const char *name) {
  for (size_t i = 0; i < sizeof memory_rules / sizeof *memory_rules; i++)
    if (ad_name_matches(name, memory_rules[i].rule.name))
      return &memory_rules[i];
  return NULL;
}

const ad_call_rule *ad_memory_lookup(const char *name) {
  const ad_typed_rule *r = ad_memory_typed_lookup(name);
  return r ? &r->rule : NULL;
}
