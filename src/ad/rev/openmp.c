/*
 * OpenMP in reverse mode: libomp's parallel regions (`__kmpc_fork_call`)
 * and the runtime calls inside them whose order the reverse must keep.
 *
 * A region is an outlined function `fn(i32 *gtid, i32 *btid, captured...)`
 * that the runtime calls once per thread of a team.  It is differentiated
 * like any callee, for the activities the captured arguments have at the
 * fork, and each half runs as a parallel region of its own:
 *
 *   aug:  fork(aug wrapper, captured and their shadows, slot)
 *         each thread: thread 0 callocs one tape header per thread of the
 *         team into the slot, a barrier, then the region's augmented pass
 *         on header[thread number]
 *   rev:  the same number of threads pushed, then
 *         fork(rev wrapper, captured and their shadows, slot)
 *         each thread: the region's reverse on header[thread number]
 *         (a trap when the team is not as large as the forward's), its
 *         records freed; then the headers and the slot freed
 *
 * So each thread's tape is its own, and the reverse of thread t undoes
 * exactly what thread t ran: a static schedule gives thread t the same
 * iterations in both teams (it depends only on the bounds, the thread
 * number and the team's size), a dynamic or guided one's chunks are read
 * back from thread t's tape, and firstprivate copies, thread-local
 * accumulators and per-thread bounds are all per thread.  Shadows the
 * threads share are written, in the reverse, where the primal wrote the
 * memory they shadow: disjoint elements for a worksharing loop, and a
 * critical section's reverse holds the same lock (the reverse of
 * `__kmpc_end_critical` takes it, the reverse of `__kmpc_critical` gives
 * it back), so adjoints of a shared accumulator are read and written by
 * one thread at a time.  A barrier's reverse is a barrier.  A reduction
 * clause combines under its lock in both halves (omp_sync, below), and an
 * atomic add's reverse reads the shared adjoint (adjoint.c).
 *
 * A float captured by value (a firstprivate scalar, which clang passes as
 * its integer bits) is an OUT argument of the region's pair: each thread
 * returns its copy's adjoint into results[thread], which the master sums
 * after the reverse's fork.
 *
 * Several threads may read one shared location (x[0] in every iteration),
 * so the region's pair and its callees are built with sig.parallel: a
 * load's adjoint is added into shadow memory atomically (adjoint.c).
 *
 * Not covered: a region whose microtask is not a function of the module
 * (refused), `__kmpc_fork_call_if` (no rule, refused with active
 * arguments), and reverses other than a load's or an atomic add's on
 * memory several threads touch at once outside a critical section (float
 * memcpy, memset: plain, not atomic).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "ad/analysis/activity.h"
#include "ad/analysis/omp_reduction.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

/* The slot the two regions share: {ptr headers, i64 threads, ptr
 * results}: the results (each thread's adjoints of the captured values,
 * the reverse's struct) summed by the master after the reverse's fork. */
enum { SLOT_BYTES = 24, SLOT_THREADS = 8, SLOT_RESULTS = 16 };

static LLVMTypeRef ptr_t(ad_module_ctx *mc) {
  return LLVMPointerTypeInContext(mc->llctx, 0);
}

static LLVMTypeRef i32_t(ad_module_ctx *mc) {
  return LLVMInt32TypeInContext(mc->llctx);
}

static LLVMTypeRef i64_t(ad_module_ctx *mc) {
  return LLVMInt64TypeInContext(mc->llctx);
}

/* A libomp entry point, declared with its own type. */
static LLVMValueRef omp_call(ad_module_ctx *mc, LLVMBuilderRef b,
                             const char *name, LLVMTypeRef ret,
                             LLVMValueRef *args, unsigned n) {
  LLVMTypeRef params[4];
  for (unsigned k = 0; k < n; k++)
    params[k] = LLVMTypeOf(args[k]);
  LLVMTypeRef ft = LLVMFunctionType(ret, params, n, 0);
  LLVMValueRef f = ad_get_or_declare(mc->mod, name, ft);
  return LLVMBuildCall2(b, ft, f, args, n, "");
}

