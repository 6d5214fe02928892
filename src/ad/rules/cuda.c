/*
 * CUDA memory calls (driver and runtime API) in forward mode, Enzyme's way.
 *
 * Device memory is not host-addressable, so a shadow is never touched with
 * LLVM loads, stores or memcpy: every shadow operation is the same API call
 * on shadow operands, replayed from the primal call (same callee value, so
 * an `ejlstr$cuMemcpyHtoD_v2$libcuda.so.1` shadow resolves from the same
 * RTLD_LOCAL library; same attributes, convention and !dbg).
 *
 *   transfers   the copy rule of rules/copy.c with a CUDA emitter: the shadow
 *               transfer is the same call (kind and stream unchanged); a
 *               shadow destination that must be zeroed gets cuMemsetD8[_v2]
 *               / cuMemsetD8Async / cudaMemset[Async] when it is device
 *               memory, an LLVM memset when it is host memory, and, when
 *               only run time knows (unified cuMemcpy, cudaMemcpyDefault, a
 *               kind that is not a constant), a copy from a zeroed host
 *               buffer through the same call (kind cudaMemcpyDefault;
 *               the stream is synchronized before the buffer is freed).
 *   allocations the same call on the out-parameter's shadow slot, which so
 *               receives the shadow device pointer, then zeroed with the
 *               memset whose size type matches the allocation's (the plain
 *               cuMemAlloc takes `unsigned int`: cuMemsetD8; size_t:
 *               cuMemsetD8_v2; async: on its stream).  Managed memory is
 *               device memory to the memset too; its shadow is managed
 *               memory as well, so the program's own loads and stores
 *               through it have host-addressable shadows.  A pitched
 *               allocation (cuMemAllocPitch[_v2], cudaMallocPitch) writes
 *               its pitch into a slot of the shadow's own, so the
 *               program's pitch is written by its own call only (the
 *               slot's shadow, if any, gets a copy, as integers' shadows
 *               do); pitch * height bytes are zeroed.
 *   frees       the shadow too, when it differs from the primal (a checked
 *               free: a device free of an address twice is an error).
 *   memsets     the same bytes into the shadow (as for host memset).
 *
 * A CUdeviceptr is an integer: its shadow is a "shadow integer"
 * (core/context.h); the argument types in the table below tell type analysis
 * (analysis/type_transfer.c) these calls' integer pointers, so activity demands
 * them as it demands pointer arguments.  Helpers (memsets, synchronization) are
 * declared with ad_get_or_insert_helper next to the call, so they follow
 * its convention and rename; none carries `nocapture` (an integer cannot be
 * captured).  rules/cuda.h exports the rows' data and these helpers to
 * reverse mode (rev/cuda.c).
 */
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rules/cuda.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"

static LLVMTypeRef i8_t(ad_fn_ctx *fc) {
  return LLVMInt8TypeInContext(fc->mc->llctx);
}
static LLVMTypeRef i32_t(ad_fn_ctx *fc) {
  return LLVMInt32TypeInContext(fc->mc->llctx);
}
static LLVMTypeRef i64_t(ad_fn_ctx *fc) {
  return LLVMInt64TypeInContext(fc->mc->llctx);
}
static LLVMTypeRef ptr_t(ad_fn_ctx *fc) {
  return LLVMPointerTypeInContext(fc->mc->llctx, 0);
}

/* The status type the API returns (CUresult / cudaError_t). */
LLVMTypeRef ad_cuda_status_type(ad_fn_ctx *fc, LLVMValueRef call) {
  LLVMTypeRef t = LLVMTypeOf(call);
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? t : i32_t(fc);
}

/* Calls helper `name` of type (params) -> ret, declared next to `call`.
 * Called through our own type: a declaration already in the module under
 * another prototype still gets a well-typed call. */
LLVMValueRef ad_cuda_call_helper(ad_fn_ctx *fc, LLVMValueRef call,
                                 const char *name, LLVMTypeRef ret,
                                 LLVMTypeRef *params, LLVMValueRef *args,
                                 unsigned n) {
  LLVMTypeRef ft = LLVMFunctionType(ret, params, n, 0);
  LLVMValueRef fn = ad_get_or_insert_helper(fc->mc->mod, call, name, ft);
  if (!fn) {
    ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    return NULL;
  }
  for (unsigned i = 0; i < n; i++)
    args[i] = ad_address_as(fc, args[i], params[i]);
  LLVMValueRef c = LLVMBuildCall2(fc->b, ft, fn, args, n, "");
  LLVMSetInstructionCallConv(c, LLVMGetFunctionCallConv(fn));
  if (call && LLVMInstructionGetDebugLoc(call))
    LLVMInstructionSetDebugLoc(c, LLVMInstructionGetDebugLoc(call));
  return c;
}

static LLVMValueRef stream_of(const ad_cuda_rule_data *d, LLVMValueRef clone) {
  return d->stream >= 0 ? LLVMGetOperand(clone, (unsigned)d->stream) : NULL;
}

