/*
 * Reverse over reverse: a function holding a gradient (an inner
 * `__enzyme_autodiff`, rewritten first: engine.c orders requests inner
 * first) differentiated in reverse mode.  The inner gradient is ordinary
 * code for the outer pair: its augmented_/diffe pair and the helpers they
 * call are differentiated like any defined function.  One thing is not
 * ordinary: the inner tape, whose records hold values the outer may see
 * as active (perturbation.cpp's inner constant x is active for the outer).
 *
 * The inner tape is a buffer grown by `tanjit.tape.reserve` with realloc
 * and read back through the header's pointer (base + size), so its shadow
 * has to be one buffer too, at the same offsets as the primal's, and it
 * must not move: the outer pair records shadow addresses in its aug and
 * uses them in its reverse, after later pushes would have moved a
 * realloc'd one.  So the shadow of a reserve is the shadow header's
 * buffer at the primal's offset, that buffer a fixed address-space
 * reservation made at the tape's first push (`tanjit.rev.nested.map`:
 * mmap of NESTED_SHADOW_BYTES or, under an address-space limit, the
 * largest power-of-two fraction of it given; zero-filled pages on first
 * touch, no memory committed before) and unmapped at the reverse of that
 * push, the last use of the tape's shadows.  A push beyond it traps.
 * Every slot's shadow returns to zero once reversed (a record's store
 * consumes what its pops added), so the reused bytes of a tape popped and
 * pushed again start from zero as a fresh page does.
 */
#include <stdint.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"

/* 64 GiB of address space: more than any tape that fits in memory */
#define NESTED_SHADOW_BYTES (1ull << 36)
/* Under an address-space limit (ulimit -v, valgrind) a reservation
 * halves until it fits, down to this; a tape outgrowing it traps. */
#define NESTED_SHADOW_MIN_BYTES (1ull << 20)
/* The reservation's size sits in a page of its own before the buffer
 * (the buffer's offsets are the primal tape's, all of them in use). */
#define NESTED_HEADER_BYTES 4096ull

static const char reserve_name[] = "tanjit.tape.reserve";
static const char map_name[] = "tanjit.rev.nested.map";
static const char unmap_name[] = "tanjit.rev.nested.unmap";

static LLVMTypeRef mmap_type(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef p[6] = {ptr, i64, i32, i32, i32, i64};
  return LLVMFunctionType(ptr, p, 6, 0);
}

static LLVMTypeRef munmap_type(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef p[2] = {LLVMPointerTypeInContext(c, 0), LLVMInt64TypeInContext(c)};
  return LLVMFunctionType(LLVMInt32TypeInContext(c), p, 2, 0);
}

static LLVMValueRef at_offset(ad_module_ctx *mc, LLVMBuilderRef b,
                              LLVMValueRef p, long long off) {
  LLVMValueRef k = LLVMConstInt(LLVMInt64TypeInContext(mc->llctx),
                                (unsigned long long)off, 1);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), p, &k, 1, "");
}

/* The size of the reservation at p (a map_fn result). */
static LLVMValueRef reserved_bytes(ad_module_ctx *mc, LLVMBuilderRef b,
                                   LLVMValueRef p) {
  return LLVMBuildLoad2(b, LLVMInt64TypeInContext(mc->llctx),
                        at_offset(mc, b, p, -8), "nested.reserved");
}

/* tanjit.rev.nested.map(want): a fresh reservation of want bytes or, where
 * that much address space is refused, of the largest half, quarter, ...
 * of it down to NESTED_SHADOW_MIN_BYTES that is given (Linux's
 * PROT_READ|WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE), its size at
 * -8; traps when none is given.  The size is an argument so that forward
 * mode's allocation row (rules/memory.c) makes a tangent's reservation by
 * the same call. */