/* calloc(n, size) at b, or a trap when memory runs out (generated code has
 * no error channel): a helper of its own, so the body calling it keeps
 * its blocks. */
static LLVMValueRef calloc_or_trap(ad_module_ctx *mc, LLVMBuilderRef b,
                                   LLVMValueRef n, LLVMValueRef size) {
  LLVMTypeRef two[2] = {i64_t(mc), i64_t(mc)};
  LLVMTypeRef ft = LLVMFunctionType(ptr_t(mc), two, 2, 0);
  LLVMValueRef fn;
  LLVMBuilderRef hb = ad_get_or_define_internal(mc->mod, "tanjit.omp.calloc",
                                                ft, &fn);
  if (hb) {
    LLVMContextRef c = mc->llctx;
    LLVMValueRef ca[2] = {LLVMGetParam(fn, 0), LLVMGetParam(fn, 1)};
    LLVMValueRef p = ad_rev_call_libc(mc, hb, "calloc", ca, 2);
    LLVMBasicBlockRef oom = LLVMAppendBasicBlockInContext(c, fn, "oom");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "ok");
    LLVMBuildCondBr(hb, LLVMBuildIsNull(hb, p, ""), oom, ok);
    LLVMPositionBuilderAtEnd(hb, oom);
    ad_build_trap(mc->mod, hb);
    LLVMPositionBuilderAtEnd(hb, ok);
    LLVMBuildRet(hb, p);
    LLVMDisposeBuilder(hb);
  }
  LLVMValueRef args[2] = {n, size};
  return LLVMBuildCall2(b, ft, fn, args, 2, "");
}

static unsigned long long header_bytes(ad_module_ctx *mc) {
  return LLVMABISizeOfType(mc->td, ad_rev_header_type(mc));
}

/* This thread's header in the slot's array, at b (in a wrapper whose
 * parameter 1 is btid). */
static LLVMValueRef thread_header(ad_module_ctx *mc, LLVMBuilderRef b,
                                  LLVMValueRef btid, LLVMValueRef slot) {
  LLVMValueRef tid = LLVMBuildLoad2(b, i32_t(mc), btid, "omp.tid");
  LLVMValueRef arr = LLVMBuildLoad2(b, ptr_t(mc), slot, "omp.headers");
  LLVMValueRef off = LLVMBuildMul(
      b, LLVMBuildZExt(b, tid, i64_t(mc), ""),
      LLVMConstInt(i64_t(mc), header_bytes(mc), 0), "");
  LLVMTypeRef i8 = LLVMInt8TypeInContext(mc->llctx);
  return LLVMBuildGEP2(b, i8, arr, &off, 1, "omp.header");
}

static LLVMValueRef slot_field(ad_module_ctx *mc, LLVMBuilderRef b,
                               LLVMValueRef slot, unsigned long long off) {
  LLVMValueRef at = LLVMConstInt(i64_t(mc), off, 0);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), slot, &at, 1, "");
}

static LLVMValueRef slot_count(ad_module_ctx *mc, LLVMBuilderRef b,
                               LLVMValueRef slot) {
  return LLVMBuildLoad2(b, i64_t(mc), slot_field(mc, b, slot, SLOT_THREADS),
                        "omp.threads");
}

/*
 * The wrapper the runtime calls per thread for one half of the region's
 * pair: (gtid, btid, each captured argument and its shadow when DUP, slot).
 * reverse = 0: the augmented pass (headers allocated by thread 0, then a
 * barrier); 1: the reverse (the team checked, records freed).
 */
