/*
 * The tape: one LIFO byte stack shared by every aug/rev pair of a gradient
 * (callees and recursion included), behind a header {ptr, size, cap} that
 * the gradient allocas and passes to each pair as its last argument.
 *
 * Each block of an aug body pushes one record just before its terminator:
 * every value the block's reverse reads (primal operands, results that
 * partials use, shadow pointers, a callee's arguments), then the block's
 * id on top.  Everything a block's reverse reads dominates the block's
 * terminator, so one push per block suffices for any control flow, and a
 * value overwritten in memory later cannot change what was recorded.
 * Records are laid out from their top down: the id in the 8 bytes below
 * the top, then each value in 8-byte-aligned slots, in the order the
 * reverse first asked for it, so the reverse can load a slot before it
 * knows the record's size.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

LLVMTypeRef ad_rev_tape_type(ad_module_ctx *mc) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMTypeRef members[3] = {ptr, i64, i64};
  return LLVMStructTypeInContext(mc->llctx, members, 3, 0);
}

/* The C type of free, calloc or realloc, the only libc functions the
 * tape and the shadows' lifetimes call. */
static LLVMTypeRef libc_type(ad_module_ctx *mc, const char *name) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  if (strcmp(name, "free") == 0)
    return LLVMFunctionType(LLVMVoidTypeInContext(mc->llctx), &ptr, 1, 0);
  LLVMTypeRef two[2] = {ptr, i64}; /* realloc */
  if (strcmp(name, "calloc") == 0)
    two[0] = i64;
  return LLVMFunctionType(ptr, two, 2, 0);
}

LLVMValueRef ad_rev_libc(ad_module_ctx *mc, const char *name) {
  return ad_get_or_declare(mc->mod, name, libc_type(mc, name));
}

LLVMValueRef ad_rev_call_libc(ad_module_ctx *mc, LLVMBuilderRef b,
                              const char *name, LLVMValueRef *args,
                              unsigned n) {
  /* the call's own type, whatever the module declared */
  return LLVMBuildCall2(b, libc_type(mc, name), ad_rev_libc(mc, name), args,
                        n, "");
}

/* tanjit.tape.reserve.<aug>(tape, n): the address of n fresh bytes on
 * top, growing the buffer (doubling, at least 4 KiB) with realloc; traps
 * when memory runs out (generated code has no error channel).  One copy
 * per augmented function, private to it: a function only one unit calls
 * goes with that unit (jit/partition.c), so LLVM inlines the fast path
 * into each push; one copy shared by every gradient would sit between
 * units, where a fast-math unit's calls are kept out of line. */
static LLVMValueRef reserve_fn(ad_rev_fn *r) {
  ad_module_ctx *mc = r->mc;
  size_t an;
  const char *aug = LLVMGetValueName2(r->aug, &an);
  char name[256];
  snprintf(name, sizeof name, "tanjit.tape.reserve.%.*s",
           (int)(an > 200 ? 200 : an), aug);
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c);
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  LLVMTypeRef params[2] = {ptr, i64};
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, name, LLVMFunctionType(ptr, params, 2, 0), &fn);
  if (!b)
    return fn;
  LLVMBasicBlockRef grow = LLVMAppendBasicBlockInContext(c, fn, "grow");
  LLVMBasicBlockRef oom = LLVMAppendBasicBlockInContext(c, fn, "oom");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMValueRef tape = LLVMGetParam(fn, 0), n = LLVMGetParam(fn, 1);
  LLVMValueRef psize = LLVMBuildStructGEP2(b, tt, tape, 1, "");
  LLVMValueRef pcap = LLVMBuildStructGEP2(b, tt, tape, 2, "");
  LLVMValueRef size = LLVMBuildLoad2(b, i64, psize, "size");
  LLVMValueRef cap = LLVMBuildLoad2(b, i64, pcap, "cap");
  LLVMValueRef need = LLVMBuildAdd(b, size, n, "need");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGT, need, cap, ""), grow, done);
  LLVMPositionBuilderAtEnd(b, grow);
  LLVMValueRef twice = LLVMBuildShl(b, cap, LLVMConstInt(i64, 1, 0), "");
  LLVMValueRef ncap = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntUGT, need, twice, ""), need, twice, "");
  ncap = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntULT, ncap, LLVMConstInt(i64, 4096, 0), ""),
      LLVMConstInt(i64, 4096, 0), ncap, "");
  LLVMValueRef old = LLVMBuildLoad2(b, ptr, tape, "");
  LLVMValueRef ra[2] = {old, ncap};
  LLVMValueRef grown = ad_rev_call_libc(mc, b, "realloc", ra, 2);
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "ok");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, grown, ""), oom, ok);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMBuildStore(b, grown, tape);
  LLVMBuildStore(b, ncap, pcap);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, oom);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMValueRef base = LLVMBuildLoad2(b, ptr, tape, "");
  LLVMBuildStore(b, need, psize);
  LLVMValueRef at = LLVMBuildGEP2(b, i8, base, &size, 1, "");
  LLVMBuildRet(b, at);
  LLVMDisposeBuilder(b);
  return fn;
}

/*
 * The tape's first buffer, sized from the call before: a gradient whose
 * records pass the 4 KiB reserve_fn starts with would otherwise malloc
 * 4 KiB, realloc it (copying) as it doubles, and free it on every call
 * (RK4's 20 steps: once to 8 KiB).  Each gradient of an augmented
 * function keeps, in a global of its own, the capacity its last call
 * ended with (at most TAPE_HINT_MAX, so one huge call does not make every
 * later one map as much), and the next call allocates that at once.  The
 * hint is read and written with relaxed atomics: gradients run on many
 * threads, and any value read is only a size to start from.
 */
enum { TAPE_HINT_MAX = 1 << 20 };

/* "tanjit.tape.<what>.<aug>" into buf: begin and end are one copy per
 * augmented function, like reserve_fn, so each stays in its gradient's
 * unit (jit/partition.c keeps calls between units out of line). */
static void per_aug_name(char *buf, size_t size, const char *what,
                         LLVMValueRef aug) {
  size_t an;
  const char *name = LLVMGetValueName2(aug, &an);
  snprintf(buf, size, "tanjit.tape.%s.%.*s", what, (int)(an > 200 ? 200 : an),
           name);
}

static LLVMValueRef tape_hint(ad_module_ctx *mc, LLVMValueRef aug) {
  char buf[256];
  per_aug_name(buf, sizeof buf, "hint", aug);
  LLVMValueRef g = LLVMGetNamedGlobal(mc->mod, buf);
  if (g)
    return g;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  g = LLVMAddGlobal(mc->mod, i64, buf);
  LLVMSetInitializer(g, LLVMConstNull(i64));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  return g;
}

/* begin and end inline into every gradient, where a tape nothing pushed
 * to folds to a null buffer, so such a gradient keeps one load and a
 * branch of this. */
static void always_inline(ad_module_ctx *mc, LLVMValueRef fn) {
  unsigned k = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(mc->llctx, k, 0));
}