static LLVMValueRef map_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, map_name, LLVMFunctionType(ptr, &i64, 1, 0), &fn);
  if (!b)
    return fn;
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fn, "try");
  LLVMBasicBlockRef retry = LLVMAppendBasicBlockInContext(c, fn, "smaller");
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(c, fn, "fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "ok");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef len = LLVMBuildPhi(b, i64, "len");
  LLVMValueRef args[6] = {
      LLVMConstNull(ptr),
      LLVMBuildAdd(b, len, LLVMConstInt(i64, NESTED_HEADER_BYTES, 0), ""),
      LLVMConstInt(i32, 3, 0),
      LLVMConstInt(i32, 0x02 | 0x20 | 0x4000, 0),
      LLVMConstInt(i32, (unsigned long long)-1, 1),
      LLVMConstInt(i64, 0, 0)};
  LLVMTypeRef mt = mmap_type(mc);
  LLVMValueRef p = LLVMBuildCall2(
      b, mt, ad_get_or_declare(mc->mod, "mmap", mt), args, 6, "");
  /* MAP_FAILED is (void *)-1 */
  LLVMValueRef failed = LLVMBuildICmp(
      b, LLVMIntEQ, LLVMBuildPtrToInt(b, p, i64, ""),
      LLVMConstInt(i64, (unsigned long long)-1, 1), "");
  LLVMBuildCondBr(b, failed, retry, ok);
  LLVMPositionBuilderAtEnd(b, retry);
  LLVMValueRef half =
      LLVMBuildLShr(b, len, LLVMConstInt(i64, 1, 0), "half");
  LLVMBuildCondBr(b,
                  LLVMBuildICmp(b, LLVMIntULT, half,
                                LLVMConstInt(i64, NESTED_SHADOW_MIN_BYTES, 0),
                                ""),
                  fail, loop);
  LLVMValueRef lens[2] = {LLVMGetParam(fn, 0), half};
  LLVMBasicBlockRef froms[2] = {entry, retry};
  LLVMAddIncoming(len, lens, froms, 2);
  LLVMPositionBuilderAtEnd(b, fail);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMValueRef base = at_offset(mc, b, p, (long long)NESTED_HEADER_BYTES);
  LLVMBuildStore(b, len, at_offset(mc, b, base, -8));
  LLVMBuildRet(b, base);
  LLVMDisposeBuilder(b);
  return fn;
}

static LLVMValueRef call_map(ad_module_ctx *mc, LLVMBuilderRef b) {
  LLVMValueRef fn = map_fn(mc);
  LLVMValueRef want =
      LLVMConstInt(LLVMInt64TypeInContext(mc->llctx), NESTED_SHADOW_BYTES, 0);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &want, 1,
                        "nested.reservation");
}

/* tanjit.rev.nested.unmap(p): munmap of a reservation (NULL: none), a
 * function of its own so that a gradient over this reverse knows it (as a
 * free). */
static LLVMValueRef unmap_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, unmap_name,
      LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0), &fn);
  if (!b)
    return fn;
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(c, fn, "unmap");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMValueRef p = LLVMGetParam(fn, 0);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, p, ""), done, go);
  LLVMPositionBuilderAtEnd(b, go);
  LLVMValueRef args[2] = {
      at_offset(mc, b, p, -(long long)NESTED_HEADER_BYTES),
      LLVMBuildAdd(b, reserved_bytes(mc, b, p),
                   LLVMConstInt(LLVMInt64TypeInContext(c), NESTED_HEADER_BYTES,
                                0),
                   "")};
  LLVMTypeRef ut = munmap_type(mc);
  LLVMBuildCall2(b, ut, ad_get_or_declare(mc->mod, "munmap", ut), args, 2, "");
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

static void call_unmap(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef p) {
  LLVMValueRef fn = unmap_fn(mc);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &p, 1, "");
}

static int named(LLVMValueRef fn, const char *want) {
  size_t n;
  const char *name = LLVMGetValueName2(fn, &n);
  return n == strlen(want) && memcmp(name, want, n) == 0;
}

/* tape.c names each augmented function's own copy
 * `tanjit.tape.reserve.<aug>`; the bare name is accepted too. */
static int is_reserve(LLVMValueRef fn) {
  size_t n, k = sizeof reserve_name - 1;
  const char *name = LLVMGetValueName2(fn, &n);
  return n >= k && memcmp(name, reserve_name, k) == 0 &&
         (n == k || name[k] == '.');
}

static void trap_unless(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef ok) {
  LLVMContextRef c = mc->llctx;
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(c, fn, "nested.full");
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(c, fn, "nested.fits");
  LLVMBuildCondBr(b, ok, go, bad);
  LLVMPositionBuilderAtEnd(b, bad);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, go);
}

/* `void (ptr node)`: unmaps the reservation kept in an exception guard's
 * node (exceptions.c), for when an exception leaves aug before the
 * reverse that would have unmapped it. */
static LLVMValueRef unwind_unmap_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.rev.nested.unwind.unmap",
      LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0), &fn);
  if (!b)
    return fn;
  call_unmap(mc, b, ad_rev_device_shadow_of(mc, b, LLVMGetParam(fn, 0), ptr));
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

/* A reservation made in aug, at builder b: kept on the header's device
 * list so that the guard unmaps it should an exception leave aug (the
 * primal's exception handlers may go on and throw again: each leaked
 * reservation would hold 64 GiB of address space).  Returns the node. */