static LLVMValueRef region_wrapper(ad_module_ctx *mc, LLVMValueRef call,
                                   const ad_rev_call_plan *p, int reverse) {
  LLVMValueRef half = reverse ? p->pair.rev : p->pair.aug;
  size_t n;
  const char *hname = LLVMGetValueName2(half, &n);
  char name[512];
  snprintf(name, sizeof name, "tanjit.omp.%s.%.*s",
           reverse ? "reverse" : "augment", (int)n, hname);
  LLVMTypeRef hft = LLVMGlobalGetValueType(half);
  unsigned nh = LLVMCountParamTypes(hft);
  LLVMTypeRef *types = tj_malloc((nh + 1) * sizeof *types);
  LLVMValueRef *args = tj_malloc((nh + 1) * sizeof *args);
  if (!types || !args) {
    free(types);
    free(args);
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    return NULL;
  }
  LLVMGetParamTypes(hft, types);
  /* the half's parameters but its last (the tape), then the slot; the
   * reverse takes no result adjoint (the microtask returns void) */
  types[nh - 1] = ptr_t(mc);
  LLVMTypeRef ft =
      LLVMFunctionType(LLVMVoidTypeInContext(mc->llctx), types, nh, 0);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(mc->mod, name, ft, &fn);
  free(types);
  if (!b) {
    free(args);
    return fn;
  }
  LLVMContextRef c = mc->llctx;
  LLVMValueRef gtidp = LLVMGetParam(fn, 0), btid = LLVMGetParam(fn, 1);
  LLVMValueRef slot = LLVMGetParam(fn, nh - 1);
  LLVMValueRef loc = LLVMGetOperand(call, 0);
  if (!LLVMIsConstant(loc))
    loc = LLVMConstNull(ptr_t(mc));
  LLVMValueRef nthreads =
      omp_call(mc, b, "omp_get_num_threads", i32_t(mc), NULL, 0);
  LLVMValueRef team = LLVMBuildZExt(b, nthreads, i64_t(mc), "");
  if (!reverse) {
    LLVMBasicBlockRef alloc = LLVMAppendBasicBlockInContext(c, fn, "headers");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c, fn, "run");
    LLVMValueRef tid = LLVMBuildLoad2(b, i32_t(mc), btid, "");
    LLVMBuildCondBr(b,
                    LLVMBuildICmp(b, LLVMIntEQ, tid,
                                  LLVMConstInt(i32_t(mc), 0, 0), ""),
                    alloc, join);
    LLVMPositionBuilderAtEnd(b, alloc);
    LLVMValueRef arr = calloc_or_trap(
        mc, b, team, LLVMConstInt(i64_t(mc), header_bytes(mc), 0));
    LLVMBuildStore(b, arr, slot);
    LLVMBuildStore(b, team, slot_field(mc, b, slot, SLOT_THREADS));
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
    /* every thread waits for thread 0's headers */
    LLVMValueRef ba[2] = {loc, LLVMBuildLoad2(b, i32_t(mc), gtidp, "")};
    omp_call(mc, b, "__kmpc_barrier", LLVMVoidTypeInContext(c), ba, 2);
  } else {
    /* thread t reverses what thread t of the forward team ran */
    LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(c, fn, "team.differs");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "run");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, team, slot_count(mc, b, slot), ""),
                    bad, ok);
    LLVMPositionBuilderAtEnd(b, bad);
    ad_build_trap(mc->mod, b);
    LLVMPositionBuilderAtEnd(b, ok);
  }
  LLVMValueRef header = thread_header(mc, b, btid, slot);
  for (unsigned k = 0; k + 1 < nh; k++)
    args[k] = LLVMGetParam(fn, k);
  args[nh - 1] = header;
  LLVMValueRef res = LLVMBuildCall2(b, hft, half, args, nh, "");
  free(args);
  LLVMTypeRef rt = LLVMGetReturnType(hft);
  if (reverse && LLVMGetTypeKind(rt) != LLVMVoidTypeKind) {
    /* this thread's adjoints of the captured values, at results[tid] */
    LLVMValueRef results = LLVMBuildLoad2(
        b, ptr_t(mc), slot_field(mc, b, slot, SLOT_RESULTS), "");
    LLVMValueRef tid = LLVMBuildZExt(
        b, LLVMBuildLoad2(b, i32_t(mc), btid, ""), i64_t(mc), "");
    LLVMBuildStore(b, res, LLVMBuildGEP2(b, rt, results, &tid, 1, ""));
  }
  if (reverse) {
    LLVMValueRef buf = LLVMBuildLoad2(b, ptr_t(mc), header, "");
    ad_rev_call_libc(mc, b, "free", &buf, 1);
  }
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

