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
 * mmap of NESTED_SHADOW_BYTES, zero-filled pages on first touch, no
 * memory committed before) and unmapped at the reverse of that push, the
 * last use of the tape's shadows.  A push beyond it traps.  Every slot's
 * shadow returns to zero once reversed (a record's store consumes what
 * its pops added), so the reused bytes of a tape popped and pushed again
 * start from zero as a fresh page does.
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

static const char reserve_name[] = "tanjit.tape.reserve";

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

/* tanjit.rev.nested.map(): a fresh reservation (Linux's PROT_READ|WRITE,
 * MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE); traps when none is given. */
static LLVMValueRef map_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.rev.nested.map", LLVMFunctionType(ptr, NULL, 0, 0), &fn);
  if (!b)
    return fn;
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(c, fn, "fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "ok");
  LLVMValueRef args[6] = {LLVMConstNull(ptr),
                          LLVMConstInt(i64, NESTED_SHADOW_BYTES, 0),
                          LLVMConstInt(i32, 3, 0),
                          LLVMConstInt(i32, 0x02 | 0x20 | 0x4000, 0),
                          LLVMConstInt(i32, (unsigned long long)-1, 1),
                          LLVMConstInt(i64, 0, 0)};
  LLVMTypeRef mt = mmap_type(mc);
  LLVMValueRef p = LLVMBuildCall2(b, mt, ad_get_or_declare(mc->mod, "mmap", mt), args, 6, "");
  /* MAP_FAILED is (void *)-1 */
  LLVMValueRef failed = LLVMBuildICmp(
      b, LLVMIntEQ, LLVMBuildPtrToInt(b, p, i64, ""),
      LLVMConstInt(i64, (unsigned long long)-1, 1), "");
  LLVMBuildCondBr(b, failed, fail, ok);
  LLVMPositionBuilderAtEnd(b, fail);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMBuildRet(b, p);
  LLVMDisposeBuilder(b);
  return fn;
}

/* tanjit.rev.nested.unmap(p): munmap of a reservation, a function of its
 * own so that a gradient over this reverse knows it (as a free). */
static LLVMValueRef unmap_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.rev.nested.unmap",
      LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0), &fn);
  if (!b)
    return fn;
  LLVMValueRef args[2] = {
      LLVMGetParam(fn, 0),
      LLVMConstInt(LLVMInt64TypeInContext(c), NESTED_SHADOW_BYTES, 0)};
  LLVMTypeRef ut = munmap_type(mc);
  LLVMBuildCall2(b, ut, ad_get_or_declare(mc->mod, "munmap", ut), args, 2, "");
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
  call_unmap(mc, b, made);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  return 0;
}

static const ad_rev_call_row reserve_row = {.name = reserve_name,
                                            .rev = rev_reserve};

/* reserve(tape, n) = at, in the outer aug (builder after the clone): the
 * shadow is the shadow header's buffer (mapped at the first push) at at's
 * offset in the primal buffer; the mapping is recorded for the reverse
 * when this push made it. */
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
  trap_unless(mc, b,
              LLVMBuildICmp(b, LLVMIntULE, end,
                            LLVMConstInt(i64, NESTED_SHADOW_BYTES, 0), ""));
  LLVMValueRef sbase = LLVMBuildLoad2(b, ptr, stape, "nested.sbase");
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef map = LLVMAppendBasicBlockInContext(c, fn, "nested.map");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c, fn, "nested.mapped");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, sbase, ""), map, join);
  LLVMPositionBuilderAtEnd(b, map);
  LLVMValueRef mapped = LLVMBuildCall2(
      b, LLVMGlobalGetValueType(map_fn(mc)), map_fn(mc), NULL, 0, "");
  LLVMBuildStore(b, mapped, stape);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef sb = LLVMBuildPhi(b, ptr, "nested.buf");
  LLVMValueRef made = LLVMBuildPhi(b, ptr, "nested.made");
  LLVMValueRef vs[2] = {sbase, mapped}, ms[2] = {LLVMConstNull(ptr), mapped};
  LLVMBasicBlockRef bs[2] = {from, map};
  LLVMAddIncoming(sb, vs, bs, 2);
  LLVMAddIncoming(made, ms, bs, 2);
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
  LLVMValueRef s = ad_rev_recorded(r, call);
  if (s)
    call_unmap(r->mc, r->rb, s);
  return 0;
}

static const ad_rev_call_row map_row = {.name = "tanjit.rev.nested.map",
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
  LLVMValueRef fn = map_fn(r->mc);
  LLVMValueRef s =
      LLVMBuildCall2(r->fc.b, LLVMGlobalGetValueType(fn), fn, NULL, 0, "");
  ad_set_shadow(&r->fc, call, s);
  if (ad_rev_record(r, call, s) != 0)
    return -1;
  return ad_rev_plan_row(r, call, &map_row) ? 0 : -1;
}

int ad_rev_nested_aug(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef fn) {
  if (named(fn, "tanjit.rev.nested.map"))
    return aug_map(r, call);
  if (named(fn, "tanjit.rev.nested.unmap"))
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