static LLVMValueRef own_reservation(ad_rev_fn *r, LLVMBuilderRef b,
                                    LLVMValueRef s) {
  return ad_rev_own_device_shadow(r, b, s, unwind_unmap_fn(r->mc));
}

/* The reverse of an owned reservation: unmapped, its node freed. */
static void unmap_owned(ad_module_ctx *mc, LLVMBuilderRef b,
                        LLVMValueRef node) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  call_unmap(mc, b, ad_rev_device_shadow_of(mc, b, node, ptr));
  ad_rev_call_libc(mc, b, "free", &node, 1);
}

/* The reverse of the push that mapped the shadow buffer: its last use. */
static int rev_reserve(ad_rev_fn *r, const ad_rev_call_row *row,
                       LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)row, (void)p;
  ad_module_ctx *mc = r->mc;
  LLVMValueRef made = ad_rev_recorded(r, call);
  if (!made)
    return 0;
  LLVMBuilderRef b = r->rb;
  LLVMContextRef c = mc->llctx;
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef unmap = LLVMAppendBasicBlockInContext(c, fn, "nested.unmap");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c, fn, "nested.unmapped");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, made, ""), join, unmap);
  LLVMPositionBuilderAtEnd(b, unmap);
  unmap_owned(mc, b, made);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  return 0;
}

static const ad_rev_call_row reserve_row = {.name = reserve_name,
                                            .rev = rev_reserve};

/* reserve(tape, n) = at, in the outer aug (builder after the clone): the
 * shadow is the shadow header's buffer (mapped at the first push) at at's
 * offset in the primal buffer; the mapping (its guard node, own_reservation)
 * is recorded for the reverse when this push made it. */
static int aug_reserve(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef clone) {
  ad_fn_ctx *fc = &r->fc;
  ad_module_ctx *mc = r->mc;
  LLVMValueRef tape = LLVMGetOperand(call, 0);
  LLVMValueRef stape = ad_shadow_or_null(fc, tape);
  if (!ad_is_active(fc, call) && !stape)
    return 0;
  if (!stape)
    return ad_rev_fail_call(r, call,
                            "%s: an inner gradient's tape holds active values but "
                            "its header has no shadow (reverse over reverse)",
                            reserve_name);
  LLVMBuilderRef b = fc->b;
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c);
  LLVMValueRef ptape = ad_primal(fc, tape);
  LLVMValueRef base = LLVMBuildLoad2(b, ptr, ptape, "nested.base");
  LLVMValueRef off = LLVMBuildSub(b, LLVMBuildPtrToInt(b, clone, i64, ""),
                                  LLVMBuildPtrToInt(b, base, i64, ""),
                                  "nested.off");
  LLVMValueRef end =
      LLVMBuildAdd(b, off, ad_primal(fc, LLVMGetOperand(call, 1)), "");
  LLVMValueRef sbase = LLVMBuildLoad2(b, ptr, stape, "nested.sbase");
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef map = LLVMAppendBasicBlockInContext(c, fn, "nested.map");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c, fn, "nested.mapped");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, sbase, ""), map, join);
  LLVMPositionBuilderAtEnd(b, map);
  LLVMValueRef mapped = call_map(mc, b);
  LLVMBuildStore(b, mapped, stape);
  LLVMValueRef node = own_reservation(r, b, mapped);
  LLVMBasicBlockRef mapped_end = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef sb = LLVMBuildPhi(b, ptr, "nested.buf");
  LLVMValueRef made = LLVMBuildPhi(b, ptr, "nested.made");
  LLVMValueRef vs[2] = {sbase, mapped}, ms[2] = {LLVMConstNull(ptr), node};
  LLVMBasicBlockRef bs[2] = {from, mapped_end};
  LLVMAddIncoming(sb, vs, bs, 2);
  LLVMAddIncoming(made, ms, bs, 2);
  trap_unless(mc, b,
              LLVMBuildICmp(b, LLVMIntULE, end, reserved_bytes(mc, b, sb), ""));
  LLVMValueRef at = LLVMBuildGEP2(b, i8, sb, &off, 1, "nested.at");
  ad_set_shadow(fc, call, at);
  if (ad_rev_record(r, call, made) != 0)
    return -1;
  return ad_rev_plan_row(r, call, &reserve_row) ? 0 : -1;
}

/* A reservation's reverse: its shadow's reservation unmapped. */
static int rev_map(ad_rev_fn *r, const ad_rev_call_row *row,
                   LLVMValueRef call, const ad_rev_call_plan *p) {
  (void)row, (void)p;
  LLVMValueRef node = ad_rev_recorded(r, call);
  if (node)
    unmap_owned(r->mc, r->rb, node);
  return 0;
}