/* Zeroes `n` bytes of device memory at `dst` with the API's memset. The
 * driver's memset matches the size type of the call it accompanies: the
 * old 32-bit entry points pair with cuMemsetD8 (unsigned int), the size_t
 * ones with cuMemsetD8_v2; cuMemsetD8Async only exists with size_t. */
LLVMValueRef ad_cuda_zero_device(ad_fn_ctx *fc, const ad_cuda_rule_data *d,
                                 LLVMValueRef call, LLVMValueRef stream,
                                 LLVMValueRef dst, LLVMValueRef n) {
  LLVMTypeRef ret = ad_cuda_status_type(fc, call);
  LLVMValueRef args[4];
  LLVMTypeRef params[4];
  const char *name;
  unsigned nargs = 3;
  int len32 = LLVMGetIntTypeWidth(LLVMTypeOf(n)) <= 32;
  if (d->api == AD_CUDA_DRIVER) {
    params[0] = i64_t(fc), args[0] = dst;
    params[1] = i8_t(fc), args[1] = LLVMConstNull(i8_t(fc));
    if (stream) {
      name = "cuMemsetD8Async";
      params[2] = i64_t(fc);
      args[2] = LLVMBuildZExtOrBitCast(fc->b, n, i64_t(fc), "");
    } else {
      name = len32 ? "cuMemsetD8" : "cuMemsetD8_v2";
      params[2] = len32 ? i32_t(fc) : i64_t(fc);
      args[2] = len32 ? LLVMBuildTrunc(fc->b, n, i32_t(fc), "") : n;
    }
  } else {
    name = stream ? "cudaMemsetAsync" : "cudaMemset";
    params[0] = ptr_t(fc), args[0] = dst;
    params[1] = i32_t(fc), args[1] = LLVMConstNull(i32_t(fc));
    params[2] = i64_t(fc);
    args[2] = LLVMBuildZExtOrBitCast(fc->b, n, i64_t(fc), "");
  }
  if (stream) {
    params[3] = LLVMTypeOf(stream), args[3] = stream;
    nargs = 4;
  }
  return ad_cuda_call_helper(fc, call, name, ret, params, args, nargs);
}

/* Zeroes `n` bytes at `dst`, host or device as only run time knows: a
 * zeroed host buffer copied by the same call (kind cudaMemcpyDefault, so
 * unified addressing picks the direction). */
static int zero_through_host(ad_fn_ctx *fc, const ad_cuda_rule_data *d,
                             LLVMValueRef call, LLVMValueRef clone,
                             LLVMValueRef dst, LLVMValueRef n) {
  LLVMTypeRef size_params[2] = {i64_t(fc), i64_t(fc)};
  LLVMValueRef size_args[2] = {LLVMBuildZExtOrBitCast(fc->b, n, i64_t(fc), ""),
                               LLVMConstInt(i64_t(fc), 1, 0)};
  /* host memory from the C library, whatever library the call is from */
  LLVMValueRef buf = ad_cuda_call_helper(fc, NULL, "calloc", ptr_t(fc),
                                         size_params, size_args, 2);
  if (!buf)
    return -1;
  unsigned ops[4] = {(unsigned)d->dst, (unsigned)d->src, (unsigned)d->len};
  LLVMValueRef vals[4] = {dst, buf, n};
  unsigned nops = 3;
  if (d->kind >= 0) {
    ops[nops] = (unsigned)d->kind;
    vals[nops++] = LLVMConstInt(LLVMTypeOf(LLVMGetOperand(clone, d->kind)),
                                AD_CUDA_KIND_DEFAULT, 0);
  }
  ad_replay_call(fc, clone, ops, vals, nops);
  LLVMValueRef stream = stream_of(d, clone);
  if (stream) {
    /* the copy may still read the buffer until the stream drains */
    LLVMTypeRef sp = LLVMTypeOf(stream);
    LLVMValueRef sa = stream;
    const char *sync = d->api == AD_CUDA_DRIVER ? "cuStreamSynchronize"
                                                : "cudaStreamSynchronize";
    if (!ad_cuda_call_helper(fc, call, sync, ad_cuda_status_type(fc, call), &sp,
                             &sa, 1))
      return -1;
  }
  LLVMTypeRef fp = ptr_t(fc);
  return ad_cuda_call_helper(fc, NULL, "free",
                             LLVMVoidTypeInContext(fc->mc->llctx), &fp, &buf, 1)
             ? 0
             : -1;
}

/* The transfer's emitter for copy.c. */
typedef struct cuda_copy_site {
  const ad_cuda_rule_data *d;
  LLVMValueRef call;
} cuda_copy_site;

static int cuda_copy(ad_fn_ctx *fc, const ad_copy_emitter *em,
                     LLVMValueRef clone, LLVMValueRef dst, LLVMValueRef src,
                     LLVMValueRef n) {
  const cuda_copy_site *site = em->data;
  const ad_cuda_rule_data *d = site->d;
  unsigned ops[3] = {(unsigned)d->dst, (unsigned)d->src, (unsigned)d->len};
  LLVMValueRef vals[3] = {dst, src, n};
  ad_replay_call(fc, clone, ops, vals, 3);
  return 0;
}