static LLVMValueRef relaxed(LLVMValueRef memory_op) {
  LLVMSetOrdering(memory_op, LLVMAtomicOrderingMonotonic);
  LLVMSetAlignment(memory_op, 8);
  return memory_op;
}

/* tanjit.tape.<what>.<aug>(tape, hint), always inlined: *fn, and a
 * builder at its entry when it still needs a body (else NULL). */
static LLVMBuilderRef tape_hook(ad_module_ctx *mc, const char *what,
                                LLVMValueRef aug, LLVMValueRef *fn) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef params[2] = {ptr, ptr};
  char name[256];
  per_aug_name(name, sizeof name, what, aug);
  LLVMBuilderRef fb = ad_get_or_define_internal(
      mc->mod, name, LLVMFunctionType(LLVMVoidTypeInContext(c), params, 2, 0),
      fn);
  if (fb)
    always_inline(mc, *fn);
  return fb;
}

static void call_tape_hook(ad_module_ctx *mc, LLVMBuilderRef b,
                           LLVMValueRef fn, LLVMValueRef aug,
                           LLVMValueRef tape) {
  LLVMValueRef args[2] = {tape, tape_hint(mc, aug)};
  LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
}

void ad_rev_tape_begin(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef aug,
                       LLVMValueRef tape) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0), i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef fn;
  LLVMBuilderRef fb = tape_hook(mc, "begin", aug, &fn);
  if (fb) {
    LLVMValueRef t = LLVMGetParam(fn, 0), hint = LLVMGetParam(fn, 1);
    LLVMBasicBlockRef get = LLVMAppendBasicBlockInContext(c, fn, "get");
    LLVMBasicBlockRef got = LLVMAppendBasicBlockInContext(c, fn, "got");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
    LLVMValueRef h = relaxed(LLVMBuildLoad2(fb, i64, hint, "hint"));
    LLVMBuildCondBr(fb, LLVMBuildICmp(fb, LLVMIntEQ, h, LLVMConstNull(i64), ""),
                    done, get);
    LLVMPositionBuilderAtEnd(fb, get);
    LLVMValueRef ra[2] = {LLVMConstNull(ptr), h};
    LLVMValueRef p = ad_rev_call_libc(mc, fb, "realloc", ra, 2);
    LLVMBuildCondBr(fb, LLVMBuildIsNull(fb, p, ""), done, got);
    LLVMPositionBuilderAtEnd(fb, got);
    /* (a tape type's ptr and cap: the header starts with one) */
    LLVMTypeRef tt = ad_rev_tape_type(mc);
    LLVMBuildStore(fb, p, LLVMBuildStructGEP2(fb, tt, t, 0, ""));
    LLVMBuildStore(fb, h, LLVMBuildStructGEP2(fb, tt, t, 2, ""));
    LLVMBuildBr(fb, done);
    LLVMPositionBuilderAtEnd(fb, done);
    LLVMBuildRetVoid(fb);
    LLVMDisposeBuilder(fb);
  }
  call_tape_hook(mc, b, fn, aug, tape);
}

void ad_rev_tape_end(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef aug,
                     LLVMValueRef tape) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0), i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef fn;
  LLVMBuilderRef fb = tape_hook(mc, "end", aug, &fn);
  if (fb) {
    LLVMValueRef t = LLVMGetParam(fn, 0), hint = LLVMGetParam(fn, 1);
    LLVMTypeRef tt = ad_rev_tape_type(mc);
    /* nothing pushed: nothing to keep or free */
    LLVMValueRef buf = LLVMBuildLoad2(fb, ptr, LLVMBuildStructGEP2(fb, tt, t, 0, ""),
                                      "buf");
    LLVMBasicBlockRef used = LLVMAppendBasicBlockInContext(c, fn, "used");
    LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(c, fn, "out");
    LLVMBuildCondBr(fb, LLVMBuildIsNull(fb, buf, ""), out, used);
    LLVMPositionBuilderAtEnd(fb, out);
    LLVMBuildRetVoid(fb);
    LLVMPositionBuilderAtEnd(fb, used);
    LLVMValueRef cap = LLVMBuildLoad2(fb, i64, LLVMBuildStructGEP2(fb, tt, t, 2, ""),
                                      "cap");
    LLVMValueRef most = LLVMConstInt(i64, TAPE_HINT_MAX, 0);
    cap = LLVMBuildSelect(fb, LLVMBuildICmp(fb, LLVMIntUGT, cap, most, ""), most,
                          cap, "");
    LLVMBasicBlockRef keep = LLVMAppendBasicBlockInContext(c, fn, "keep");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
    LLVMValueRef h = relaxed(LLVMBuildLoad2(fb, i64, hint, "hint"));
    LLVMBuildCondBr(fb, LLVMBuildICmp(fb, LLVMIntNE, cap, h, ""), keep, done);
    LLVMPositionBuilderAtEnd(fb, keep);
    relaxed(LLVMBuildStore(fb, cap, hint));
    LLVMBuildBr(fb, done);
    LLVMPositionBuilderAtEnd(fb, done);
    ad_rev_call_libc(mc, fb, "free", &buf, 1);
    LLVMBuildRetVoid(fb);
    LLVMDisposeBuilder(fb);
  }
  call_tape_hook(mc, b, fn, aug, tape);
}

/*
 * The header a body pushes and pops through is its own copy, an alloca
 * in its entry block (SROA keeps ptr, size and cap in registers), not the
 * caller's header behind the tape parameter: that one may alias any
 * memory the body stores to (the shadows), so each push and pop would
 * reload and store it.  ad_rev_sync_tape copies the caller's header in at
 * the entry and out before each call that takes the tape (a callee's
 * pair pushes and pops on the same stack) and before each return, and in
 * again after such a call.
 */
static LLVMValueRef local_tape(ad_rev_fn *r, int reverse) {
  LLVMValueRef *slot = reverse ? &r->rev_ltape : &r->aug_ltape;
  if (*slot)
    return *slot;
  LLVMValueRef fn = reverse ? r->rev : r->aug;
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(r->mc->llctx);
  LLVMValueRef first = LLVMGetFirstInstruction(entry);
  if (first)
    LLVMPositionBuilderBefore(b, first);
  else
    LLVMPositionBuilderAtEnd(b, entry);
  *slot = LLVMBuildAlloca(b, ad_rev_tape_type(r->mc), "tape.local");
  LLVMDisposeBuilder(b);
  return *slot;
}

static void copy_header(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef to,
                        LLVMValueRef from) {
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  for (unsigned k = 0; k < 3; k++) {
    LLVMTypeRef ft = LLVMStructGetTypeAtIndex(tt, k);
    LLVMValueRef v = LLVMBuildLoad2(b, ft, LLVMBuildStructGEP2(b, tt, from, k, ""),
                                    "");
    LLVMBuildStore(b, v, LLVMBuildStructGEP2(b, tt, to, k, ""));
  }
}