static const ad_rev_call_row map_row = {.name = map_name,
                                        .rev = rev_map};

/*
 * Reverse over reverse over reverse: the reservations of a reverse over
 * reverse are memory like any allocation to a gradient over it (they hold
 * adjoints it differentiates).  A reservation's shadow is a reservation
 * of its own (zero pages), recorded and unmapped at the reverse; an unmap
 * is a free (the primal's, in aug; the shadow lives until the reverse of
 * its reservation).
 */
static int aug_map(ad_rev_fn *r, LLVMValueRef call) {
  LLVMValueRef c = ad_clone(&r->fc, call);
  if (!c)
    return -1;
  if (!ad_is_active(&r->fc, call))
    return 0;
  LLVMValueRef s = call_map(r->mc, r->fc.b);
  ad_set_shadow(&r->fc, call, s);
  if (ad_rev_record(r, call, own_reservation(r, r->fc.b, s)) != 0)
    return -1;
  return ad_rev_plan_row(r, call, &map_row) ? 0 : -1;
}

int ad_rev_nested_aug(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef fn) {
  if (named(fn, map_name))
    return aug_map(r, call);
  /* the inner guard's cleanup on an exception (exceptions.c): it frees
   * the inner's records and shadows, never touches an outer adjoint, and
   * runs only on the way out of the outer's aug, which has no reverse */
  if (named(fn, unmap_name) || named(fn, ad_rev_unwound_name(0)) ||
      named(fn, ad_rev_unwound_name(1)))
    return ad_clone(&r->fc, call) ? 0 : -1;
  if (!is_reserve(fn))
    return 1;
  if (LLVMGetNumArgOperands(call) != 2)
    return ad_rev_fail_call(r, call, "%s: unexpected arguments", reserve_name);
  LLVMValueRef c = ad_clone(&r->fc, call);
  if (!c)
    return -1;
  return aug_reserve(r, call, c);
}


/*
 * `__enzyme_iter(n, step)`: a truncated series' length that grows with
 * the derivative's order (mycos.c's Taylor series of sin stays accurate
 * after four derivatives).  In the primal it is n; each reverse-mode copy
 * of a body makes it `__enzyme_iter(n + step, step)`, so a gradient of a
 * gradient sees n + 2 step, and once every request is rewritten the
 * calls left become their first argument (ad_rev_iter_finish).
 */
static int is_iter(LLVMValueRef fn) {
  size_t n;
  const char *name = LLVMGetValueName2(fn, &n);
  return LLVMCountBasicBlocks(fn) == 0 && strstr(name, "__enzyme_iter") != NULL;
}

int ad_rev_iter_aug(ad_rev_fn *r, LLVMValueRef call) {
  LLVMValueRef fn = ad_called_function(call);
  if (!fn || !is_iter(fn))
    return 1;
  if (LLVMGetNumArgOperands(call) != 2 ||
      LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMIntegerTypeKind ||
      LLVMTypeOf(LLVMGetOperand(call, 0)) != LLVMTypeOf(call) ||
      LLVMTypeOf(LLVMGetOperand(call, 1)) != LLVMTypeOf(call))
    return ad_rev_fail_call(r, call,
                            "%s takes two integers of its result's type "
                            "(n, step)",
                            ad_value_name(fn));
  LLVMValueRef c = ad_clone(&r->fc, call);
  if (!c)
    return -1;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(r->mc->llctx);
  LLVMPositionBuilderBefore(b, c);
  LLVMSetOperand(c, 0,
                 LLVMBuildAdd(b, LLVMGetOperand(c, 0), LLVMGetOperand(c, 1),
                              "iter.next"));
  LLVMDisposeBuilder(b);
  return 0;
}

void ad_rev_iter_finish(LLVMModuleRef m) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(m), next; fn; fn = next) {
    next = LLVMGetNextFunction(fn);
    if (!is_iter(fn))
      continue;
    LLVMUseRef u = LLVMGetFirstUse(fn);
    while (u) {
      LLVMValueRef user = LLVMGetUser(u);
      u = LLVMGetNextUse(u);
      if ((LLVMIsACallInst(user) || LLVMIsAInvokeInst(user)) == 0 ||
          LLVMGetCalledValue(user) != fn || LLVMGetNumArgOperands(user) != 2 ||
          LLVMTypeOf(LLVMGetOperand(user, 0)) != LLVMTypeOf(user) ||
          LLVMIsAInvokeInst(user))
        continue;
      LLVMReplaceAllUsesWith(user, LLVMGetOperand(user, 0));
      LLVMInstructionEraseFromParent(user);
    }
    if (!LLVMGetFirstUse(fn))
      LLVMDeleteFunction(fn);
  }
}