ad_cuda_space ad_cuda_space_of(const ad_cuda_rule_data *d, LLVMValueRef kind,
                               int source) {
  ad_cuda_space side = source ? d->source : d->dest;
  if (side != AD_CUDA_BY_KIND)
    return side;
  if (!kind || !LLVMIsAConstantInt(kind))
    return AD_CUDA_UNIFIED;
  switch (LLVMConstIntGetZExtValue(kind)) {
  case AD_CUDA_KIND_HTOH:
    return AD_CUDA_HOST;
  case AD_CUDA_KIND_HTOD:
    return source ? AD_CUDA_HOST : AD_CUDA_DEVICE;
  case AD_CUDA_KIND_DTOH:
    return source ? AD_CUDA_DEVICE : AD_CUDA_HOST;
  case AD_CUDA_KIND_DTOD:
    return AD_CUDA_DEVICE;
  default:
    return AD_CUDA_UNIFIED;
  }
}

static ad_cuda_space dest_of(const ad_cuda_rule_data *d, LLVMValueRef clone) {
  return ad_cuda_space_of(
      d, d->kind >= 0 ? LLVMGetOperand(clone, (unsigned)d->kind) : NULL, 0);
}

static int cuda_zero(ad_fn_ctx *fc, const ad_copy_emitter *em,
                     LLVMValueRef clone, LLVMValueRef dst, LLVMValueRef n) {
  const cuda_copy_site *site = em->data;
  switch (dest_of(site->d, clone)) {
  case AD_CUDA_HOST: {
    /* An async transfer's earlier shadow copies into this host region may
     * still be in flight: drain the stream before the host writes zeros. */
    LLVMValueRef stream = stream_of(site->d, clone);
    if (stream) {
      LLVMTypeRef sp = LLVMTypeOf(stream);
      LLVMValueRef sa = stream;
      const char *sync = site->d->api == AD_CUDA_DRIVER
                             ? "cuStreamSynchronize"
                             : "cudaStreamSynchronize";
      if (!ad_cuda_call_helper(fc, site->call, sync,
                               ad_cuda_status_type(fc, site->call), &sp, &sa,
                               1))
        return -1;
    }
    LLVMBuildMemSet(fc->b, ad_address_as(fc, dst, ptr_t(fc)),
                    LLVMConstNull(i8_t(fc)), n, 1);
    return 0;
  }
  case AD_CUDA_DEVICE:
    return ad_cuda_zero_device(fc, site->d, site->call,
                               stream_of(site->d, clone), dst, n)
               ? 0
               : -1;
  default:
    return zero_through_host(fc, site->d, site->call, clone, dst, n);
  }
}

static LLVMValueRef operand(LLVMValueRef call, signed char k) {
  return LLVMGetOperand(call, (unsigned)k);
}

/*
 * The shadow of an allocation is allocated only when the primal one
 * succeeded, and zeroed only when its own allocation did.  If a shadow
 * allocation fails (device memory for the primal but not for its shadow),
 * the call reports that failure to the program as its status: the
 * derivative cannot be computed, and a silent zero tangent would be wrong.
 * (The primal allocation is then the program's to free, as after any
 * allocation it believes failed: it leaks unless the program frees it.)
 */
