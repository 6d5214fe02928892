/*
 * CUDA memory calls in reverse mode: transfers, allocations, frees and
 * memsets of the CUDA family (rules/cuda.c's rows, read through
 * rules/cuda.h), done from the host through the CUDA API itself.  Device
 * memory is never dereferenced: a device shadow is read into a host
 * scratch buffer, accumulated there, and copied back.
 *
 *   aug       allocations get a zeroed shadow as in forward mode (the same
 *             call on the out-parameter's shadow slot, then the memset of
 *             the allocation's ABI); the shadow's address is kept in a
 *             node of the gradient's device list (freed by its guard if
 *             an exception leaves aug, exceptions.c) recorded on the
 *             tape.  Frees of the primal stay; the shadow lives on
 *             until the reverse of its allocation.  Transfers of float
 *             data do nothing (shadow memory holds the adjoint seeds);
 *             of pointer and integer data they are forward mode's rule.
 *   reverse   a transfer dst <- src of float data: src' += dst', then
 *             dst' = 0:
 *                 t = dst' (read: DtoH, or a host copy)
 *                 dst' = 0 (cuMemsetD8[_v2] / cudaMemset, a host memset,
 *                           or zeros through the unified copy)
 *                 u = src'; u += t; src' = u (read, add on the host, write)
 *             in that order, so overlapping ranges (DtoD) end right; an
 *             async transfer does each step on its stream and
 *             synchronizes it before the host touches what the stream
 *             wrote or may still read (the scratch buffers, host shadows),
 *             so every reverse step is complete when the next begins.
 *             A memset of float memory zeroes its shadow; an allocation's
 *             shadow is freed.
 * Every CUDA helper is declared next to the call it accompanies
 * (ad_cuda_call_helper): its calling convention, its `ejlstr$...$lib`
 * rename.  A reverse CUDA call that fails traps: generated code has no
 * error channel, and a gradient computed past a failed copy would be
 * silently wrong.  Streams must outlive the gradient (the reverse runs on
 * the stream the primal used).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"
#include "ad/rules/cuda.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

typedef enum cuda_plan_kind {
  CUDA_PLAN_COPY, /* float data moved: the adjoint copy */
  CUDA_PLAN_SET,  /* float memory set: its shadow zeroed */
  CUDA_PLAN_ALLOC /* a shadow allocation: freed */
} cuda_plan_kind;

typedef struct cuda_plan {
  cuda_plan_kind kind;
  const ad_cuda_rule_data *d;
  LLVMTypeRef elem; /* CUDA_PLAN_COPY: the float type moved; _ALLOC: the
                       shadow's (an address or a pointer) */
} cuda_plan;

void ad_rev_cuda_free_plans(ad_rev_fn *r) {
  for (size_t i = 0; i < r->cuda_plans.cap; i++)
    if (r->cuda_plans.keys[i])
      free(r->cuda_plans.vals[i]);
  ad_map_free(&r->cuda_plans);
}

static int fail_call(ad_rev_fn *r, LLVMValueRef call, const char *what,
                     const char *name) {
  return ad_fail_code(r->mc, TANJIT_ERR_UNSUPPORTED, call,
                      "reverse mode: %s %s", name, what);
}