/* The fork's arguments for a wrapper: loc, the count, the wrapper, then
 * each captured argument (primal, and its shadow when DUP), then slot.
 * prim/shad give the values in the body being emitted. */
static LLVMValueRef emit_fork(ad_module_ctx *mc, LLVMBuilderRef b,
                              LLVMValueRef call, const ad_rev_call_plan *p,
                              LLVMValueRef loc, LLVMValueRef wrapper,
                              const LLVMValueRef *prim,
                              const LLVMValueRef *shad, LLVMValueRef slot) {
  unsigned ncap = p->np - 2;
  LLVMValueRef *args = tj_malloc((2 * ncap + 4) * sizeof *args);
  if (!args) {
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    return NULL;
  }
  unsigned n = 3;
  for (unsigned k = 0; k < ncap; k++) {
    args[n++] = prim[k];
    if (ad_rev_has_shadow_param(p->act[k + 2]))
      args[n++] = shad[k];
  }
  args[n++] = slot;
  args[0] = loc;
  args[1] = LLVMConstInt(i32_t(mc), n - 3, 0);
  args[2] = wrapper;
  LLVMTypeRef fp[3] = {ptr_t(mc), i32_t(mc), ptr_t(mc)};
  LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(mc->llctx), fp, 3, 1);
  LLVMValueRef fork = ad_get_or_declare(mc->mod, "__kmpc_fork_call", ft);
  LLVMValueRef res = LLVMBuildCall2(b, ft, fork, args, n, "");
  LLVMMetadataRef dl = LLVMInstructionGetDebugLoc(call);
  if (dl)
    LLVMInstructionSetDebugLoc(res, dl);
  free(args);
  return res;
}

/* The fork's captured arguments (operands 3...) as values in the body
 * being emitted: [0, ncap) the primals, [ncap, 2 ncap) the shadows of those
 * with a shadow parameter (NULL elsewhere).  reverse = 0: in the augmented
 * pass at fc->b; 1: in the reverse at r->rb.  Owned by the caller; NULL on
 * out of memory (the error recorded). */
static LLVMValueRef *captured_values(ad_rev_fn *r, LLVMValueRef call,
                                     const ad_rev_call_plan *p, int reverse) {
  unsigned ncap = p->np - 2;
  LLVMValueRef *vals = tj_malloc((2 * ncap + 1) * sizeof *vals);
  if (!vals) {
    ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    return NULL;
  }
  for (unsigned k = 0; k < ncap; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k + 3);
    int shadowed = ad_rev_has_shadow_param(p->act[k + 2]);
    vals[k] = reverse ? ad_rev_primal(r, a) : ad_primal(&r->fc, a);
    vals[ncap + k] = !shadowed ? NULL
                     : reverse ? ad_rev_shadow(r, a)
                               : ad_shadow_value(&r->fc, a);
  }
  return vals;
}

/* The microtask a fork calls (operand 2), or NULL. */
static LLVMValueRef microtask_of(LLVMValueRef call) {
  LLVMValueRef f = ad_strip_casts(LLVMGetOperand(call, 2), 0);
  return f && LLVMIsAFunction(f) ? f : NULL;
}