static int takes(LLVMValueRef call, LLVMValueRef v) {
  /* the shadow allocator only links its block into the header's owned
   * list (memory.c): ptr, size and cap need no copy */
  LLVMValueRef callee = LLVMGetCalledValue(call);
  size_t n_;
  if (LLVMIsAFunction(callee) &&
      strncmp(LLVMGetValueName2(callee, &n_), "tanjit.rev.shadow.", 18) == 0)
    return 0;
  unsigned n = LLVMGetNumArgOperands(call);
  for (unsigned k = 0; k < n; k++)
    if (LLVMGetOperand(call, k) == v)
      return 1;
  return 0;
}

/* Copies at the block's first insertion point (after PHIs and a
 * landingpad). */
static void copy_at_start(ad_module_ctx *mc, LLVMBuilderRef b,
                          LLVMBasicBlockRef bb, LLVMValueRef to,
                          LLVMValueRef from) {
  LLVMValueRef i = LLVMGetFirstInstruction(bb);
  while (i && (LLVMIsAPHINode(i) || LLVMIsALandingPadInst(i)))
    i = LLVMGetNextInstruction(i);
  if (i)
    LLVMPositionBuilderBefore(b, i);
  else
    LLVMPositionBuilderAtEnd(b, bb);
  copy_header(mc, b, to, from);
}

/* Whether the body only reads its copy of the header (loads through it
 * and its field addresses): a reverse that pops nothing, only the block
 * heads' tops computed.  A pushing aug reserves through it, a popping
 * reverse stores the smaller size. */
static int only_read(LLVMValueRef v) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user))
      continue;
    if (LLVMIsAGetElementPtrInst(user) && LLVMGetOperand(user, 0) == v &&
        only_read(user))
      continue;
    return 0;
  }
  return 1;
}

/* Whether a call in fn hands it the caller's header. */
static int header_handed_on(LLVMValueRef fn, LLVMValueRef param) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if ((LLVMIsACallInst(i) || LLVMIsAInvokeInst(i)) && takes(i, param))
        return 1;
  return 0;
}

/* In aug (unwinding set), the caller's header must also be right whenever
 * an exception may leave the body, since the gradient frees the records
 * behind it (exceptions.c): the copy goes out before every call that may
 * unwind, and a landing pad copies it back in (a callee that threw had
 * copied its own out). */
static void sync_one(ad_module_ctx *mc, LLVMValueRef fn, LLVMValueRef local,
                     LLVMValueRef param, int unwinding) {
  if (!local)
    return;
  /* a body that never changes its copy and hands the header to no call
   * would copy back what it read: it copies in only, so that once its
   * dead tops are gone the header is not its memory at all (LLVM drops
   * the parameter, and the gradient's header and free(NULL) fold away:
   * sum of squares, n-body) */
  int read_only = only_read(local) && !header_handed_on(fn, param);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
  LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(local));
  copy_header(mc, b, local, param);
  if (read_only) {
    LLVMDisposeBuilder(b);
    return;
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    if (unwinding && ad_ir_is_landing_block(bb))
      copy_at_start(mc, b, bb, local, param);
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      int call = LLVMIsACallInst(i) != NULL, inv = LLVMIsAInvokeInst(i) != NULL;
      if (LLVMIsAReturnInst(i)) {
        LLVMPositionBuilderBefore(b, i);
        copy_header(mc, b, param, local);
      } else if ((call || inv) && takes(i, param)) {
        LLVMPositionBuilderBefore(b, i);
        copy_header(mc, b, param, local);
        if (inv) { /* its normal destination is its own (exceptions.c) */
          copy_at_start(mc, b, LLVMGetNormalDest(i), local, param);
          continue;
        }
        LLVMValueRef next = LLVMGetNextInstruction(i);
        LLVMPositionBuilderBefore(b, next);
        copy_header(mc, b, local, param);
        i = LLVMGetPreviousInstruction(next);
      } else if (unwinding && (call || inv) && ad_ir_may_unwind(i)) {
        LLVMPositionBuilderBefore(b, i);
        copy_header(mc, b, param, local);
      }
    }
  }
  LLVMDisposeBuilder(b);
}

void ad_rev_sync_tape(ad_rev_fn *r) {
  sync_one(r->mc, r->aug, r->aug_ltape, r->aug_tape, 1);
  sync_one(r->mc, r->rev, r->rev_ltape, r->rev_tape, 0);
}

static unsigned long long slot_size(ad_module_ctx *mc, LLVMTypeRef t) {
  unsigned long long s = LLVMABISizeOfType(mc->td, t);
  return (s + 7) & ~7ull;
}

/* The record's top in the reverse: tape.ptr + tape.size. */
static LLVMValueRef tape_top(ad_rev_fn *r, LLVMBuilderRef b) {
  ad_module_ctx *mc = r->mc;
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMValueRef tape = local_tape(r, 1);
  LLVMValueRef base = LLVMBuildLoad2(b, ptr, tape, "tape.ptr");
  LLVMValueRef size = LLVMBuildLoad2(
      b, i64, LLVMBuildStructGEP2(b, tt, tape, 1, ""), "tape.size");
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), base, &size, 1,
                       "top");
}

static LLVMValueRef below(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef top,
                          unsigned long long off) {
  LLVMValueRef k = LLVMConstInt(LLVMInt64TypeInContext(mc->llctx),
                                (unsigned long long)(-(long long)off), 1);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), top, &k, 1, "");
}

LLVMValueRef ad_rev_peek_id(ad_rev_fn *r, LLVMBuilderRef b) {
  LLVMValueRef top = tape_top(r, b);
  LLVMValueRef l = LLVMBuildLoad2(b, LLVMInt64TypeInContext(r->mc->llctx),
                                  below(r->mc, b, top, 8), "block.id");
  LLVMSetAlignment(ad_mark_tape_access(l), 8);
  return l;
}

void ad_rev_begin_block(ad_rev_fn *r, LLVMBasicBlockRef bb,
                        LLVMBasicBlockRef head, LLVMBasicBlockRef body) {
  (void)bb;
  r->head = head;
  r->body = body;
  r->nitems = 0;
  r->bytes = 8; /* the id */
  LLVMPositionBuilderAtEnd(r->rb, head);
  r->top = tape_top(r, r->rb);
  r->head_term = LLVMBuildBr(r->rb, body);
  LLVMPositionBuilderAtEnd(r->rb, body);
}

static ad_rev_item *find_item(ad_rev_fn *r, LLVMValueRef v, int shadow) {
  for (size_t i = 0; i < r->nitems; i++)
    if (r->items[i].v == v && r->items[i].shadow == shadow)
      return &r->items[i];
  return NULL;
}

static ad_rev_item *new_item(ad_rev_fn *r, LLVMValueRef v, int shadow) {
  if (r->nitems == r->capitems) {
    size_t cap = r->capitems ? 2 * r->capitems : 16;
    ad_rev_item *g = tj_realloc(r->items, cap * sizeof *g);
    if (!g) {
      ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
      return NULL;
    }
    r->items = g;
    r->capitems = cap;
  }
  ad_rev_item *it = &r->items[r->nitems++];
  memset(it, 0, sizeof *it);
  it->v = v;
  it->shadow = shadow;
  return it;
}