static int emit_alloc(ad_fn_ctx *fc, const ad_cuda_rule_data *d,
                      LLVMValueRef call, LLVMValueRef clone,
                      LLVMValueRef *made) {
  LLVMValueRef slot_shadow = ad_shadow_or_null(fc, operand(call, d->dst));
  if (made)
    *made = NULL;
  if (!slot_shadow)
    return 0;
  LLVMValueRef n = ad_primal(fc, operand(call, d->len));
  LLVMValueRef pitch_slot = NULL, pitch_shadow = NULL;
  if (d->pitch >= 0) {
    pitch_shadow = ad_shadow_or_null(fc, operand(call, d->pitch));
    LLVMTypeRef height_t = LLVMTypeOf(n);
    if (LLVMGetTypeKind(height_t) != LLVMIntegerTypeKind)
      return ad_fail(fc->mc, call,
                     "%s: the height of a pitched allocation must be an "
                     "integer",
                     ad_value_name(call));
    /* The pitch has the height's width (size_t, or unsigned int for the
     * old cuMemAllocPitch); in the entry block, so a loop does not grow
     * the stack. */
    pitch_slot = ad_entry_alloca(fc->deriv_fn, height_t, "shadow.pitch");
  }
  /* pinned host memory (cuMemAllocHost, cudaMallocHost) is host-addressable:
   * a plain pointer, zeroed with an LLVM memset */
  int host = d->dest == AD_CUDA_HOST;
  LLVMTypeRef device_ptr =
      d->api == AD_CUDA_DRIVER && !host ? i64_t(fc) : ptr_t(fc);
  LLVMTypeRef st = LLVMTypeOf(clone);
  int has_status = LLVMGetTypeKind(st) == LLVMIntegerTypeKind;
  LLVMContextRef c = fc->mc->llctx;
  LLVMBasicBlockRef before = LLVMGetInsertBlock(fc->b);
  LLVMBasicBlockRef shadow_bb = NULL, join = NULL;
  if (has_status) {
    shadow_bb = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "shadow.alloc");
    join = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "shadow.allocated");
    LLVMBuildCondBr(fc->b,
                    LLVMBuildICmp(fc->b, LLVMIntEQ, clone, LLVMConstNull(st), ""),
                    shadow_bb, join);
    LLVMPositionBuilderAtEnd(fc->b, shadow_bb);
  }
  LLVMValueRef failure = has_status ? LLVMConstNull(st) : NULL;
  /* the shadow allocation's address where one was made, else null: what
   * reverse mode frees (made != NULL: width 1) */
  LLVMValueRef got = LLVMConstNull(device_ptr);
  /* An out-slot whose shadow may be the slot itself (inactive memory) gets
   * no shadow allocation there: it would overwrite the primal's address,
   * and nothing would free it. */
  int guard = ad_shadow_may_equal_primal(fc, operand(call, d->dst));
  LLVMValueRef primal_slot = ad_primal(fc, operand(call, d->dst));
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef slot = ad_lane(fc, slot_shadow, lane);
    LLVMBasicBlockRef guard_from = NULL, lane_done = NULL;
    LLVMValueRef failure_before = failure, got_before = got;
    if (guard) {
      LLVMBasicBlockRef alloc_bb =
          LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "shadow.slot_active");
      lane_done = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "shadow.slot_done");
      LLVMValueRef same = LLVMBuildICmp(fc->b, LLVMIntEQ, slot, primal_slot, "");
      guard_from = LLVMGetInsertBlock(fc->b);
      LLVMBuildCondBr(fc->b, same, lane_done, alloc_bb);
      LLVMPositionBuilderAtEnd(fc->b, alloc_bb);
    }
    unsigned ops[2] = {(unsigned)d->dst, (unsigned)d->pitch};
    LLVMValueRef vals[2] = {slot, pitch_slot};
    LLVMValueRef rc =
        ad_replay_call(fc, clone, ops, vals, pitch_slot ? 2 : 1);
    if (!rc)
      return ad_fail(fc->mc, call, "internal: cannot replay %s", ad_value_name(call));
    /* a frontend may pass the out-parameter as an integer (Julia's
     * Ptr{CUdeviceptr} in an i64 ccall signature) */
    if (LLVMGetTypeKind(LLVMTypeOf(slot)) != LLVMPointerTypeKind)
      slot = ad_address_as(fc, slot, ptr_t(fc));
    LLVMBasicBlockRef zero_bb = NULL, next = NULL, checked = NULL;
    if (has_status) {
      checked = LLVMGetInsertBlock(fc->b);
      LLVMValueRef ok = LLVMBuildICmp(fc->b, LLVMIntEQ, rc, LLVMConstNull(st), "");
      failure = LLVMBuildSelect(fc->b, ok, failure, rc, "");
      zero_bb = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "shadow.zero");
      next = LLVMAppendBasicBlockInContext(c, fc->deriv_fn, "shadow.zeroed");
      LLVMBuildCondBr(fc->b, ok, zero_bb, next);
      LLVMPositionBuilderAtEnd(fc->b, zero_bb);
    }
    LLVMValueRef dev = LLVMBuildLoad2(fc->b, device_ptr, slot, "shadow.dev");
    LLVMValueRef bytes = n;
    if (pitch_slot) {
      LLVMValueRef pitch =
          LLVMBuildLoad2(fc->b, LLVMTypeOf(n), pitch_slot, "shadow.pitch");
      bytes = LLVMBuildMul(fc->b, pitch, n, "shadow.bytes");
      /* Where the program's pitch slot has a shadow, it mirrors the
       * integer the call wrote, as shadows of integer stores do: a pitch
       * read back through it (type analysis unsure what the slot holds)
       * still offsets rows correctly. */
      if (pitch_shadow)
        LLVMBuildStore(fc->b, pitch,
                       ad_address_as(fc, ad_lane(fc, pitch_shadow, lane),
                                     ptr_t(fc)));
    }
    if (host)
      LLVMBuildMemSet(fc->b, dev, LLVMConstNull(i8_t(fc)), bytes, 1);
    else if (!ad_cuda_zero_device(fc, d, call, stream_of(d, clone), dev, bytes))
      return -1;
    got = dev;
    if (has_status) {
      LLVMBasicBlockRef zeroed = LLVMGetInsertBlock(fc->b);
      LLVMBuildBr(fc->b, next);
      LLVMPositionBuilderAtEnd(fc->b, next);
      if (made) {
        got = LLVMBuildPhi(fc->b, device_ptr, "shadow.made");
        LLVMValueRef vals[2] = {got_before, dev};
        LLVMBasicBlockRef from[2] = {checked, zeroed};
        LLVMAddIncoming(got, vals, from, 2);
      }
    }
    if (guard) {
      LLVMBasicBlockRef body_end = LLVMGetInsertBlock(fc->b);
      LLVMBuildBr(fc->b, lane_done);
      LLVMPositionBuilderAtEnd(fc->b, lane_done);
      if (has_status) {
        LLVMValueRef merged = LLVMBuildPhi(fc->b, st, "");
        LLVMValueRef vals[2] = {failure_before, failure};
        LLVMBasicBlockRef from[2] = {guard_from, body_end};
        LLVMAddIncoming(merged, vals, from, 2);
        failure = merged;
      }
      if (made) {
        LLVMValueRef merged = LLVMBuildPhi(fc->b, device_ptr, "shadow.made");
        LLVMValueRef vals[2] = {got_before, got};
        LLVMBasicBlockRef from[2] = {guard_from, body_end};
        LLVMAddIncoming(merged, vals, from, 2);
        got = merged;
      }
    }
  }
  if (has_status) {
    LLVMBasicBlockRef last = LLVMGetInsertBlock(fc->b);
    LLVMBuildBr(fc->b, join);
    LLVMPositionBuilderAtEnd(fc->b, join);
    /* the program sees the primal's status, or the shadow's failure */
    LLVMValueRef status = LLVMBuildPhi(fc->b, st, "alloc.status");
    LLVMValueRef in_vals[2] = {clone, failure};
    LLVMBasicBlockRef in_bbs[2] = {before, last};
    LLVMAddIncoming(status, in_vals, in_bbs, 2);
    if (ad_map_put(&fc->vmap, call, status) != 0)
      return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    if (made) {
      LLVMValueRef merged = LLVMBuildPhi(fc->b, device_ptr, "shadow.made");
      LLVMValueRef vals[2] = {LLVMConstNull(device_ptr), got};
      LLVMAddIncoming(merged, vals, in_bbs, 2);
      got = merged;
    }
  }
  if (made)
    *made = got;
  return 0;
}