static int new_plan(ad_rev_fn *r, LLVMValueRef call, cuda_plan_kind kind,
                    const ad_cuda_rule_data *d, LLVMTypeRef elem) {
  cuda_plan *p = tj_calloc(1, sizeof *p);
  if (!p || ad_map_put(&r->cuda_plans, call, p) != 0) {
    free(p);
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  p->kind = kind, p->d = d, p->elem = elem;
  return 0;
}

static LLVMValueRef operand(LLVMValueRef call, signed char k) {
  return k >= 0 ? LLVMGetOperand(call, (unsigned)k) : NULL;
}

/* What a transfer's bytes hold by type analysis: floats of one type (1,
 * *elem), none (0), a mix with pointers or integers (-1), only bytes it does
 * not know, perhaps with floats of type *elem (-3), an error (-2). */
static int layout_kind(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef dst,
                       LLVMValueRef src, LLVMValueRef len, LLVMTypeRef *elem) {
  ad_rev_bytes_census c;
  *elem = NULL;
  if (ad_rev_copy_census(r, call, dst, src, len, &c) != 0)
    return -2;
  *elem = c.elem;
  if (c.other)
    return c.floats || c.unknown ? -1 : 0;
  if (c.unknown)
    return -3;
  return c.elem ? 1 : -1;
}

/* The one float type the function's transfers that type analysis
 * understands move (those from and to host memory, typically), or NULL
 * when none or several. */
static LLVMTypeRef transfers_float(ad_rev_fn *r) {
  LLVMTypeRef found = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->fc.primal_fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i))
        continue;
      ad_cuda_op op;
      const ad_cuda_rule_data *d =
          ad_cuda_rule_data_of(ad_rule_of_call(r->mc, i), &op);
      if (!d || op != AD_CUDA_OP_COPY ||
          d->len >= (int)LLVMGetNumArgOperands(i))
        continue;
      LLVMTypeRef t = NULL;
      if (layout_kind(r, i, operand(i, d->dst), operand(i, d->src),
                      operand(i, d->len), &t) != 1)
        continue;
      if (found && found != t)
        return NULL;
      found = t;
    }
  return found;
}

/* What a transfer's bytes hold: floats of one type (1, *elem), none (0),
 * a mix or bytes of no known float type (-1), an error (-2).  Device bytes
 * type analysis cannot follow (a device address reloaded from its slot
 * after a call) take the float type of the function's other transfers
 * when they agree on one. */
static int transfer_kind(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef dst,
                         LLVMValueRef src, LLVMValueRef len,
                         LLVMTypeRef *elem) {
  int k = layout_kind(r, call, dst, src, len, elem);
  if (k != -3)
    return k;
  LLVMTypeRef t = transfers_float(r);
  if (!t || (*elem && *elem != t))
    return -1;
  *elem = t;
  return 1;
}

/* Whether the call has every operand the row names. */
static int has_operands(const ad_cuda_rule_data *d, LLVMValueRef call) {
  const signed char ks[] = {d->dst,  d->src,    d->len,
                            d->kind, d->stream, d->pitch};
  int need = -1;
  for (size_t i = 0; i < sizeof ks; i++)
    if (ks[i] > need)
      need = ks[i];
  return need < (int)LLVMGetNumArgOperands(call);
}

static int aug_transfer(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef clone,
                        const ad_call_rule *rule, const ad_cuda_rule_data *d) {
  ad_fn_ctx *fc = &r->fc;
  LLVMValueRef dst = operand(call, d->dst), src = operand(call, d->src);
  LLVMValueRef len = operand(call, d->len);
  LLVMTypeRef elem = NULL;
  if (!ad_shadow_or_null(fc, dst)) {
    if (ad_is_active(fc, src) && ad_shadow_or_null(fc, src) &&
        transfer_kind(r, call, dst, src, len, &elem) != 0)
      return fail_call(r, call,
                       "copies active memory into memory with no shadow",
                       rule->name);
    return 0;
  }
  int k = transfer_kind(r, call, dst, src, len, &elem);
  if (k == -2)
    return -1;
  if (k < 0)
    return fail_call(r, call,
                     "of memory whose bytes are not all floats of one type "
                     "nor all pointers and integers (mixed or unknown to "
                     "type analysis) is not supported",
                     rule->name);
  if (k == 0) /* pointers and integers: their shadows move as forward mode
                 moves them */
    return rule->emit(fc, rule, call, clone);
  return new_plan(r, call, CUDA_PLAN_COPY, d, elem);
}