/* A slot of (v, shadow) in the current record, loaded in the head. */
static LLVMValueRef taped(ad_rev_fn *r, LLVMValueRef v, int shadow) {
  /* a recorded aug value (shadow 2) has its own type */
  LLVMTypeRef t = LLVMTypeOf(shadow == 2 ? ad_map_get(&r->recorded, v) : v);
  ad_rev_item *it = new_item(r, v, shadow);
  if (!it)
    return LLVMGetUndef(t);
  r->bytes += slot_size(r->mc, t);
  it->off = r->bytes;
  LLVMBuilderRef hb = LLVMCreateBuilderInContext(r->mc->llctx);
  LLVMPositionBuilderBefore(hb, r->head_term);
  it->loaded = LLVMBuildLoad2(hb, t, below(r->mc, hb, r->top, it->off),
                              shadow ? "taped.shadow" : "taped");
  LLVMSetAlignment(ad_mark_tape_access(it->loaded), 8);
  LLVMDisposeBuilder(hb);
  return it->loaded;
}

/*
 * What the reverse recomputes instead of storing: integer and pointer
 * arithmetic without side effects or traps (GEPs, casts, add/sub/mul,
 * shifts, bitwise, icmp, select, division by a constant), rebuilt in the
 * head from the record's other values.  It is right because everything a
 * block's reverse reads dominates the block's terminator, where the record
 * is pushed: an operand o of such a value v dominates v, and o cannot have
 * run again after v's last run without v running again before the
 * terminator (a path from o back to the terminator avoiding v would avoid
 * v from the entry), so the record's o is the o that v was computed from.
 * Shadows of GEPs, casts, selects and integer arithmetic are rebuilt the
 * way aug builds them (the same operation on the operands' shadows).  Chains
 * deeper than RECOMPUTE_DEPTH are stored instead, so the head stays short.
 */
#define RECOMPUTE_DEPTH 6

/* The opcodes rebuilt in the head, each with the operands aug replaces by
 * their shadows to make its shadow (its ad_lanewise operand list); none:
 * its shadow is not rebuilt. */
static const struct recompute_row {
  LLVMOpcode op;
  unsigned char n_shadow_ops;
  unsigned char shadow_ops[2];
} recompute_rows[] = {
    /* GEPs and casts: the shadow of the pointer or integer operand */
    {LLVMGetElementPtr, 1, {0}},
    {LLVMTrunc, 1, {0}},
    {LLVMZExt, 1, {0}},
    {LLVMSExt, 1, {0}},
    {LLVMPtrToInt, 1, {0}},
    {LLVMIntToPtr, 1, {0}},
    {LLVMBitCast, 1, {0}},
    {LLVMAddrSpaceCast, 1, {0}},
    /* integer arithmetic: both operands' shadows */
    {LLVMAdd, 2, {0, 1}},
    {LLVMSub, 2, {0, 1}},
    {LLVMMul, 2, {0, 1}},
    {LLVMShl, 2, {0, 1}},
    {LLVMLShr, 2, {0, 1}},
    {LLVMAShr, 2, {0, 1}},
    {LLVMAnd, 2, {0, 1}},
    {LLVMOr, 2, {0, 1}},
    {LLVMXor, 2, {0, 1}},
    /* a comparison: its i1 has no shadow */
    {LLVMICmp, 0, {0}},
    /* the condition chooses between the arms' shadows */
    {LLVMSelect, 2, {1, 2}},
};

static const struct recompute_row *recompute_row_of(LLVMOpcode op) {
  for (size_t i = 0; i < sizeof recompute_rows / sizeof *recompute_rows; i++)
    if (recompute_rows[i].op == op)
      return &recompute_rows[i];
  return NULL;
}

/* Those, and integer division by a constant that cannot trap (nonzero;
 * not -1 when signed): `i % 3` deciding a branch. */
static int recomputable(LLVMValueRef v) {
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (recompute_row_of(op))
    return 1;
  if (op != LLVMUDiv && op != LLVMURem && op != LLVMSDiv && op != LLVMSRem)
    return 0;
  LLVMValueRef d = LLVMGetOperand(v, 1);
  if (!LLVMIsAConstantInt(d) ||
      LLVMGetTypeKind(LLVMTypeOf(d)) != LLVMIntegerTypeKind ||
      LLVMGetIntTypeWidth(LLVMTypeOf(d)) > 64)
    return 0;
  if (LLVMConstIntGetZExtValue(d) == 0)
    return 0;
  return op == LLVMUDiv || op == LLVMURem || LLVMConstIntGetSExtValue(d) != -1;
}

/* The operands aug replaces by their shadows to make v's shadow, or 0
 * when v's shadow is not recomputed. */
static unsigned shadow_operands(LLVMOpcode op, unsigned *ops) {
  const struct recompute_row *row = recompute_row_of(op);
  unsigned n = row ? row->n_shadow_ops : 0;
  for (unsigned k = 0; k < n; k++)
    ops[k] = row->shadow_ops[k];
  return n;
}

/*
 * Loads the reverse reads again instead of storing their values: in a
 * pair whose rev runs right after its aug (sig.back_to_back: the gradient
 * at a request site), when the primal body writes no memory at all (no
 * instruction rev/overwritten.c's ad_rev_instruction_writes counts: no
 * store, no atomics, no call but those known to write nothing), memory
 * reached through a parameter holds in rev what aug read there.  The
 * reverse writes only shadows, its adjoint slots and the tape, all other
 * memory than the primal's under Enzyme's convention (a shadow is not the
 * primal buffer); where the shadow may be the pointer itself at run time,
 * the value is stored.  Allocas are gone when aug returns, so only loads
 * through a parameter (GEPs and casts of it) are reloaded.
 */
void ad_rev_plan_reloads(ad_rev_fn *r) {
  r->reload = 0;
  if (!r->sig->back_to_back)
    return;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->sig->fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (ad_rev_instruction_writes(r->mc, i))
        return;
  r->reload = 1;
}

/* Whether pointer p is a parameter moved by GEPs and casts, or a select
 * between such pointers. */
static int based_on_parameter(LLVMValueRef p, int depth) {
  if (LLVMIsAArgument(p))
    return 1;
  if (depth > 16 || !LLVMIsAInstruction(p))
    return 0;
  switch (LLVMGetInstructionOpcode(p)) {
  case LLVMGetElementPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
    return based_on_parameter(LLVMGetOperand(p, 0), depth + 1);
  case LLVMSelect: /* `c ? &a[i] : &b[j]` */
    return based_on_parameter(LLVMGetOperand(p, 1), depth + 1) &&
           based_on_parameter(LLVMGetOperand(p, 2), depth + 1);
  default:
    return 0;
  }
}