static int aug_fork(ad_rev_fn *r, const ad_rev_call_row *row,
                    LLVMValueRef call, LLVMValueRef clone) {
  (void)clone;
  ad_module_ctx *mc = r->mc;
  ad_fn_ctx *fc = &r->fc;
  unsigned nargs = LLVMGetNumArgOperands(call);
  LLVMValueRef task = microtask_of(call);
  if (!task || LLVMCountBasicBlocks(task) == 0)
    return ad_rev_fail_call(r, call,
                            "a parallel region (%s) whose outlined function is "
                            "not a function of this module is not supported",
                            "__kmpc_fork_call");
  unsigned np = LLVMCountParams(task);
  if (nargs < 3 || np < 2 || np != nargs - 1)
    return ad_rev_fail_call(r, call,
                            "a parallel region (%s) whose outlined function's "
                            "parameters do not match the fork's arguments",
                            "__kmpc_fork_call");
  /* a region reading or writing active globals carries adjoints through
   * them, whatever it captures */
  if (!ad_rev_any_active(r, call) &&
      !ad_function_touches_active_globals(mc, task))
    return ad_clone(fc, call) ? 0 : -1;
  ad_rev_call_plan *p = ad_rev_plan_row(r, call, row);
  if (!p)
    return -1;
  p->np = np;
  if (!(p->act = tj_calloc(np, 1)))
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  for (unsigned k = 2; k < np; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k + 1);
    if (!ad_is_active(fc, a))
      continue;
    int f = 0, o = 0;
    ad_rev_leaves(ad_rev_adjoint_type(r, a), &f, &o);
    if (f && o)
      return ad_rev_fail_call(r, call,
                              "a parallel region (%s) capturing a value that "
                              "mixes floats and pointers is not supported",
                              "__kmpc_fork_call");
    /* a float captured by value (firstprivate; clang passes a double as
     * its i64 bits): every thread's copy starts from it, so its adjoint
     * is the sum of the threads' */
    p->act[k] = f                                   ? AD_REV_OUT
                : ad_shadow_may_equal_primal(fc, a) ? AD_REV_DUP_RUNTIME
                                                    : AD_REV_DUP;
  }
  ad_rev_sig sig = {task, np, p->act, 0, 0, 0, 1, 0};
  if (ad_rev_get(mc, &sig, call, &p->pair) != 0)
    return -1;
  LLVMValueRef wrapper = region_wrapper(mc, call, p, 0);
  if (!wrapper)
    return -1;
  LLVMValueRef *vals = captured_values(r, call, p, 0);
  if (!vals)
    return -1;
  LLVMValueRef slot =
      calloc_or_trap(mc, fc->b, LLVMConstInt(i64_t(mc), 1, 0),
                     LLVMConstInt(i64_t(mc), SLOT_BYTES, 0));
  LLVMValueRef fork = emit_fork(mc, fc->b, call, p, ad_primal(fc, LLVMGetOperand(call, 0)),
                                wrapper, vals, vals + np - 2, slot);
  free(vals);
  if (!fork)
    return -1;
  return ad_rev_record(r, call, slot);
}

/* After the reverse's fork, at r->rb: each OUT argument's adjoint += the
 * threads' results, summed in thread order; the results freed. */