static LLVMValueRef unwind_free_thunk(ad_rev_fn *r, LLVMValueRef call,
                                      const ad_cuda_rule_data *d,
                                      LLVMTypeRef st);

int ad_rev_cuda_aug(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef clone,
                    const ad_call_rule *rule) {
  ad_cuda_op op;
  const ad_cuda_rule_data *d = ad_cuda_rule_data_of(rule, &op);
  if (!d)
    return 1;
  if (op == AD_CUDA_OP_INACTIVE || op == AD_CUDA_OP_FREE)
    return 0; /* a shadow is freed at the reverse of its allocation */
  if (!has_operands(d, call))
    return ad_fail(r->mc, call,
                   "%s is called with %u arguments, fewer than its "
                   "derivative rule needs",
                   rule->name, LLVMGetNumArgOperands(call));
  ad_fn_ctx *fc = &r->fc;
  switch (op) {
  case AD_CUDA_OP_COPY:
    return aug_transfer(r, call, clone, rule, d);
  case AD_CUDA_OP_ALLOC: {
    LLVMValueRef made = NULL;
    if (ad_cuda_emit_alloc_shadow(fc, rule, call, clone, &made) != 0)
      return -1;
    if (!made)
      return 0;
    /* kept where the gradient's guard frees it should an exception leave
     * aug first (exceptions.c), and recorded for the reverse */
    LLVMValueRef thunk = unwind_free_thunk(r, call, d, LLVMTypeOf(made));
    LLVMValueRef node = ad_rev_own_device_shadow(r, fc->b, made, thunk);
    if (ad_rev_record(r, call, node) != 0)
      return -1;
    return new_plan(r, call, CUDA_PLAN_ALLOC, d, LLVMTypeOf(made));
  }
  case AD_CUDA_OP_SET: {
    LLVMValueRef dst = operand(call, d->dst);
    if (!ad_shadow_or_null(fc, dst))
      return 0;
    unsigned bits = 0;
    if (ad_types_kind(fc->types, dst, 0, &bits) == AD_T_FLOAT)
      return new_plan(r, call, CUDA_PLAN_SET, d, NULL);
    return rule->emit(fc, rule, call, clone); /* integer bytes: replayed */
  }
  default:
    return 0;
  }
}

/* ---- the reverse ---- */

/* Traps where status `rc` (a CUDA call's result) is not success. */
static void trap_unless_success(ad_fn_ctx *fc, LLVMValueRef rc) {
  if (!rc || LLVMGetTypeKind(LLVMTypeOf(rc)) != LLVMIntegerTypeKind)
    return;
  LLVMContextRef c = fc->mc->llctx;
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(fc->b));
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(c, fn, "cuda.failed");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "cuda.ok");
  LLVMBuildCondBr(
      fc->b,
      LLVMBuildICmp(fc->b, LLVMIntEQ, rc, LLVMConstNull(LLVMTypeOf(rc)), ""),
      ok, bad);
  LLVMPositionBuilderAtEnd(fc->b, bad);
  ad_build_trap(fc->mc->mod, fc->b);
  LLVMPositionBuilderAtEnd(fc->b, ok);
}

/* One reverse transfer being emitted: the primal call, its row, the
 * values the reverse reads (from the tape). */
typedef struct rev_site {
  ad_fn_ctx *fc; /* builder at the reverse */
  LLVMValueRef call;
  const ad_cuda_rule_data *d;
  LLVMValueRef stream; /* NULL: the synchronous calls */
  LLVMTypeRef len_t;   /* the size type of the call (32 bits: old names) */
  LLVMTypeRef dev_t;   /* a driver device address's type */
} rev_site;

/* Integer v at width of t (sizes: zero-extended or truncated). */
static LLVMValueRef resize(LLVMBuilderRef b, LLVMValueRef v, LLVMTypeRef t) {
  unsigned from = LLVMGetIntTypeWidth(LLVMTypeOf(v));
  unsigned to = LLVMGetIntTypeWidth(t);
  if (from == to)
    return v;
  return from < to ? LLVMBuildZExt(b, v, t, "") : LLVMBuildTrunc(b, v, t, "");
}