static int reloadable(ad_rev_fn *r, LLVMValueRef v) {
  if (!r->reload || !LLVMIsALoadInst(v) || LLVMGetVolatile(v) ||
      LLVMGetOrdering(v) != LLVMAtomicOrderingNotAtomic)
    return 0;
  LLVMValueRef p = LLVMGetOperand(v, 0);
  return based_on_parameter(p, 0) &&
         !(ad_shadow_or_null(&r->fc, p) && ad_shadow_may_equal_primal(&r->fc, p));
}

static LLVMValueRef value_of(ad_rev_fn *r, LLVMValueRef v, int shadow,
                             int depth);

/*
 * Float arithmetic is rebuilt only from what costs no slot of its own:
 * constants, parameters, values the record has already, memory reloaded
 * (above), or such arithmetic again, FLOAT_DEPTH deep at most (a sum of
 * two reloads instead of a stored difference, n-body's x[j] - x[i]).
 * The rebuilt instruction is the primal's, flags and all, so it computes
 * the same bits.
 */
#define FLOAT_DEPTH 2
/* In a body that writes no memory (r->reload) every load is reloaded, so
 * whole chains of float arithmetic over them (n-body's
 * sqrt(dx*dx + dy*dy + dz*dz), fused multiply-adds included) are rebuilt
 * and the aug's loops need record nothing: LLVM then deletes them, as
 * Enzyme, which recomputes them too, never runs them. */
#define FLOAT_DEPTH_RELOAD 6
#define REBUILD_BUDGET 64

/* Calls without side effects whose result only their operands decide. */
static int pure_float_call(LLVMValueRef v) {
  if (!LLVMIsACallInst(v))
    return 0;
  LLVMValueRef fn = ad_called_function(v);
  if (!fn)
    return 0;
  size_t n;
  const char *name = LLVMGetValueName2(fn, &n);
  static const char *const prefixes[] = {"llvm.fmuladd.", "llvm.fma.",
                                         "llvm.sqrt.", "llvm.fabs."};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
      return 1;
  /* libm's sqrt sets errno only where the primal already did */
  return strcmp(name, "sqrt") == 0 || strcmp(name, "sqrtf") == 0;
}

/* A select of floats too: it runs both arms' values in the primal, so
 * rebuilding it reads nothing the primal did not (a weight the index
 * chooses, `i % 3 == 1 ? 2.0 : ...`). */
static int float_arith(LLVMValueRef v) {
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  return op == LLVMFAdd || op == LLVMFSub || op == LLVMFMul ||
         op == LLVMFNeg || op == LLVMFDiv || op == LLVMSelect ||
         pure_float_call(v);
}

static int join_phi_free(ad_rev_fn *r, LLVMValueRef phi, int depth,
                         int *budget);

static int free_to_rebuild(ad_rev_fn *r, LLVMValueRef v, int depth,
                           int *budget) {
  if (!LLVMIsAInstruction(v))
    return LLVMIsAArgument(v) || LLVMIsAConstant(v);
  if (find_item(r, v, 0))
    return 1;
  if (reloadable(r, v))
    return 1;
  /* a PHI the join's reverse rebuilds (below) */
  if (LLVMIsAPHINode(v))
    return join_phi_free(r, v, 0, budget);
  /* integer operands (a select's condition): rebuilt from the loop's
   * slots and constants */
  int has_float = 0, has_other = 0;
  ad_rev_leaves(LLVMTypeOf(v), &has_float, &has_other);
  if (!has_float)
    return ad_rev_free_at(r, v, r->cur_block);
  if (--*budget < 0 ||
      depth >= (r->reload ? FLOAT_DEPTH_RELOAD : FLOAT_DEPTH) ||
      !float_arith(v))
    return 0;
  /* a call's last operand is its callee */
  int n = LLVMGetNumOperands(v) - (LLVMIsACallInst(v) ? 1 : 0);
  for (int k = 0; k < n; k++)
    if (!free_to_rebuild(r, LLVMGetOperand(v, (unsigned)k), depth + 1, budget))
      return 0;
  return 1;
}

/*
 * A PHI of the join being reversed is rebuilt instead of recorded when the
 * join's edge is decided by branch conditions the reverse has anyway
 * (adjoint.c: ad_rev_join_known) and each incoming value is rebuilt at no
 * slot of its own: the head branches as the forward pass did, each edge
 * rebuilds its incoming value, and a PHI joins them.  Stencil's boundary
 * test `u = boundary ? in[c] : in[c] + 0.2 * lap(in, c) - ...` is then
 * read again from memory instead of taped per cell, its forward pass
 * records nothing and LLVM deletes it.  An incoming value from predecessor
 * p has, at the join's reverse, the operands it had when p ran: p's edge
 * goes straight to the join, so nothing it reads ran again in between
 * (the record's values, the loop slots, memory when r->reload).
 *
 * Whether v, asked at `depth` of value_of, costs no slot: value_of's
 * order (record, induction variable, rebuild, invariant slot) without
 * building anything, so an edge adds no slot the forward pass would push.
 */
#define JOIN_REBUILD_BUDGET 256

static int rebuilt_free(ad_rev_fn *r, LLVMValueRef v, int depth, int *budget) {
  if (!LLVMIsAInstruction(v))
    return LLVMIsAArgument(v) || LLVMIsAConstant(v);
  if (find_item(r, v, 0) || ad_rev_loops_has_iv(r, v, r->cur_block))
    return 1;
  if (--*budget < 0)
    return 0;
  int max_depth = r->reload ? RECOMPUTE_DEPTH + FLOAT_DEPTH_RELOAD
                            : RECOMPUTE_DEPTH;
  int n = LLVMGetNumOperands(v);
  if (depth < max_depth && !LLVMIsAPHINode(v)) {
    if (reloadable(r, v))
      return rebuilt_free(r, LLVMGetOperand(v, 0), depth + 1, budget);
    int fbudget = REBUILD_BUDGET;
    int rebuild_float = float_arith(v) && free_to_rebuild(r, v, 0, &fbudget);
    int has_float = 0, has_other = 0;
    ad_rev_leaves(LLVMTypeOf(v), &has_float, &has_other);
    if (n <= 8 && (rebuild_float || (!has_float && recomputable(v)))) {
      for (int k = 0; k < n; k++)
        if (!rebuilt_free(r, LLVMGetOperand(v, (unsigned)k), depth + 1, budget))
          return 0;
      return 1;
    }
  }
  return ad_rev_loops_has_invariant(r, v, r->cur_block);
}

/* Whether phi, asked at `depth`, is a PHI of the join being reversed
 * that rebuild_join_phi rebuilds. */
static int join_phi_free(ad_rev_fn *r, LLVMValueRef phi, int depth,
                         int *budget) {
  size_t s = r->cur_block;
  if (s >= r->nblocks || LLVMGetInstructionParent(phi) != r->rpo[s] ||
      !ad_rev_join_known(r, s))
    return 0;
  unsigned n = LLVMCountIncoming(phi);
  for (unsigned k = 0; k < n; k++)
    if (!rebuilt_free(r, LLVMGetIncomingValue(phi, k), depth + 1, budget))
      return 0;
  return 1;
}