static int sum_results(ad_rev_fn *r, LLVMValueRef call,
                       const ad_rev_call_plan *p, LLVMTypeRef rt,
                       LLVMValueRef results, LLVMValueRef slot) {
  enum { MAX_OUTS = 64 };
  ad_module_ctx *mc = r->mc;
  LLVMBuilderRef b = r->rb;
  LLVMContextRef c = mc->llctx;
  unsigned nout = LLVMCountStructElementTypes(rt);
  if (nout > MAX_OUTS)
    return ad_rev_fail_call(r, call,
                            "a parallel region (%s) capturing more than 64 "
                            "active floats by value is not supported",
                            "__kmpc_fork_call");
  LLVMTypeRef elems[MAX_OUTS];
  LLVMValueRef sum[MAX_OUTS], next_sum[MAX_OUTS];
  LLVMGetStructElementTypes(rt, elems);
  LLVMValueRef n = slot_count(mc, b, slot);
  LLVMBasicBlockRef before = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, r->rev, "omp.sum");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, r->rev, "omp.summed");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef i = LLVMBuildPhi(b, i64_t(mc), "omp.thread");
  for (unsigned j = 0; j < nout; j++)
    sum[j] = LLVMBuildPhi(b, elems[j], "");
  LLVMValueRef one =
      LLVMBuildLoad2(b, rt, LLVMBuildGEP2(b, rt, results, &i, 1, ""), "");
  for (unsigned j = 0; j < nout; j++)
    next_sum[j] =
        ad_rev_add(b, sum[j], LLVMBuildExtractValue(b, one, j, ""), NULL);
  LLVMValueRef next = LLVMBuildAdd(b, i, LLVMConstInt(i64_t(mc), 1, 0), "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, n, ""), loop, done);
  LLVMValueRef zero = LLVMConstInt(i64_t(mc), 0, 0);
  LLVMAddIncoming(i, &zero, &before, 1);
  LLVMAddIncoming(i, &next, &loop, 1);
  for (unsigned j = 0; j < nout; j++) {
    LLVMValueRef z = LLVMConstNull(elems[j]);
    LLVMAddIncoming(sum[j], &z, &before, 1);
    LLVMAddIncoming(sum[j], &next_sum[j], &loop, 1);
  }
  LLVMPositionBuilderAtEnd(b, done);
  unsigned j = 0;
  for (unsigned k = 2; k < p->np; k++)
    if (p->act[k] == AD_REV_OUT)
      ad_rev_accumulate(r, LLVMGetOperand(call, k + 1), next_sum[j++], NULL);
  ad_rev_call_libc(mc, b, "free", &results, 1);
  return 0;
}

static int rev_fork(ad_rev_fn *r, const ad_rev_call_row *row,
                    LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)row;
  ad_module_ctx *mc = r->mc;
  LLVMBuilderRef b = r->rb;
  LLVMValueRef wrapper = region_wrapper(mc, call, p, 1);
  if (!wrapper)
    return -1;
  LLVMValueRef *vals = captured_values(r, call, p, 1);
  if (!vals)
    return -1;
  LLVMValueRef slot = ad_rev_recorded(r, call);
  LLVMValueRef loc = ad_rev_primal(r, LLVMGetOperand(call, 0));
  /* as many threads as the forward team had */
  LLVMValueRef gtid =
      omp_call(mc, b, "__kmpc_global_thread_num", i32_t(mc), &loc, 1);
  LLVMValueRef pa[3] = {loc, gtid,
                        LLVMBuildTrunc(b, slot_count(mc, b, slot), i32_t(mc), "")};
  omp_call(mc, b, "__kmpc_push_num_threads", LLVMVoidTypeInContext(mc->llctx),
           pa, 3);
  LLVMTypeRef rt = LLVMGetReturnType(LLVMGlobalGetValueType(p->pair.rev));
  int outs = LLVMGetTypeKind(rt) != LLVMVoidTypeKind;
  LLVMValueRef results = NULL;
  if (outs) {
    results = calloc_or_trap(
        mc, b, slot_count(mc, b, slot),
        LLVMConstInt(i64_t(mc), LLVMABISizeOfType(mc->td, rt), 0));
    LLVMBuildStore(b, results, slot_field(mc, b, slot, SLOT_RESULTS));
  }
  LLVMValueRef fork = emit_fork(mc, b, call, p, loc, wrapper, vals,
                                vals + p->np - 2, slot);
  free(vals);
  if (!fork)
    return -1;
  if (outs && sum_results(r, call, p, rt, results, slot) != 0)
    return -1;
  LLVMValueRef arr = LLVMBuildLoad2(b, ptr_t(mc), slot, "");
  ad_rev_call_libc(mc, b, "free", &arr, 1);
  ad_rev_call_libc(mc, b, "free", &slot, 1);
  return 0;
}