static LLVMTypeRef ptr_type(ad_fn_ctx *fc) {
  return LLVMPointerTypeInContext(fc->mc->llctx, 0);
}

static int len32(const rev_site *s) {
  return LLVMGetIntTypeWidth(s->len_t) <= 32;
}

static LLVMValueRef as_len(const rev_site *s, LLVMValueRef n) {
  return resize(s->fc->b, n, s->len_t);
}

static void synchronize(const rev_site *s) {
  if (!s->stream)
    return;
  LLVMTypeRef st = LLVMTypeOf(s->stream);
  LLVMValueRef arg = s->stream;
  const char *name = s->d->api == AD_CUDA_DRIVER ? "cuStreamSynchronize"
                                                 : "cudaStreamSynchronize";
  trap_unless_success(s->fc,
                      ad_cuda_call_helper(s->fc, s->call, name,
                                          ad_cuda_status_type(s->fc, s->call),
                                          &st, &arg, 1));
}

/* A transfer of n bytes through the API: direction `kind` (HTOD, DTOH or
 * DEFAULT for unified addressing), on the site's stream if it has one. */
static int api_copy(const rev_site *s, int kind, LLVMValueRef dst,
                    LLVMValueRef src, LLVMValueRef n) {
  ad_fn_ctx *fc = s->fc;
  LLVMTypeRef params[5];
  LLVMValueRef args[5] = {dst, src, NULL, NULL, NULL};
  unsigned nargs = 3;
  const char *name;
  char buf[64];
  if (s->d->api == AD_CUDA_DRIVER) {
    const char *base = kind == AD_CUDA_KIND_HTOD   ? "cuMemcpyHtoD"
                       : kind == AD_CUDA_KIND_DTOH ? "cuMemcpyDtoH"
                                                   : "cuMemcpy";
    /* unified cuMemcpy[Async] has no _v2; the others pair with the size
     * type of the call they accompany */
    snprintf(buf, sizeof buf, "%s%s%s", base, s->stream ? "Async" : "",
             kind != AD_CUDA_KIND_DEFAULT && !len32(s) ? "_v2" : "");
    name = buf;
    params[0] = kind == AD_CUDA_KIND_DTOH ? ptr_type(fc) : s->dev_t;
    params[1] = kind == AD_CUDA_KIND_HTOD ? ptr_type(fc) : s->dev_t;
    params[2] = s->len_t;
    args[2] = as_len(s, n);
  } else {
    name = s->stream ? "cudaMemcpyAsync" : "cudaMemcpy";
    LLVMTypeRef i32 = LLVMInt32TypeInContext(fc->mc->llctx);
    params[0] = params[1] = ptr_type(fc);
    params[2] = LLVMInt64TypeInContext(fc->mc->llctx);
    args[2] = resize(fc->b, n, params[2]);
    params[3] = i32;
    args[3] = LLVMConstInt(i32, (unsigned long long)kind, 0);
    nargs = 4;
  }
  if (s->stream) {
    params[nargs] = LLVMTypeOf(s->stream);
    args[nargs++] = s->stream;
  }
  LLVMValueRef rc = ad_cuda_call_helper(
      fc, s->call, name, ad_cuda_status_type(fc, s->call), params, args, nargs);
  if (!rc)
    return -1;
  trap_unless_success(fc, rc);
  return 0;
}

/* host <- the n bytes at `at` in `space` */
static int read_into(const rev_site *s, ad_cuda_space space, LLVMValueRef host,
                     LLVMValueRef at, LLVMValueRef n) {
  ad_fn_ctx *fc = s->fc;
  if (space == AD_CUDA_HOST) {
    LLVMBuildMemCpy(fc->b, host, 1, ad_address_as(fc, at, ptr_type(fc)), 1, n);
    return 0;
  }
  return api_copy(
      s, space == AD_CUDA_DEVICE ? AD_CUDA_KIND_DTOH : AD_CUDA_KIND_DEFAULT,
      host, at, n);
}