static LLVMValueRef rebuild_join_phi(ad_rev_fn *r, LLVMValueRef phi,
                                     int depth) {
  size_t s = r->cur_block, nb = r->nblocks;
  if (s >= nb || LLVMGetInstructionParent(phi) != r->rpo[s] ||
      !ad_rev_join_known(r, s))
    return NULL;
  /* the conditions first (the join's routing reads them anyway): the
   * check below then sees the items the edges will */
  if (ad_rev_join_conditions(r, s) != 0)
    return NULL;
  unsigned n = LLVMCountIncoming(phi);
  int budget = JOIN_REBUILD_BUDGET;
  if (!join_phi_free(r, phi, depth, &budget))
    return NULL;
  LLVMBasicBlockRef *edge = tj_calloc(nb, sizeof *edge);
  if (!edge) {
    ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, phi, "out of memory");
    return NULL;
  }
  /* the head splits: its branches end the block the head's terminator was
   * in, which moves on to a new one where the PHI joins the edges */
  LLVMContextRef c = r->mc->llctx;
  LLVMBasicBlockRef from = LLVMGetInstructionParent(r->head_term);
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c, r->rev, "rebuilt.join");
  LLVMBuilderRef hb = LLVMCreateBuilderInContext(c);
  LLVMInstructionRemoveFromParent(r->head_term);
  LLVMPositionBuilderAtEnd(hb, join);
  LLVMInsertIntoBuilder(hb, r->head_term);
  LLVMValueRef out = NULL;
  if (ad_rev_join_edges(r, s, from, edge) == 0) {
    LLVMValueRef term = r->head_term;
    LLVMValueRef vals[64];
    LLVMBasicBlockRef froms[64];
    unsigned nin = 0;
    for (size_t p = 0; p < nb && !r->mc->diag.failed; p++) {
      if (!edge[p])
        continue;
      LLVMValueRef in = NULL;
      for (unsigned k = 0; k < n && !in; k++)
        if (LLVMGetIncomingBlock(phi, k) == r->rpo[p])
          in = LLVMGetIncomingValue(phi, k);
      if (!in || nin == 64) {
        ad_fail_code(r->mc, TANJIT_ERR_INTERNAL, phi,
                     "internal: a rebuilt join's edge has no incoming value");
        break;
      }
      /* the edge's rebuild goes at its end; what it builds is its own, so
       * its items leave the record's list when it is done */
      LLVMPositionBuilderAtEnd(hb, edge[p]);
      r->head_term = LLVMBuildBr(hb, join);
      size_t before = r->nitems;
      vals[nin] = value_of(r, in, 0, depth + 1);
      froms[nin++] = edge[p];
      for (size_t i = before; i < r->nitems; i++)
        if (!r->items[i].recomputed)
          ad_fail_code(r->mc, TANJIT_ERR_INTERNAL, phi,
                       "internal: a rebuilt join's edge took a tape slot");
      r->nitems = before;
      r->head_term = term;
    }
    if (!r->mc->diag.failed) {
      LLVMPositionBuilderBefore(hb, term);
      out = LLVMBuildPhi(hb, LLVMTypeOf(phi), "rebuilt.join");
      LLVMAddIncoming(out, vals, froms, nin);
      ad_rev_item *it = new_item(r, phi, 0);
      if (it) {
        it->recomputed = 1;
        it->loaded = out;
      }
    }
  }
  LLVMDisposeBuilder(hb);
  free(edge);
  return out;
}

/* v (or its shadow) rebuilt in the head, or NULL when it is stored. */
static LLVMValueRef recompute(ad_rev_fn *r, LLVMValueRef v, int shadow,
                              int depth) {
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (!shadow && op == LLVMPHI)
    return rebuild_join_phi(r, v, depth);
  /* a rebuilt float chain reaches its reloads' addresses deeper down */
  int max_depth = r->reload ? RECOMPUTE_DEPTH + FLOAT_DEPTH_RELOAD
                            : RECOMPUTE_DEPTH;
  if (!shadow && depth < max_depth && reloadable(r, v)) {
    LLVMValueRef p = value_of(r, LLVMGetOperand(v, 0), 0, depth + 1);
    if (r->mc->diag.failed)
      return NULL;
    LLVMBuilderRef hb = LLVMCreateBuilderInContext(r->mc->llctx);
    LLVMPositionBuilderBefore(hb, r->head_term);
    LLVMValueRef c = LLVMBuildLoad2(hb, LLVMTypeOf(v), p, "reloaded");
    LLVMSetAlignment(c, LLVMGetAlignment(v));
    LLVMDisposeBuilder(hb);
    ad_rev_item *it = new_item(r, v, 0);
    if (it) {
      it->recomputed = 1;
      it->loaded = c;
    }
    return c;
  }
  int budget = REBUILD_BUDGET;
  int rebuild_float = !shadow && depth < max_depth && float_arith(v) &&
                      free_to_rebuild(r, v, 0, &budget);
  if (!rebuild_float && (depth >= max_depth || !recomputable(v)))
    return NULL;
  int has_float = 0, has_other = 0;
  ad_rev_leaves(LLVMTypeOf(v), &has_float, &has_other);
  if (has_float && !rebuild_float)
    return NULL;
  unsigned sops[2] = {0, 0}, nsops = 0;
  if (shadow) {
    /* a shadow aug gave v itself (ad_lanewise), not one standing in */
    if (!ad_shadow_or_null(&r->fc, v) || !ad_is_active(&r->fc, v))
      return NULL;
    if ((nsops = shadow_operands(op, sops)) == 0)
      return NULL;
  }
  unsigned n = (unsigned)LLVMGetNumOperands(v);
  LLVMValueRef ops[8];
  if (n > 8)
    return NULL;
  for (unsigned k = 0; k < n; k++) {
    int sk = 0;
    for (unsigned j = 0; j < nsops; j++)
      sk |= sops[j] == k;
    ops[k] = value_of(r, LLVMGetOperand(v, k), sk, depth + 1);
    if (r->mc->diag.failed)
      return NULL;
  }
  LLVMBuilderRef hb = LLVMCreateBuilderInContext(r->mc->llctx);
  LLVMPositionBuilderBefore(hb, r->head_term);
  LLVMValueRef c = LLVMInstructionClone(v);
  LLVMInsertIntoBuilderWithName(hb, c, shadow ? "recomputed.shadow"
                                              : "recomputed");
  LLVMDisposeBuilder(hb);
  for (unsigned k = 0; k < n; k++)
    LLVMSetOperand(c, k, ops[k]);
  ad_rev_item *it = new_item(r, v, shadow);
  if (!it)
    return c;
  it->recomputed = 1;
  it->loaded = c;
  return c;
}