static int emit_free(ad_fn_ctx *fc, const ad_cuda_rule_data *d,
                     LLVMValueRef call, LLVMValueRef clone) {
  LLVMValueRef p = operand(call, d->dst);
  LLVMValueRef sp = ad_shadow_or_null(fc, p);
  if (!sp)
    return 0;
  LLVMValueRef primal = ad_primal(fc, p);
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef s = ad_lane(fc, sp, lane);
    LLVMBasicBlockRef free_bb = LLVMAppendBasicBlockInContext(
        fc->mc->llctx, fc->deriv_fn, "shadow.free");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(
        fc->mc->llctx, fc->deriv_fn, "shadow.freed");
    /* freeing a device address twice is an error: only a distinct shadow */
    LLVMValueRef same = LLVMBuildICmp(fc->b, LLVMIntEQ, s, primal, "");
    LLVMBuildCondBr(fc->b, same, join, free_bb);
    LLVMPositionBuilderAtEnd(fc->b, free_bb);
    unsigned op = (unsigned)d->dst;
    ad_replay_call(fc, clone, &op, &s, 1);
    LLVMBuildBr(fc->b, join);
    LLVMPositionBuilderAtEnd(fc->b, join);
  }
  return 0;
}

static int emit_set(ad_fn_ctx *fc, const ad_cuda_rule_data *d,
                    LLVMValueRef call, LLVMValueRef clone) {
  LLVMValueRef sd = ad_shadow_or_null(fc, operand(call, d->dst));
  if (!sd)
    return 0;
  for (unsigned lane = 0; lane < fc->width; lane++) {
    LLVMValueRef s = ad_lane(fc, sd, lane);
    unsigned op = (unsigned)d->dst;
    ad_replay_call(fc, clone, &op, &s, 1);
  }
  return 0;
}

/* Whether the call has every operand the row names (a declaration with
 * fewer parameters than the API's).  0, or -1 with the error. */
static int check_operands(ad_fn_ctx *fc, const ad_call_rule *rule,
                          LLVMValueRef call) {
  const ad_cuda_rule_data *d = rule->data;
  unsigned nargs = LLVMGetNumArgOperands(call);
  signed char need = d->dst;
  const signed char more[] = {d->src, d->len, d->kind, d->stream, d->pitch};
  for (size_t i = 0; i < sizeof more; i++)
    if (more[i] > need)
      need = more[i];
  if ((unsigned)need >= nargs)
    return ad_fail(fc->mc, call,
                   "%s is called with %u arguments; its derivative rule "
                   "needs at least %d",
                   rule->name, nargs, need + 1);
  return 0;
}

/* The transfer's copy rule: copy.c's walk (ad_differentiate_copy, or
 * ad_copy_non_float_shadows) with the CUDA emitter. */
typedef int (*copy_walk)(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef clone,
                         LLVMValueRef dst, LLVMValueRef src, LLVMValueRef len,
                         const ad_copy_emitter *em);