/* the n bytes at `at` in `space` <- host */
static int write_from(const rev_site *s, ad_cuda_space space, LLVMValueRef at,
                      LLVMValueRef host, LLVMValueRef n) {
  ad_fn_ctx *fc = s->fc;
  if (space == AD_CUDA_HOST) {
    LLVMBuildMemCpy(fc->b, ad_address_as(fc, at, ptr_type(fc)), 1, host, 1, n);
    return 0;
  }
  return api_copy(
      s, space == AD_CUDA_DEVICE ? AD_CUDA_KIND_HTOD : AD_CUDA_KIND_DEFAULT, at,
      host, n);
}

/* the n bytes at `at` in `space` <- 0; `zeros` a zeroed host buffer of n
 * bytes (the unified case copies it) */
static int zero_at(const rev_site *s, ad_cuda_space space, LLVMValueRef at,
                   LLVMValueRef n, LLVMValueRef zeros) {
  ad_fn_ctx *fc = s->fc;
  if (space == AD_CUDA_HOST) {
    LLVMBuildMemSet(fc->b, ad_address_as(fc, at, ptr_type(fc)),
                    LLVMConstNull(LLVMInt8TypeInContext(fc->mc->llctx)), n, 1);
    return 0;
  }
  if (space == AD_CUDA_DEVICE) {
    LLVMValueRef rc =
        ad_cuda_zero_device(fc, s->d, s->call, s->stream, at, as_len(s, n));
    if (!rc)
      return -1;
    trap_unless_success(fc, rc);
    return 0;
  }
  return write_from(s, space, at, zeros, n);
}

static LLVMValueRef host_buffer(ad_fn_ctx *fc, LLVMValueRef n) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(fc->mc->llctx);
  LLVMTypeRef params[2] = {i64, i64};
  LLVMValueRef args[2] = {n, LLVMConstInt(i64, 1, 0)};
  /* host memory from the C library, whatever library the call is from */
  return ad_cuda_call_helper(fc, NULL, "calloc", ptr_type(fc), params, args, 2);
}

static void free_host(ad_fn_ctx *fc, LLVMValueRef p) {
  LLVMTypeRef pt = ptr_type(fc);
  ad_cuda_call_helper(fc, NULL, "free", LLVMVoidTypeInContext(fc->mc->llctx),
                      &pt, &p, 1);
}