/* v read from a slot of a counted loop (loops.c), in the head. */
static LLVMValueRef from_slot(ad_rev_fn *r, LLVMValueRef v, int shadow,
                              LLVMValueRef slot) {
  LLVMBuilderRef hb = LLVMCreateBuilderInContext(r->mc->llctx);
  LLVMPositionBuilderBefore(hb, r->head_term);
  LLVMValueRef l = LLVMBuildLoad2(hb, LLVMGetAllocatedType(slot), slot,
                                  "loop.value");
  LLVMDisposeBuilder(hb);
  ad_rev_item *it = new_item(r, v, shadow);
  if (it) {
    it->recomputed = 1;
    it->loaded = l;
  }
  return l;
}

static LLVMValueRef value_of(ad_rev_fn *r, LLVMValueRef v, int shadow,
                             int depth) {
  if (LLVMIsAArgument(v)) {
    LLVMValueRef p = ad_map_get(shadow ? &r->rshadow : &r->rparam, v);
    if (p)
      return p;
    /* an inactive parameter stands for itself */
    return shadow ? value_of(r, v, 0, depth) : v;
  }
  if (!LLVMIsAInstruction(v))
    /* constants, globals, functions; a constant's shadow is a constant
     * (shadow globals), no code */
    return shadow ? ad_shadow_value(&r->fc, v) : v;
  ad_rev_item *it = find_item(r, v, shadow);
  if (it)
    return it->loaded;
  LLVMValueRef slot = ad_rev_loops_iv_slot(r, v, shadow);
  if (slot)
    return from_slot(r, v, shadow, slot);
  LLVMValueRef c = recompute(r, v, shadow, depth);
  if (c)
    return c;
  if (r->mc->diag.failed)
    return LLVMGetUndef(LLVMTypeOf(v));
  if ((slot = ad_rev_loops_invariant_slot(r, v, shadow)))
    return from_slot(r, v, shadow, slot);
  return taped(r, v, shadow);
}

LLVMValueRef ad_rev_primal(ad_rev_fn *r, LLVMValueRef v) {
  return value_of(r, v, 0, 0);
}

/*
 * Whether the reverse of block `at` reads v without a slot of its own in
 * at's record, following value_of's order: constants and parameters; an
 * induction variable or a value from before a managed loop (loops.c's
 * slots); integer arithmetic recompute() rebuilds from such values.  Loads
 * and float values are data: not free (their reloads read memory).  v may
 * be arithmetic defined in a block that does not dominate at (a branch
 * condition between a join and its dominator, adjoint.c's replay): its
 * rebuild reads its operands' values at at, which are the ones v was
 * computed from when they dominate at and the path from v's block to at
 * runs no block twice (each operand's block ran before v's and does not
 * run again before at).
 */
static int free_at(ad_rev_fn *r, LLVMValueRef v, size_t at, int depth) {
  if (!LLVMIsAInstruction(v))
    return LLVMIsAArgument(v) || LLVMIsAConstant(v);
  uintptr_t d1 = (uintptr_t)ad_map_get(
      &r->block_id, LLVMBasicBlockAsValue(LLVMGetInstructionParent(v)));
  if (!d1)
    return 0;
  int dom = ad_rev_loops_dominates(r, (size_t)d1 - 1, at);
  if (LLVMIsAPHINode(v))
    return dom && (ad_rev_loops_has_iv(r, v, at) ||
                   ad_rev_loops_has_invariant(r, v, at));
  int max_depth = r->reload ? RECOMPUTE_DEPTH + FLOAT_DEPTH_RELOAD
                            : RECOMPUTE_DEPTH;
  int has_float = 0, has_other = 0;
  ad_rev_leaves(LLVMTypeOf(v), &has_float, &has_other);
  if (!has_float && depth < max_depth &&
      recomputable(v)) {
    int n = LLVMGetNumOperands(v);
    if (n > 8)
      return 0;
    for (int k = 0; k < n; k++)
      if (!free_at(r, LLVMGetOperand(v, (unsigned)k), at, depth + 1))
        return 0;
    return 1;
  }
  return dom && ad_rev_loops_has_invariant(r, v, at);
}

int ad_rev_free_at(ad_rev_fn *r, LLVMValueRef v, size_t at) {
  return free_at(r, v, at, 0);
}

LLVMValueRef ad_rev_shadow(ad_rev_fn *r, LLVMValueRef v) {
  return value_of(r, v, 1, 0);
}

/* Whether v is an instruction the reverse may delete when nothing uses
 * it: no side effects, not a terminator, not a slot or the record's top. */
static int erasable(ad_rev_fn *r, LLVMValueRef v) {
  if (!v || !LLVMIsAInstruction(v) || LLVMGetFirstUse(v) || v == r->top)
    return 0;
  if (LLVMIsALoadInst(v))
    return !LLVMGetVolatile(v);
  return LLVMIsABinaryOperator(v) || LLVMIsAUnaryOperator(v) ||
         LLVMIsACastInst(v) || LLVMIsACmpInst(v) || LLVMIsASelectInst(v) ||
         LLVMIsAGetElementPtrInst(v) || LLVMIsAExtractValueInst(v) ||
         LLVMIsAInsertValueInst(v) || LLVMIsAExtractElementInst(v) ||
         LLVMIsAInsertElementInst(v) || LLVMIsAShuffleVectorInst(v);
}

static int is_item_value(ad_rev_fn *r, LLVMValueRef v) {
  for (size_t i = 0; i < r->nitems; i++)
    if (r->items[i].loaded == v)
      return 1;
  return 0;
}

/* Deletes the dead instructions of the block's reverse (from its first
 * body block to the function's end: everything built since
 * ad_rev_begin_block), last first, so a chain dies in one pass. */
static void sweep_dead(ad_rev_fn *r) {
  for (LLVMBasicBlockRef bb = LLVMGetLastBasicBlock(r->rev); bb;
       bb = LLVMGetPreviousBasicBlock(bb)) {
    for (LLVMValueRef i = LLVMGetLastInstruction(bb); i;) {
      LLVMValueRef prev = LLVMGetPreviousInstruction(i);
      if (erasable(r, i) && !is_item_value(r, i))
        LLVMInstructionEraseFromParent(i);
      i = prev;
    }
    if (bb == r->body)
      break;
  }
}

/*
 * Drops what the block's reverse asked for and did not use in the end
 * (a math row's argument no partial reads, a partial of an inactive
 * operand): dead code first, then the items no one reads, last asked
 * first (a recomputed value is asked after its operands), so they are not
 * stored.  Then the stored items get their final offsets.
 */