static int cuda_copy_by(copy_walk walk, ad_fn_ctx *fc,
                        const ad_call_rule *rule, LLVMValueRef call,
                        LLVMValueRef clone) {
  const ad_cuda_rule_data *d = rule->data;
  if (check_operands(fc, rule, call) != 0)
    return -1;
  cuda_copy_site site = {d, call};
  ad_copy_emitter em = {cuda_copy, cuda_zero, &site};
  return walk(fc, call, clone, operand(call, d->dst), operand(call, d->src),
              operand(call, d->len), &em);
}

static int emit_cuda_copy(ad_fn_ctx *fc, const ad_call_rule *rule,
                          LLVMValueRef call, LLVMValueRef clone) {
  return cuda_copy_by(ad_differentiate_copy, fc, rule, call, clone);
}

int ad_cuda_emit_non_float_copy(ad_fn_ctx *fc, const ad_call_rule *rule,
                                LLVMValueRef call, LLVMValueRef clone) {
  return cuda_copy_by(ad_copy_non_float_shadows, fc, rule, call, clone);
}

static int emit_cuda_alloc(ad_fn_ctx *fc, const ad_call_rule *rule,
                           LLVMValueRef call, LLVMValueRef clone) {
  return check_operands(fc, rule, call) != 0
             ? -1
             : emit_alloc(fc, rule->data, call, clone, NULL);
}

static int emit_cuda_free(ad_fn_ctx *fc, const ad_call_rule *rule,
                          LLVMValueRef call, LLVMValueRef clone) {
  return check_operands(fc, rule, call) != 0
             ? -1
             : emit_free(fc, rule->data, call, clone);
}

static int emit_cuda_set(ad_fn_ctx *fc, const ad_call_rule *rule,
                         LLVMValueRef call, LLVMValueRef clone) {
  return check_operands(fc, rule, call) != 0
             ? -1
             : emit_set(fc, rule->data, call, clone);
}

static int emit_none(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
                     LLVMValueRef clone) {
  (void)fc, (void)rule, (void)call, (void)clone;
  return 0;
}

static const ad_cuda_rule_data d_htod = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_DEVICE, .source = AD_CUDA_HOST,
    .dst = 0, .src = 1, .len = 2, .kind = -1, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_htod_async = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_DEVICE, .source = AD_CUDA_HOST,
    .dst = 0, .src = 1, .len = 2, .kind = -1, .stream = 3, .pitch = -1};
static const ad_cuda_rule_data d_dtoh = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_HOST, .source = AD_CUDA_DEVICE,
    .dst = 0, .src = 1, .len = 2, .kind = -1, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_dtoh_async = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_HOST, .source = AD_CUDA_DEVICE,
    .dst = 0, .src = 1, .len = 2, .kind = -1, .stream = 3, .pitch = -1};
static const ad_cuda_rule_data d_dtod = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_DEVICE, .source = AD_CUDA_DEVICE,
    .dst = 0, .src = 1, .len = 2, .kind = -1, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_dtod_async = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_DEVICE, .source = AD_CUDA_DEVICE,
    .dst = 0, .src = 1, .len = 2, .kind = -1, .stream = 3, .pitch = -1};
static const ad_cuda_rule_data d_unified = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_UNIFIED, .source = AD_CUDA_UNIFIED,
    .dst = 0, .src = 1, .len = 2, .kind = -1, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_unified_async = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_UNIFIED, .source = AD_CUDA_UNIFIED,
    .dst = 0, .src = 1, .len = 2, .kind = -1, .stream = 3, .pitch = -1};
static const ad_cuda_rule_data d_rt_copy = {
    .api = AD_CUDA_RUNTIME, .dest = AD_CUDA_BY_KIND, .source = AD_CUDA_BY_KIND,
    .dst = 0, .src = 1, .len = 2, .kind = 3, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_rt_copy_async = {
    .api = AD_CUDA_RUNTIME, .dest = AD_CUDA_BY_KIND, .source = AD_CUDA_BY_KIND,
    .dst = 0, .src = 1, .len = 2, .kind = 3, .stream = 4, .pitch = -1};
static const ad_cuda_rule_data d_cu_alloc = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_DEVICE, .dst = 0, .src = -1,
    .len = 1, .kind = -1, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_cu_alloc_async = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_DEVICE, .dst = 0, .src = -1,
    .len = 1, .kind = -1, .stream = 2, .pitch = -1};
static const ad_cuda_rule_data d_rt_alloc = {
    .api = AD_CUDA_RUNTIME, .dest = AD_CUDA_DEVICE, .dst = 0, .src = -1,
    .len = 1, .kind = -1, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_cu_alloc_pitch = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_DEVICE, .dst = 0, .src = -1,
    .len = 3, .kind = -1, .stream = -1, .pitch = 1};
static const ad_cuda_rule_data d_rt_alloc_pitch = {
    .api = AD_CUDA_RUNTIME, .dest = AD_CUDA_DEVICE, .dst = 0, .src = -1,
    .len = 3, .kind = -1, .stream = -1, .pitch = 1};