static int reverse_transfer(ad_rev_fn *r, LLVMValueRef call,
                            const cuda_plan *p) {
  ad_module_ctx *mc = r->mc;
  const ad_cuda_rule_data *d = p->d;
  ad_fn_ctx here = r->fc;
  here.b = r->rb;
  ad_fn_ctx *fc = &here;
  LLVMValueRef dst = operand(call, d->dst), src = operand(call, d->src);
  LLVMValueRef kind = operand(call, d->kind);
  rev_site s = {fc,
                call,
                d,
                NULL,
                LLVMTypeOf(operand(call, d->len)),
                LLVMInt64TypeInContext(mc->llctx)};
  if (d->stream >= 0)
    s.stream = ad_rev_primal(r, operand(call, d->stream));
  if (LLVMGetTypeKind(LLVMTypeOf(dst)) == LLVMIntegerTypeKind)
    s.dev_t = LLVMTypeOf(dst);
  else if (LLVMGetTypeKind(LLVMTypeOf(src)) == LLVMIntegerTypeKind)
    s.dev_t = LLVMTypeOf(src);
  ad_cuda_space dspace = ad_cuda_space_of(d, kind, 0);
  ad_cuda_space sspace = ad_cuda_space_of(d, kind, 1);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMValueRef n = resize(fc->b, ad_rev_primal(r, operand(call, d->len)), i64);
  LLVMValueRef count = LLVMBuildUDiv(
      fc->b, n, LLVMConstInt(i64, LLVMABISizeOfType(mc->td, p->elem), 0), "");
  /* memory whose shadow is itself (inactive at run time) takes no part */
  LLVMBasicBlockRef after_dst = ad_rev_guard(r, dst);
  LLVMValueRef ds = ad_rev_shadow(r, dst);
  LLVMValueRef t = host_buffer(fc, n), u = host_buffer(fc, n);
  if (!t || !u)
    return -1;
  if (read_into(&s, dspace, t, ds, n) != 0)
    return -1;
  synchronize(&s); /* t is read on the host below; dst' is zeroed next */
  if (zero_at(&s, dspace, ds, n, u) != 0)
    return -1;
  if (dspace == AD_CUDA_UNIFIED)
    synchronize(&s); /* the zeros are read from u, which is reused next */
  if (ad_shadow_or_null(&r->fc, src)) {
    LLVMBasicBlockRef after_src = NULL;
    LLVMValueRef ss = ad_rev_shadow(r, src);
    if (ad_shadow_may_equal_primal(&r->fc, src)) {
      LLVMContextRef c = mc->llctx;
      LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(fc->b));
      LLVMBasicBlockRef add_bb =
          LLVMAppendBasicBlockInContext(c, fn, "cuda.add");
      after_src = LLVMAppendBasicBlockInContext(c, fn, "cuda.added");
      LLVMValueRef same =
          LLVMBuildICmp(fc->b, LLVMIntEQ, ad_address_as(fc, ss, i64),
                        ad_address_as(fc, ad_rev_primal(r, src), i64), "");
      LLVMBuildCondBr(fc->b, same, after_src, add_bb);
      LLVMPositionBuilderAtEnd(fc->b, add_bb);
    }
    if (read_into(&s, sspace, u, ss, n) != 0)
      return -1;
    synchronize(&s);
    LLVMValueRef acc =
        ad_rev_typed_helper(mc, AD_REV_LOOP_ACCUMULATE, p->elem);
    LLVMValueRef args[3] = {u, t, count};
    LLVMBuildCall2(fc->b, LLVMGlobalGetValueType(acc), acc, args, 3, "");
    if (write_from(&s, sspace, ss, u, n) != 0)
      return -1;
    if (after_src) {
      LLVMBuildBr(fc->b, after_src);
      LLVMPositionBuilderAtEnd(fc->b, after_src);
    }
  }
  synchronize(&s); /* the stream may still read u before it is freed */
  free_host(fc, t);
  free_host(fc, u);
  ad_rev_guard_end(r, after_dst);
  return mc->diag.failed ? -1 : 0;
}

static int reverse_set(ad_rev_fn *r, LLVMValueRef call, const cuda_plan *p) {
  ad_fn_ctx here = r->fc;
  here.b = r->rb;
  unsigned n = LLVMGetNumArgOperands(call);
  if (n > 8)
    return fail_call(r, call, "with more than 8 arguments", "a memset");
  unsigned ops[8];
  LLVMValueRef vals[8];
  LLVMBasicBlockRef after = ad_rev_guard(r, operand(call, p->d->dst));
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    ops[k] = k;
    vals[k] = (int)k == p->d->dst ? ad_rev_shadow(r, a)
              : k == 1            ? LLVMConstNull(LLVMTypeOf(a))
                                  : ad_rev_primal(r, a);
  }
  /* the same memset with the byte 0, on the shadow: dst' = 0 */
  trap_unless_success(&here, ad_replay_call(&here, call, ops, vals, n));
  rev_site s = {&here, call, p->d, NULL, NULL, NULL};
  if (p->d->stream >= 0)
    s.stream = ad_rev_primal(r, operand(call, p->d->stream));
  else if (n == 4) /* cuMemsetD8Async and kin: the stream comes last */
    s.stream = vals[3];
  synchronize(&s);
  ad_rev_guard_end(r, after);
  return 0;
}

