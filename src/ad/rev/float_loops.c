/*
 * The per-float-type loops reverse mode calls to move adjoints between
 * shadow buffers, one internal function per (loop, type) in the module,
 * named `tanjit.rev.<loop>.<T>` and made on first use:
 *
 *   copy(dst', src', n, add)   the reverse of copying n elements of T:
 *                              every dst'[i] read and zeroed first (the
 *                              ranges may overlap: memmove), then added
 *                              into src'[i] when `add`
 *   take(to, from, n)          to[i] = from[i]; from[i] = 0
 *   accumulate(acc, add, n)    acc[i] += add[i]
 *
 * Elements are T's ABI size apart (x86_fp80: 16 bytes), as in arrays.
 * memory.c (host copies, whole or segment by segment) and cuda.c (the
 * host side of device transfers) share them.
 */
#include <stdio.h>

#include "ad/core/context.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"

static const char *const loop_names[] = {"copy", "take", "accumulate"};
_Static_assert(sizeof loop_names / sizeof *loop_names ==
                   AD_REV_LOOP_ACCUMULATE + 1,
               "one name per ad_rev_loop");

/* The counted loop `for (i = 0; i < n; i++)` at b, its body from `body`
 * (given i, the builder in the body); ends with b after the loop. */
typedef void (*loop_body)(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef fn,
                          LLVMValueRef i);

static void counted_loop(LLVMContextRef c, LLVMBuilderRef b, LLVMValueRef fn,
                         LLVMValueRef n, LLVMTypeRef t, loop_body body,
                         const char *label) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef zero = LLVMConstInt(i64, 0, 0);
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fn, label);
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, n, zero, ""), done, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef i = LLVMBuildPhi(b, i64, "i");
  body(b, t, fn, i);
  LLVMValueRef next = LLVMBuildAdd(b, i, LLVMConstInt(i64, 1, 0), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, n, ""), loop, done);
  LLVMValueRef iv[2] = {zero, next};
  LLVMBasicBlockRef ib[2] = {from, latch};
  LLVMAddIncoming(i, iv, ib, 2);
  LLVMPositionBuilderAtEnd(b, done);
}

/* take's body: p0 = to, p1 = from */
static void take_body(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef fn,
                      LLVMValueRef i) {
  LLVMValueRef pf = LLVMBuildGEP2(b, t, LLVMGetParam(fn, 1), &i, 1, "");
  LLVMValueRef v = LLVMBuildLoad2(b, t, pf, "");
  LLVMBuildStore(b, LLVMConstNull(t), pf);
  LLVMBuildStore(b, v, LLVMBuildGEP2(b, t, LLVMGetParam(fn, 0), &i, 1, ""));
}

/* accumulate's body: p0 = acc, p1 = add */
static void accumulate_body(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef fn,
                            LLVMValueRef i) {
  LLVMValueRef pa = LLVMBuildGEP2(b, t, LLVMGetParam(fn, 0), &i, 1, "");
  LLVMValueRef sum = LLVMBuildFAdd(
      b, LLVMBuildLoad2(b, t, pa, ""),
      LLVMBuildLoad2(b, t, LLVMBuildGEP2(b, t, LLVMGetParam(fn, 1), &i, 1, ""),
                     ""),
      "");
  LLVMBuildStore(b, sum, pa);
}

/* copy: take dst' into a scratch buffer, then (when add) accumulate it
 * into src'; the scratch comes from calloc, freed at the end */
static void build_copy(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef fn,
                       LLVMTypeRef t) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef d = LLVMGetParam(fn, 0), s = LLVMGetParam(fn, 1);
  LLVMValueRef n = LLVMGetParam(fn, 2), add = LLVMGetParam(fn, 3);
  LLVMValueRef ca[2] = {n, LLVMConstInt(i64, LLVMABISizeOfType(mc->td, t), 0)};
  LLVMValueRef tmp = ad_rev_call_libc(mc, b, "calloc", ca, 2);
  LLVMValueRef take = ad_rev_typed_helper(mc, AD_REV_LOOP_TAKE, t);
  LLVMValueRef ta[3] = {tmp, d, n};
  LLVMBuildCall2(b, LLVMGlobalGetValueType(take), take, ta, 3, "");
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(c, fn, "add");
  LLVMBasicBlockRef fin = LLVMAppendBasicBlockInContext(c, fn, "free");
  LLVMBuildCondBr(b, add, go, fin);
  LLVMPositionBuilderAtEnd(b, go);
  LLVMValueRef acc = ad_rev_typed_helper(mc, AD_REV_LOOP_ACCUMULATE, t);
  LLVMValueRef aa[3] = {s, tmp, n};
  LLVMBuildCall2(b, LLVMGlobalGetValueType(acc), acc, aa, 3, "");
  LLVMBuildBr(b, fin);
  LLVMPositionBuilderAtEnd(b, fin);
  ad_rev_call_libc(mc, b, "free", &tmp, 1);
}

LLVMValueRef ad_rev_typed_helper(ad_module_ctx *mc, ad_rev_loop loop,
                                 LLVMTypeRef t) {
  char name[96];
  char *tn = LLVMPrintTypeToString(t);
  snprintf(name, sizeof name, "tanjit.rev.%s.%s", loop_names[loop], tn);
  LLVMDisposeMessage(tn);
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef params[4] = {ptr, ptr, i64, LLVMInt1TypeInContext(c)};
  unsigned np = loop == AD_REV_LOOP_COPY ? 4 : 3;
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, name, LLVMFunctionType(LLVMVoidTypeInContext(c), params, np, 0),
      &fn);
  if (!b)
    return fn;
  if (loop == AD_REV_LOOP_COPY)
    build_copy(mc, b, fn, t);
  else
    counted_loop(c, b, fn, LLVMGetParam(fn, 2), t,
                 loop == AD_REV_LOOP_TAKE ? take_body : accumulate_body,
                 loop_names[loop]);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}