static const ad_cuda_rule_data d_cu_alloc_host = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_HOST, .dst = 0, .src = -1, .len = 1,
    .kind = -1, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_rt_alloc_host = {
    .api = AD_CUDA_RUNTIME, .dest = AD_CUDA_HOST, .dst = 0, .src = -1, .len = 1,
    .kind = -1, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_rt_alloc_async = {
    .api = AD_CUDA_RUNTIME, .dest = AD_CUDA_DEVICE, .dst = 0, .src = -1,
    .len = 1, .kind = -1, .stream = 2, .pitch = -1};
static const ad_cuda_rule_data d_cu_free = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_NOWHERE, .dst = 0, .src = -1,
    .len = -1, .kind = -1, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_cu_free_async = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_NOWHERE, .dst = 0, .src = -1,
    .len = -1, .kind = -1, .stream = 1, .pitch = -1};
static const ad_cuda_rule_data d_rt_free = {
    .api = AD_CUDA_RUNTIME, .dest = AD_CUDA_NOWHERE, .dst = 0, .src = -1,
    .len = -1, .kind = -1, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_rt_free_async = {
    .api = AD_CUDA_RUNTIME, .dest = AD_CUDA_NOWHERE, .dst = 0, .src = -1,
    .len = -1, .kind = -1, .stream = 1, .pitch = -1};
static const ad_cuda_rule_data d_cu_set = {
    .api = AD_CUDA_DRIVER, .dest = AD_CUDA_NOWHERE, .dst = 0, .src = -1,
    .len = 2, .kind = -1, .stream = -1, .pitch = -1};
static const ad_cuda_rule_data d_rt_set = {
    .api = AD_CUDA_RUNTIME, .dest = AD_CUDA_NOWHERE, .dst = 0, .src = -1,
    .len = 2, .kind = -1, .stream = -1, .pitch = -1};

/* {{name, emit, data, writes_pointer_args, returns_allocation, inactive},
 *  argument types (ad_typed_rule: CUdeviceptr integers are pointers)} */
#define COPY(n, d, types)                                                      \
  {{.name = n, .emit = emit_cuda_copy, .data = &d, .writes_pointer_args = 1}, \
   types}
#define ALLOC(n, d, types)                                                     \
  {{.name = n, .emit = emit_cuda_alloc, .data = &d, .writes_pointer_args = 1},\
   types}
#define FREE(n, d, types) {{.name = n, .emit = emit_cuda_free, .data = &d}, types}
#define SET(n, d, types) {{.name = n, .emit = emit_cuda_set, .data = &d}, types}
#define INACTIVE(n) {{.name = n, .emit = emit_none, .inactive = 1}, NULL}
static const ad_typed_rule cuda_rules[] = {
    /* driver API transfers: the old 32-bit names, _v2, async */
    COPY("cuMemcpyHtoD", d_htod, "dsn"),
    COPY("cuMemcpyHtoD_v2", d_htod, "dsn"),
    COPY("cuMemcpyHtoDAsync", d_htod_async, "dsnh"),
    COPY("cuMemcpyHtoDAsync_v2", d_htod_async, "dsnh"),
    COPY("cuMemcpyDtoH", d_dtoh, "dsn"),
    COPY("cuMemcpyDtoH_v2", d_dtoh, "dsn"),
    COPY("cuMemcpyDtoHAsync", d_dtoh_async, "dsnh"),
    COPY("cuMemcpyDtoHAsync_v2", d_dtoh_async, "dsnh"),
    COPY("cuMemcpyDtoD", d_dtod, "dsn"),
    COPY("cuMemcpyDtoD_v2", d_dtod, "dsn"),
    COPY("cuMemcpyDtoDAsync", d_dtod_async, "dsnh"),
    COPY("cuMemcpyDtoDAsync_v2", d_dtod_async, "dsnh"),
    COPY("cuMemcpy", d_unified, "dsn"),
    COPY("cuMemcpyAsync", d_unified_async, "dsnh"),
    /* runtime API transfers: kind and stream replayed unchanged */
    COPY("cudaMemcpy", d_rt_copy, "dsni"),
    COPY("cudaMemcpyAsync", d_rt_copy_async, "dsnih"),
    /* allocations */
    ALLOC("cuMemAlloc", d_cu_alloc, "Pi"),
    ALLOC("cuMemAlloc_v2", d_cu_alloc, "Pi"),
    ALLOC("cuMemAllocAsync", d_cu_alloc_async, "Pih"),
    ALLOC("cudaMalloc", d_rt_alloc, "Pi"),
    ALLOC("cudaMallocAsync", d_rt_alloc_async, "Pih"),
    /* managed memory: device memory the host may also address; the flags
     * are replayed unchanged */
    ALLOC("cuMemAllocManaged", d_cu_alloc, "Pii"),
    ALLOC("cudaMallocManaged", d_rt_alloc, "Pii"),
    /* pitched: (ptr, pitch out, width, height[, element size]) */
    ALLOC("cuMemAllocPitch", d_cu_alloc_pitch, "PIiii"),
    ALLOC("cuMemAllocPitch_v2", d_cu_alloc_pitch, "PZiii"),
    ALLOC("cudaMallocPitch", d_rt_alloc_pitch, "PZii"),
    ALLOC("cuMemAllocHost", d_cu_alloc_host, "Pi"),
    ALLOC("cuMemAllocHost_v2", d_cu_alloc_host, "Pi"),
    ALLOC("cudaMallocHost", d_rt_alloc_host, "Pi"),
    /* deallocations */
    FREE("cuMemFree", d_cu_free, "p"),
    FREE("cuMemFree_v2", d_cu_free, "p"),
    FREE("cuMemFreeAsync", d_cu_free_async, "ph"),
    FREE("cudaFree", d_rt_free, "p"),
    FREE("cudaFreeAsync", d_rt_free_async, "ph"),
    FREE("cudaFreeHost", d_rt_free, "p"),
    FREE("cuMemFreeHost", d_cu_free, "p"),
    /* memsets: the same bytes into the shadow */
    SET("cuMemsetD8", d_cu_set, "pii"),
    SET("cuMemsetD8_v2", d_cu_set, "pii"),
    SET("cuMemsetD8Async", d_cu_set, "piih"),
    SET("cuMemsetD16", d_cu_set, "pii"),
    SET("cuMemsetD16_v2", d_cu_set, "pii"),
    SET("cuMemsetD16Async", d_cu_set, "piih"),
    SET("cuMemsetD32", d_cu_set, "pii"),
    SET("cuMemsetD32_v2", d_cu_set, "pii"),
    SET("cuMemsetD32Async", d_cu_set, "piih"),
    SET("cudaMemset", d_rt_set, "pii"),
    SET("cudaMemsetAsync", d_rt_set, "piih"),
    /* no derivative effect */
    INACTIVE("cuInit"),
    INACTIVE("cuStreamSynchronize"),
    INACTIVE("cuCtxSynchronize"),
    INACTIVE("cuGetErrorName"),
    INACTIVE("cuGetErrorString"),
    INACTIVE("cudaDeviceSynchronize"),
    INACTIVE("cudaStreamSynchronize"),
    INACTIVE("cudaGetLastError"),
    INACTIVE("cudaPeekAtLastError"),
    INACTIVE("cudaGetErrorName"),
    INACTIVE("cudaGetErrorString"),
    /* devices, contexts and streams carry no data */
    INACTIVE("cuDeviceGet"),
    INACTIVE("cuDeviceGetCount"),
    INACTIVE("cuCtxSetCurrent"),
    INACTIVE("cuCtxGetCurrent"),
    INACTIVE("cuDevicePrimaryCtxRetain"),
    INACTIVE("cuStreamCreate"),
    INACTIVE("cuStreamDestroy"),
    INACTIVE("cuStreamDestroy_v2"),
    INACTIVE("cudaSetDevice"),
    INACTIVE("cudaGetDevice"),
    INACTIVE("cudaStreamCreate"),
    INACTIVE("cudaStreamCreateWithFlags"),
    INACTIVE("cudaStreamDestroy"),
};
#undef COPY
#undef ALLOC
#undef FREE
#undef SET
#undef INACTIVE

const ad_cuda_rule_data *ad_cuda_rule_data_of(const ad_call_rule *rule,
                                              ad_cuda_op *op) {
  static const struct {
    int (*emit)(ad_fn_ctx *, const ad_call_rule *, LLVMValueRef, LLVMValueRef);
    ad_cuda_op op;
  } ops[] = {{emit_cuda_copy, AD_CUDA_OP_COPY},
             {emit_cuda_alloc, AD_CUDA_OP_ALLOC},
             {emit_cuda_free, AD_CUDA_OP_FREE},
             {emit_cuda_set, AD_CUDA_OP_SET},
             {emit_none, AD_CUDA_OP_INACTIVE}};
  if (!rule)
    return NULL;
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (rule->emit == ops[i].emit) {
      /* emit_none rows carry no data; any row of this table is CUDA's */
      *op = ops[i].op;
      return rule->data ? rule->data : &d_cu_free;
    }
  return NULL;
}

int ad_cuda_emit_alloc_shadow(ad_fn_ctx *fc, const ad_call_rule *rule,
                              LLVMValueRef call, LLVMValueRef clone,
                              LLVMValueRef *shadow) {
  *shadow = NULL;
  return check_operands(fc, rule, call) != 0
             ? -1
             : emit_alloc(fc, rule->data, call, clone, shadow);
}

static const ad_typed_rule *cuda_typed_lookup(const char *name) {
  for (size_t i = 0; i < sizeof cuda_rules / sizeof *cuda_rules; i++)
    if (strcmp(name, cuda_rules[i].rule.name) == 0)
      return &cuda_rules[i];
  return NULL;
}

static const ad_call_rule *cuda_lookup(const char *name) {
  const ad_typed_rule *r = cuda_typed_lookup(name);
  return r ? &r->rule : NULL;
}

const ad_rule_family ad_cuda_family = {
    .name = "cuda",
    .lookup = cuda_lookup,
    .typed_lookup = cuda_typed_lookup,
};