static void prune_items(ad_rev_fn *r) {
  sweep_dead(r);
  for (size_t i = r->nitems; i-- > 0;) {
    ad_rev_item *it = &r->items[i];
    if (LLVMGetFirstUse(it->loaded))
      continue;
    LLVMValueRef addr = it->recomputed ? NULL : LLVMGetOperand(it->loaded, 0);
    LLVMInstructionEraseFromParent(it->loaded);
    it->loaded = NULL;
    if (addr && !LLVMGetFirstUse(addr))
      LLVMInstructionEraseFromParent(addr);
  }
  /* the survivors, compacted, stored ones at their final offsets */
  size_t kept = 0;
  r->bytes = r->needs_id && !r->needs_id[r->cur_block] ? 0 : 8;
  for (size_t i = 0; i < r->nitems; i++) {
    ad_rev_item it = r->items[i];
    if (!it.loaded)
      continue;
    if (!it.recomputed) {
      /* a recorded aug value (shadow 2) has its own type, not its key's
       * (a void call's, for a byval copy's shadow) */
      r->bytes += slot_size(r->mc, LLVMTypeOf(it.loaded));
      it.off = r->bytes;
      LLVMValueRef addr = LLVMGetOperand(it.loaded, 0);
      LLVMSetOperand(addr, 1,
                     LLVMConstInt(LLVMInt64TypeInContext(r->mc->llctx),
                                  (unsigned long long)(-(long long)it.off),
                                  1));
    }
    r->items[kept++] = it;
  }
  r->nitems = kept;
}

int ad_rev_record(ad_rev_fn *r, LLVMValueRef key, LLVMValueRef value) {
  if (ad_map_put(&r->recorded, key, value) != 0)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, key, "out of memory");
  return 0;
}

LLVMValueRef ad_rev_recorded(ad_rev_fn *r, LLVMValueRef key) {
  if (!ad_map_get(&r->recorded, key))
    return NULL;
  ad_rev_item *it = find_item(r, key, 2);
  return it ? it->loaded : taped(r, key, 2);
}

int ad_rev_end_block(ad_rev_fn *r, LLVMBasicBlockRef bb) {
  ad_module_ctx *mc = r->mc;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  prune_items(r);
  int with_id = !r->needs_id || r->needs_id[r->cur_block];
  unsigned long long total = r->bytes;
  if (total == 0) /* nothing to record: no push, no pop */
    return mc->diag.failed ? -1 : 0;
  /* the reverse pops the record */
  LLVMBuilderRef hb = LLVMCreateBuilderInContext(mc->llctx);
  LLVMPositionBuilderBefore(hb, r->head_term);
  LLVMValueRef psize = LLVMBuildStructGEP2(hb, tt, local_tape(r, 1), 1, "");
  LLVMValueRef size = LLVMBuildLoad2(hb, i64, psize, "");
  LLVMBuildStore(hb, LLVMBuildSub(hb, size, LLVMConstInt(i64, total, 0), ""),
                 psize);
  LLVMDisposeBuilder(hb);
  /* the aug pushes it before bb's terminator, and before the branch of
   * the pad a catch that goes on is reached by (exceptions.c) */
  for (int e = 0; e < 2; e++) {
    LLVMValueRef exit = e ? ad_rev_catch_exit(r, bb)
                          : ad_map_get(&r->fc.exit_block, LLVMBasicBlockAsValue(bb));
    if (!exit)
      continue;
    LLVMValueRef term = LLVMGetBasicBlockTerminator(LLVMValueAsBasicBlock(exit));
    ad_fn_ctx *fc = &r->fc;
    LLVMPositionBuilderBefore(fc->b, term);
    LLVMValueRef args[2] = {local_tape(r, 0), LLVMConstInt(i64, total, 0)};
    LLVMValueRef rf = reserve_fn(r);
    LLVMValueRef base =
        LLVMBuildCall2(fc->b, LLVMGlobalGetValueType(rf), rf, args, 2, "record");
    LLVMValueRef k = LLVMConstInt(i64, total, 0);
    LLVMValueRef top =
        LLVMBuildGEP2(fc->b, LLVMInt8TypeInContext(mc->llctx), base, &k, 1, "");
    for (size_t i = 0; i < r->nitems; i++) {
      ad_rev_item *it = &r->items[i];
      if (it->recomputed)
        continue;
      LLVMValueRef v = it->shadow == 2 ? ad_map_get(&r->recorded, it->v)
                       : it->shadow ? ad_shadow_value(fc, it->v)
                                    : ad_primal(fc, it->v);
      LLVMValueRef st = LLVMBuildStore(fc->b, v, below(mc, fc->b, top, it->off));
      LLVMSetAlignment(ad_mark_tape_access(st), 8);
    }
    if (with_id) {
      uintptr_t id =
          (uintptr_t)ad_map_get(&r->block_id, LLVMBasicBlockAsValue(bb));
      LLVMValueRef st = LLVMBuildStore(fc->b, LLVMConstInt(i64, id, 0),
                                       below(mc, fc->b, top, 8));
      LLVMSetAlignment(ad_mark_tape_access(st), 8);
    }
  }
  return mc->diag.failed ? -1 : 0;
}

int ad_rev_edge_record(ad_rev_fn *r, LLVMBuilderRef ab, LLVMBuilderRef rb,
                       LLVMValueRef *vals, LLVMValueRef *slots, size_t n,
                       long long id) {
  ad_module_ctx *mc = r->mc;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  unsigned long long total = id >= 0 ? 8 : 0;
  unsigned long long *off = tj_malloc((n ? n : 1) * sizeof *off);
  if (!off)
    return -1;
  for (size_t i = 0; i < n; i++) {
    total += slot_size(mc, LLVMTypeOf(vals[i]));
    off[i] = total;
  }
  if (total == 0) {
    free(off);
    return 0;
  }
  /* aug: push */
  LLVMValueRef args[2] = {local_tape(r, 0), LLVMConstInt(i64, total, 0)};
  LLVMValueRef rf = reserve_fn(r);
  LLVMValueRef base =
      LLVMBuildCall2(ab, LLVMGlobalGetValueType(rf), rf, args, 2, "record");
  LLVMValueRef k = LLVMConstInt(i64, total, 0);
  LLVMValueRef top =
      LLVMBuildGEP2(ab, LLVMInt8TypeInContext(mc->llctx), base, &k, 1, "");
  for (size_t i = 0; i < n; i++) {
    LLVMValueRef st = LLVMBuildStore(ab, vals[i], below(mc, ab, top, off[i]));
    LLVMSetAlignment(ad_mark_tape_access(st), 8);
  }
  if (id >= 0) {
    LLVMValueRef st = LLVMBuildStore(
        ab, LLVMConstInt(i64, (unsigned long long)id, 0), below(mc, ab, top, 8));
    LLVMSetAlignment(ad_mark_tape_access(st), 8);
  }
  /* rev: pop into the slots */
  LLVMValueRef rtop = tape_top(r, rb);
  for (size_t i = 0; i < n; i++) {
    LLVMValueRef l = LLVMBuildLoad2(rb, LLVMTypeOf(vals[i]),
                                    below(mc, rb, rtop, off[i]), "loop.entry");
    LLVMSetAlignment(ad_mark_tape_access(l), 8);
    LLVMBuildStore(rb, l, slots[i]);
  }
  LLVMValueRef psize = LLVMBuildStructGEP2(rb, tt, local_tape(r, 1), 1, "");
  LLVMValueRef size = LLVMBuildLoad2(rb, i64, psize, "");
  LLVMBuildStore(rb, LLVMBuildSub(rb, size, LLVMConstInt(i64, total, 0), ""),
                 psize);
  free(off);
  return 0;
}