/*
 * Synchronization: each row's primal call is replaced, in the augmented
 * pass, by runtime calls of its (loc, gtid[, lock[, hint]]) and its
 * reverse is the calls that undo them, in reverse order: a lock taken
 * where the primal gave it back and given back where it took it, a
 * barrier where it waited.
 *
 * A reduction (`__kmpc_reduce[_nowait]`, whose result picks how this
 * thread combines its private copies into the shared variables: 1 by the
 * code clang emits after it, 2 with atomics, 0 not at all, the runtime
 * having combined them in a tree through the reduction function) takes
 * the runtime's critical-section method in both halves: the lock, and 1,
 * so every thread adds its copies into the shared variables under the
 * lock and the reverse reads the shared adjoints under it, one thread at
 * a time.  A tree's combination runs inside the runtime (through the
 * reduction function, on the primal copies alone) and its order is the
 * runtime's, so it has no reverse; the atomic method's order is the
 * runtime's too.  The end of a blocking reduction is also a barrier.
 */
enum { NONE = ~0u, MAX_SYNC_STEPS = 2 };

typedef struct omp_sync_step {
  const char *callee; /* a libomp entry point of (loc, gtid[, lock[, hint]]) */
  unsigned nargs;     /* 2, 3 or 4 of those */
} omp_sync_step;

typedef struct omp_sync {
  unsigned lock, hint;  /* the operands of the lock and the hint, or NONE */
  int result_combines;  /* the call returns i32 1: this thread combines */
  omp_sync_step aug[MAX_SYNC_STEPS], rev[MAX_SYNC_STEPS]; /* in order */
} omp_sync;

/* A lock taken with a hint is given back by __kmpc_end_critical, and the
 * hint matters only to the first taker (which picks the lock's kind), so
 * the reverse of giving it back takes it without one. */
#define TAKE {"__kmpc_critical", 3}
#define TAKE_HINTED {"__kmpc_critical_with_hint", 4}
#define GIVE {"__kmpc_end_critical", 3}
#define BARRIER {"__kmpc_barrier", 2}
static const omp_sync critical_begin = {2, NONE, 0, {TAKE}, {GIVE}};
static const omp_sync critical_hinted = {2, 3, 0, {TAKE_HINTED}, {GIVE}};
static const omp_sync critical_end = {2, NONE, 0, {GIVE}, {TAKE}};
static const omp_sync barrier = {NONE, NONE, 0, {BARRIER}, {BARRIER}};
static const omp_sync reduce_begin = {6, NONE, 1, {TAKE}, {GIVE}};
static const omp_sync reduce_end_nowait = {2, NONE, 0, {GIVE}, {TAKE}};
static const omp_sync reduce_end = {2, NONE, 0, {GIVE, BARRIER},
                                    {BARRIER, TAKE}};
#undef TAKE
#undef TAKE_HINTED
#undef GIVE
#undef BARRIER

/* steps' calls at b, of args (loc, gtid, lock, hint: the values in that
 * body) */
static void emit_sync_steps(ad_module_ctx *mc, LLVMBuilderRef b,
                            const omp_sync_step *steps, LLVMValueRef *args) {
  for (unsigned k = 0; k < MAX_SYNC_STEPS && steps[k].callee; k++)
    omp_call(mc, b, steps[k].callee, LLVMVoidTypeInContext(mc->llctx), args,
             steps[k].nargs);
}

static int sync_operands_fit(ad_rev_fn *r, const ad_rev_call_row *row,
                             LLVMValueRef call) {
  const omp_sync *s = row->data;
  unsigned n = LLVMGetNumArgOperands(call);
  if (n < 2 || (s->lock != NONE && s->lock >= n) ||
      (s->hint != NONE && s->hint >= n))
    return ad_rev_fail_call(r, call, "%s with fewer arguments than libomp's",
                            row->name);
  return 0;
}