/* Emits at here->b the free of allocation call's shadow (skipped when
 * null), by the API that made it; its status trapped on unless `lenient`
 * (the guard's cleanup, where an exception is already on its way). */
static void free_shadow(ad_fn_ctx *here, LLVMValueRef call,
                        const ad_cuda_rule_data *d, LLVMValueRef shadow,
                        int lenient) {
  LLVMContextRef c = here->mc->llctx;
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(here->b));
  LLVMBasicBlockRef free_bb =
      LLVMAppendBasicBlockInContext(c, fn, "shadow.free");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c, fn, "shadow.freed");
  LLVMBuildCondBr(here->b,
                  LLVMBuildICmp(here->b, LLVMIntEQ, shadow,
                                LLVMConstNull(LLVMTypeOf(shadow)), ""),
                  join, free_bb);
  LLVMPositionBuilderAtEnd(here->b, free_bb);
  int len32 = d->len >= 0 &&
              LLVMGetIntTypeWidth(LLVMTypeOf(operand(call, d->len))) <= 32;
  const char *name;
  if (d->dest == AD_CUDA_HOST)
    name = d->api == AD_CUDA_DRIVER ? "cuMemFreeHost" : "cudaFreeHost";
  else if (d->api == AD_CUDA_DRIVER)
    name = len32 ? "cuMemFree" : "cuMemFree_v2";
  else
    name = "cudaFree";
  LLVMTypeRef st = LLVMTypeOf(shadow);
  LLVMValueRef rc = ad_cuda_call_helper(here, call, name,
                                        ad_cuda_status_type(here, call), &st,
                                        &shadow, 1);
  if (rc && !lenient)
    trap_unless_success(here, rc);
  LLVMBuildBr(here->b, join);
  LLVMPositionBuilderAtEnd(here->b, join);
}

/* `void (ptr node)`: frees the shadow of allocation call kept in an
 * exception guard's device node (exceptions.c), for when an exception
 * leaves aug before the reverse could. */
static LLVMValueRef unwind_free_thunk(ad_rev_fn *r, LLVMValueRef call,
                                      const ad_cuda_rule_data *d,
                                      LLVMTypeRef st) {
  ad_module_ctx *mc = r->mc;
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef fn;
  ad_fn_ctx here = r->fc;
  here.b = ad_define_internal(
      mc->mod, "tanjit.rev.cuda.unwind.free",
      LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0), &fn);
  here.deriv_fn = fn;
  free_shadow(&here, call, d,
              ad_rev_device_shadow_of(mc, here.b, LLVMGetParam(fn, 0), st), 1);
  LLVMBuildRetVoid(here.b);
  LLVMDisposeBuilder(here.b);
  return fn;
}

static int reverse_alloc(ad_rev_fn *r, LLVMValueRef call, const cuda_plan *p) {
  ad_fn_ctx here = r->fc;
  here.b = r->rb;
  /* the node aug kept for the guard holds the shadow */
  LLVMValueRef node = ad_rev_recorded(r, call);
  if (!node)
    return 0;
  free_shadow(&here, call, p->d,
              ad_rev_device_shadow_of(r->mc, here.b, node, p->elem), 0);
  ad_rev_call_libc(r->mc, here.b, "free", &node, 1);
  return 0;
}

int ad_rev_cuda_reverse(ad_rev_fn *r, LLVMValueRef call) {
  cuda_plan *p = ad_map_get(&r->cuda_plans, call);
  if (!p)
    return 0;
  switch (p->kind) {
  case CUDA_PLAN_COPY:
    return reverse_transfer(r, call, p);
  case CUDA_PLAN_SET:
    return reverse_set(r, call, p);
  case CUDA_PLAN_ALLOC:
    return reverse_alloc(r, call, p);
  }
  return 0;
}