/* The call's (loc, gtid, lock, hint) operands, NULL where it has none. */
static void sync_operands(const omp_sync *s, LLVMValueRef call,
                          LLVMValueRef *ops) {
  ops[0] = LLVMGetOperand(call, 0);
  ops[1] = LLVMGetOperand(call, 1);
  ops[2] = s->lock == NONE ? NULL : LLVMGetOperand(call, s->lock);
  ops[3] = s->hint == NONE ? NULL : LLVMGetOperand(call, s->hint);
}

/* A reduction's atomic method never runs (the lock's is taken instead)
 * but is differentiated with the rest; an operator whose atomic
 * combination is a compare-and-swap loop would be refused there, naming
 * its cmpxchg, so it is refused here naming the reduction.  0, or -1 with
 * the error recorded. */
static int check_atomic_method(ad_rev_fn *r, const ad_rev_call_row *row,
                               LLVMValueRef call) {
  LLVMValueRef cas;
  int found = ad_omp_reduction_atomic_cas(&r->fc, call, &cas);
  if (found < 0)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  if (found)
    return ad_rev_fail_call(
        r, call,
        "a reduction (%s) whose operator is not + or - on floats (*, min, "
        "max, ...) is not supported: clang also emits its combination as a "
        "compare-and-swap loop (libomp's atomic method), which has no "
        "reverse",
        row->name);
  return 0;
}

static int aug_sync(ad_rev_fn *r, const ad_rev_call_row *row,
                    LLVMValueRef call, LLVMValueRef clone) {
  (void)clone;
  const omp_sync *s = row->data;
  ad_fn_ctx *fc = &r->fc;
  if (sync_operands_fit(r, row, call) != 0 ||
      (s->result_combines && check_atomic_method(r, row, call) != 0))
    return -1;
  LLVMValueRef ops[4];
  sync_operands(s, call, ops);
  for (unsigned k = 0; k < 4; k++)
    ops[k] = ops[k] ? ad_primal(fc, ops[k]) : NULL;
  emit_sync_steps(r->mc, fc->b, s->aug, ops);
  if (s->result_combines &&
      ad_map_put(&fc->vmap, call, LLVMConstInt(LLVMTypeOf(call), 1, 0)) != 0)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  return ad_rev_plan_row(r, call, row) ? 0 : -1;
}

static int rev_sync(ad_rev_fn *r, const ad_rev_call_row *row,
                    LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)p;
  const omp_sync *s = row->data;
  LLVMValueRef ops[4];
  sync_operands(s, call, ops);
  for (unsigned k = 0; k < 4; k++)
    ops[k] = ops[k] ? ad_rev_primal(r, ops[k]) : NULL;
  emit_sync_steps(r->mc, r->rb, s->rev, ops);
  return 0;
}

#define SYNC(n, s) {.name = n, .aug = aug_sync, .rev = rev_sync, .data = &s}
static const ad_rev_call_row openmp_rows[] = {
    {.name = "__kmpc_fork_call", .aug = aug_fork, .rev = rev_fork},
    SYNC("__kmpc_critical", critical_begin),
    SYNC("__kmpc_critical_with_hint", critical_hinted),
    SYNC("__kmpc_end_critical", critical_end),
    SYNC("__kmpc_barrier", barrier),
    SYNC("__kmpc_reduce_nowait", reduce_begin),
    SYNC("__kmpc_reduce", reduce_begin),
    SYNC("__kmpc_end_reduce_nowait", reduce_end_nowait),
    SYNC("__kmpc_end_reduce", reduce_end),
};
#undef SYNC

const ad_rev_call_row *ad_rev_openmp_row(LLVMValueRef fn) {
  size_t n;
  const char *name = LLVMGetValueName2(fn, &n);
  for (size_t i = 0; i < sizeof openmp_rows / sizeof *openmp_rows; i++)
    if (strcmp(name, openmp_rows[i].name) == 0)
      return &openmp_rows[i];
  return NULL;
}
