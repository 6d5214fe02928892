/*
 * C++ exceptions (Itanium EH: invoke, landingpad, resume) in reverse mode.
 *
 * The normal path is differentiated like a call: in aug an invoke is the
 * call's work (ad_rev_aug_call: a rule, or the callee's augmented_ call),
 * each call of that work that may unwind made an invoke again (the shared
 * walk of ir/unwind.c, as forward mode does), then a branch to the normal
 * destination; its reverse is the call's (adjoint.c reverses a block's
 * invoke before the rest of the block).  The normal destination's PHIs
 * take the edge from the block the work ends in (aug.c's exit block).
 *
 * Landing pads: the invokes made for one primal invoke unwind to one fresh
 * pad of that invoke (the primal landingpad's clauses, then a branch into
 * the aug copy of the primal pad's block), so that block keeps one
 * predecessor per primal invoke and its PHIs one incoming value per primal
 * edge (ad_rev_edge_key); the landingpad becomes a PHI of the pads'
 * landingpads.  What a pad delivers is inactive.
 *
 * The unwind path runs the primal's cleanups in aug (destructors, deletes:
 * the memory rows free nothing of the shadows) and leaves by `resume`: an
 * exception ends the gradient, as it ends the primal, and no reverse runs
 * (the blocks that end in resume have none).  What aug allocated for the
 * reverse is freed on the way out: the gradient calls aug through a guard
 * (ad_rev_guarded_aug) whose cleanup pad frees the shadow blocks on the
 * header's owned list (memory.c), the tape's records (tape.c keeps the
 * caller's header right whenever aug may unwind) and a split-mode heap
 * header (all in `tanjit.rev.unwound`, ad_rev_unwound_name), then
 * resumes: the exception reaches the caller of __enzyme_autodiff
 * unchanged.
 *
 * Handlers that catch and go on (a landing pad from which a `ret` is
 * reached): the landing pad block is reversed like any other, back to
 * the invoke's block along the unwind edge, so that block's record is
 * pushed in its fresh pad too (ad_rev_catch_exit).  That is exact when
 * the call that threw has nothing to reverse (inactive, no plan: a throw
 * in the function itself, `__cxa_throw`); after a call with a reverse it
 * would take the reverse of a partly run call, which is refused, as are
 * Windows EH funclets.
 */
#include <stdlib.h>
#include <string.h>

#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"
#include "common/strbuf.h"

static int fail_at(ad_rev_fn *r, LLVMValueRef inst, const char *what) {
  return ad_fail_code(r->mc, TANJIT_ERR_UNSUPPORTED, inst, "reverse mode: %s",
                      what);
}

static void rename_in_map(ad_map *m, LLVMValueRef from, LLVMValueRef to) {
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i] && m->vals[i] == from)
      m->vals[i] = to;
}

typedef struct invoke_walk {
  ad_rev_fn *r;
  LLVMValueRef inv;
  int trap; /* the work's exception traps instead (see ad_rev_aug_invoke) */
} invoke_walk;

static void walk_renamed(void *ctx, LLVMValueRef from, LLVMValueRef to) {
  ad_fn_ctx *fc = &((invoke_walk *)ctx)->r->fc;
  rename_in_map(&fc->vmap, from, to);
  rename_in_map(&fc->shadow, from, to);
}

/* Adds pad block pb's landingpad to the aug PHI of primal landingpad lp. */
static void add_pad_incoming(LLVMValueRef phi, LLVMBasicBlockRef pb) {
  unsigned n = LLVMCountIncoming(phi);
  for (unsigned k = 0; k < n; k++)
    if (LLVMGetIncomingBlock(phi, k) == pb)
      return;
  LLVMValueRef v = LLVMGetFirstInstruction(pb);
  LLVMAddIncoming(phi, &v, &pb, 1);
}

/* A fresh pad for primal invoke `inv`: its landingpad (the clauses of the
 * primal's) and a branch into the aug copy of the primal pad's block. */
static LLVMBasicBlockRef walk_pad(void *ctx) {
  invoke_walk *w = ctx;
  ad_rev_fn *r = w->r;
  ad_fn_ctx *fc = &r->fc;
  LLVMBasicBlockRef unwind = LLVMGetUnwindDest(w->inv);
  LLVMValueRef lp = ad_ir_landing_pad_of(unwind);
  if (w->trap) {
    LLVMContextRef c = r->mc->llctx;
    LLVMBasicBlockRef pad = LLVMAppendBasicBlockInContext(c, r->aug, "unwind.trap");
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
    LLVMPositionBuilderAtEnd(b, pad);
    LLVMValueRef l = LLVMBuildLandingPad(b, LLVMTypeOf(lp), NULL, 0, "");
    LLVMSetCleanup(l, 1);
    ad_build_trap(r->mc->mod, b);
    LLVMDisposeBuilder(b);
    return pad;
  }
  LLVMValueRef target = ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(unwind));
  LLVMBasicBlockRef pad =
      ad_ir_pad_in_front(r->aug, lp, LLVMValueAsBasicBlock(target));
  if (ad_map_put(&fc->exit_block, w->inv, LLVMBasicBlockAsValue(pad)) != 0) {
    ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, w->inv, "out of memory");
    return NULL;
  }
  /* the pad block's aug may be built already (a loop's back edge) */
  LLVMValueRef phi = ad_map_get(&fc->vmap, lp);
  if (phi)
    add_pad_incoming(phi, pad);
  return pad;
}

/* Whether a `ret` is reached from inv's landing pad (a handler that
 * catches and goes on); 0 or 1, -1 on error. */
static int handler_returns(ad_rev_fn *r, LLVMValueRef inv) {
  LLVMBasicBlockRef start = LLVMGetUnwindDest(inv);
  LLVMBasicBlockRef stack[256];
  ad_map seen;
  ad_map_init(&seen);
  size_t sp = 0;
  int rc = 0;
  stack[sp++] = start;
  if (ad_map_put(&seen, start, (void *)1) != 0)
    rc = ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, inv, "out of memory");
  while (sp && rc == 0) {
    LLVMBasicBlockRef bb = stack[--sp];
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (!term)
      continue;
    if (LLVMGetInstructionOpcode(term) == LLVMRet) {
      rc = 1;
      break;
    }
    unsigned ns = LLVMGetNumSuccessors(term);
    for (unsigned s = 0; s < ns && rc == 0; s++) {
      LLVMBasicBlockRef succ = LLVMGetSuccessor(term, s);
      if (ad_map_get(&seen, succ))
        continue;
      if (sp == sizeof stack / sizeof *stack) {
        rc = fail_at(r, inv, "an exception handler of more than 256 blocks");
        break;
      }
      if (ad_map_put(&seen, succ, (void *)1) != 0)
        rc = ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, inv, "out of memory");
      stack[sp++] = succ;
    }
  }
  ad_map_free(&seen);
  return rc;
}

/* Whether an exception from primal invoke inv's call leaves nothing to
 * reverse: the call is inactive and got no plan, so the reverse of its
 * block is the same along the unwind edge as along the normal one. */
static int unwinds_cleanly(ad_rev_fn *r, LLVMValueRef inv) {
  return !ad_rev_any_active(r, inv) && !ad_map_get(&r->plans, inv) &&
         !ad_map_get(&r->cuda_plans, inv) && !ad_map_get(&r->recorded, inv) &&
         !ad_map_get(&r->custom, inv);
}

/* Whether the reverse of inv's call is right after its exception too: a
 * defined callee's pair (or each possible target's), the callee's unwinding
 * clone (calls.c), whose reverse undoes what ran before the throw.  It
 * reads only the call's arguments, which dominate the unwind edge. */
static int reverse_follows_throw(ad_rev_fn *r, LLVMValueRef inv) {
  ad_rev_call_plan *p = ad_map_get(&r->plans, inv);
  return p && (p->kind == PLAN_CALL || p->kind == PLAN_INDIRECT) &&
         !ad_map_get(&r->cuda_plans, inv) && !ad_map_get(&r->recorded, inv) &&
         !ad_map_get(&r->custom, inv);
}

int ad_rev_is_exit(ad_rev_fn *r, LLVMValueRef term) {
  LLVMOpcode op = LLVMGetInstructionOpcode(term);
  return op == LLVMRet ||
         (op == LLVMResume && ad_rev_is_unwinding_clone(r->sig->fn));
}

int ad_rev_unwind_reversed(ad_rev_fn *r, LLVMValueRef inv) {
  if (ad_rev_is_unwinding_clone(r->sig->fn))
    return 1;
  return handler_returns(r, inv);
}

LLVMValueRef ad_rev_catch_exit(ad_rev_fn *r, LLVMBasicBlockRef bb) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  if (!term || !LLVMIsAInvokeInst(term))
    return NULL;
  if (!unwinds_cleanly(r, term) &&
      !(reverse_follows_throw(r, term) && ad_rev_unwind_reversed(r, term) == 1))
    return NULL;
  return ad_map_get(&r->fc.exit_block, term);
}

int ad_rev_aug_invoke(ad_rev_fn *r, LLVMValueRef inv) {
  ad_fn_ctx *fc = &r->fc;
  LLVMBasicBlockRef unwind = LLVMGetUnwindDest(inv);
  if (!ad_ir_landing_pad_of(unwind))
    return fail_at(r, inv,
                   "an invoke whose unwind destination is not a landingpad "
                   "block (Windows EH funclets) is not supported");
  int returns = handler_returns(r, inv);
  if (returns < 0)
    return -1;
  if (LLVMHasPersonalityFn(r->sig->fn))
    LLVMSetPersonalityFn(r->aug, LLVMGetPersonalityFn(r->sig->fn));
  LLVMValueRef pad_v = ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(unwind));
  LLVMValueRef normal_v =
      ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(LLVMGetNormalDest(inv)));
  if (!pad_v || !normal_v)
    return fail_at(r, inv, "internal: an invoke's destinations were not cloned");
  LLVMBasicBlockRef start = LLVMGetInsertBlock(fc->b);
  LLVMValueRef before = LLVMGetLastInstruction(start);
  LLVMBasicBlockRef last_old = LLVMGetLastBasicBlock(r->aug);
  if (ad_rev_aug_call(r, inv) != 0 || r->mc->diag.failed)
    return -1;
  /* a catch that goes on reverses the invoke's block from the landing pad:
   * right when the call threw before doing anything to reverse, or when
   * its reverse is a callee's that follows the throw */
  if (ad_rev_is_unwinding_clone(r->sig->fn))
    returns = 1;
  /* else the call has a reverse rule (an allocation's, a math row's, a
   * custom gradient's, a CUDA call's), whose reverse would undo a call
   * that did not complete: its exception traps instead of reaching a
   * handler that goes on (README; Enzyme terminates the program when an
   * exception reaches its code).  Refusing at load would refuse every
   * `new` of active memory in a try block or below one. */
  int trap =
      returns && !unwinds_cleanly(r, inv) && !reverse_follows_throw(r, inv);
  LLVMBasicBlockRef end = LLVMGetInsertBlock(fc->b);
  invoke_walk w = {r, inv, trap};
  int rc = ad_ir_rethread_unwind(start, before, last_old, &end, walk_pad,
                                 walk_renamed, &w);
  if (rc == -2)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, inv, "out of memory");
  if (rc != 0)
    return -1;
  LLVMPositionBuilderAtEnd(fc->b, end);
  LLVMBuildBr(fc->b, LLVMValueAsBasicBlock(normal_v));
  return 0;
}

int ad_rev_aug_landing_pad(ad_rev_fn *r, LLVMValueRef lp) {
  ad_fn_ctx *fc = &r->fc;
  LLVMValueRef phi = LLVMBuildPhi(fc->b, LLVMTypeOf(lp), "");
  ad_name_after(phi, lp, "");
  if (ad_map_put(&fc->vmap, lp, phi) != 0)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, lp, "out of memory");
  /* the pads of the invokes built before this block */
  LLVMBasicBlockRef block = LLVMGetInstructionParent(lp);
  for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(block)); u;
       u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAInvokeInst(user) || LLVMGetUnwindDest(user) != block)
      continue;
    LLVMValueRef pad = ad_map_get(&fc->exit_block, user);
    if (pad)
      add_pad_incoming(phi, LLVMValueAsBasicBlock(pad));
  }
  return 0;
}

LLVMValueRef ad_rev_edge_key(LLVMBasicBlockRef from, LLVMBasicBlockRef to) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(from);
  if (term && LLVMIsAInvokeInst(term) && LLVMGetUnwindDest(term) == to)
    return term;
  return LLVMBasicBlockAsValue(from);
}

void ad_rev_sync_resumes(ad_rev_fn *r) {
  if (!r->aug_ltape)
    return;
  ad_module_ctx *mc = r->mc;
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->aug); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (!term || LLVMGetInstructionOpcode(term) != LLVMResume)
      continue;
    LLVMPositionBuilderBefore(b, term);
    for (unsigned k = 0; k < 3; k++) { /* ptr, size, cap */
      LLVMTypeRef ft = LLVMStructGetTypeAtIndex(tt, k);
      LLVMValueRef v = LLVMBuildLoad2(
          b, ft, LLVMBuildStructGEP2(b, tt, r->aug_ltape, k, ""), "");
      LLVMBuildStore(b, v, LLVMBuildStructGEP2(b, tt, r->aug_tape, k, ""));
    }
  }
  LLVMDisposeBuilder(b);
}

/* ---- the guard of a gradient's augmented pass ---- */

LLVMTypeRef ad_rev_header_type(ad_module_ctx *mc) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMTypeRef members[6] = {ptr, i64, i64, i64, ptr, ptr};
  return LLVMStructTypeInContext(mc->llctx, members, 6, 0);
}

static LLVMValueRef byte_offset(ad_module_ctx *mc, LLVMBuilderRef b,
                                LLVMValueRef p, unsigned long long off) {
  LLVMValueRef k = LLVMConstInt(LLVMInt64TypeInContext(mc->llctx), off, 0);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), p, &k, 1, "");
}

/* A device shadow's node: { next, shadow (8 bytes), free thunk }. */
enum { NODE_NEXT = 0, NODE_SHADOW = 8, NODE_FREE = 16, NODE_BYTES = 24 };

LLVMValueRef ad_rev_own_device_shadow(ad_rev_fn *r, LLVMBuilderRef b,
                                      LLVMValueRef shadow, LLVMValueRef thunk) {
  ad_module_ctx *mc = r->mc;
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef n[2] = {LLVMConstInt(i64, 1, 0), LLVMConstInt(i64, NODE_BYTES, 0)};
  LLVMValueRef node = ad_rev_call_libc(mc, b, "calloc", n, 2);
  LLVMSetValueName2(node, "device.shadow.node", 18);
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
  LLVMBasicBlockRef oom = LLVMAppendBasicBlockInContext(c, fn, "node.oom");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "node.ok");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, node, ""), oom, ok);
  LLVMPositionBuilderAtEnd(b, oom);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMValueRef head =
      byte_offset(mc, b, r->aug_tape, AD_REV_TAPE_DEVICE_OFFSET);
  LLVMBuildStore(b, LLVMBuildLoad2(b, ptr, head, ""),
                 byte_offset(mc, b, node, NODE_NEXT));
  LLVMBuildStore(b, shadow, byte_offset(mc, b, node, NODE_SHADOW));
  LLVMBuildStore(b, thunk, byte_offset(mc, b, node, NODE_FREE));
  LLVMBuildStore(b, node, head);
  return node;
}

LLVMValueRef ad_rev_device_shadow_of(ad_module_ctx *mc, LLVMBuilderRef b,
                                     LLVMValueRef node, LLVMTypeRef t) {
  return LLVMBuildLoad2(b, t, byte_offset(mc, b, node, NODE_SHADOW),
                        "device.shadow");
}

/* Calls every device node's free thunk on header's list, then frees the
 * node (the guard's cleanup). */
static void free_device_shadows(ad_module_ctx *mc, LLVMBuilderRef b,
                                LLVMValueRef header) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMValueRef fn = LLVMGetBasicBlockParent(from);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fn, "device.next");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c, fn, "device.free");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "device.done");
  LLVMValueRef first = LLVMBuildLoad2(
      b, ptr, byte_offset(mc, b, header, AD_REV_TAPE_DEVICE_OFFSET), "device");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef node = LLVMBuildPhi(b, ptr, "");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, node, ""), done, body);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef next =
      LLVMBuildLoad2(b, ptr, byte_offset(mc, b, node, NODE_NEXT), "");
  LLVMValueRef thunk =
      LLVMBuildLoad2(b, ptr, byte_offset(mc, b, node, NODE_FREE), "");
  LLVMTypeRef tt = LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0);
  LLVMBuildCall2(b, tt, thunk, &node, 1, "");
  ad_rev_call_libc(mc, b, "free", &node, 1);
  LLVMBuildBr(b, loop);
  LLVMAddIncoming(node, &first, &from, 1);
  LLVMAddIncoming(node, &next, &body, 1);
  LLVMPositionBuilderAtEnd(b, done);
}

/* Whether an exception may leave fn: a `resume`, or a call (not an
 * invoke: its exception lands in fn's pad) that may throw, a defined
 * callee's body asked the same (a cycle adds nothing: seen).  -1 when
 * memory runs out. */
int ad_rev_body_may_unwind(LLVMValueRef fn, ad_map *seen) {
  if (ad_map_get(seen, fn))
    return 0;
  if (ad_map_put(seen, fn, (void *)1) != 0)
    return -1;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMGetInstructionOpcode(i) == LLVMResume)
        return 1;
      if (!LLVMIsACallInst(i) || !ad_ir_may_unwind(i))
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!LLVMIsAFunction(callee) || LLVMCountBasicBlocks(callee) == 0)
        return 1;
      int rc = ad_rev_body_may_unwind(callee, seen);
      if (rc != 0)
        return rc;
    }
  return 0;
}

/* aug's personality (the primal's, when it has invokes), another
 * function's of the module, or the Itanium C++ one. */
LLVMValueRef ad_rev_personality(ad_module_ctx *mc, LLVMValueRef aug) {
  if (LLVMHasPersonalityFn(aug))
    return LLVMGetPersonalityFn(aug);
  for (LLVMValueRef f = LLVMGetFirstFunction(mc->mod); f;
       f = LLVMGetNextFunction(f))
    if (LLVMHasPersonalityFn(f))
      return LLVMGetPersonalityFn(f);
  return ad_get_or_declare(
      mc->mod, "__gxx_personality_v0",
      LLVMFunctionType(LLVMInt32TypeInContext(mc->llctx), NULL, 0, 1));
}

const char *ad_rev_unwound_name(int heap_header) {
  return heap_header ? "tanjit.rev.unwound.heap" : "tanjit.rev.unwound";
}

/* tanjit.rev.unwound(header) (.heap: and the header itself): what the
 * guard frees when an exception leaves aug.  A function of its own, not
 * the guard's pad: a gradient over the guard (reverse over reverse, at -O0
 * where the inner aug may unwind) knows it by name as inactive cleanup
 * (nested.c) and so never meets its calls through the device nodes' free
 * thunks, which it could not differentiate. */
static LLVMValueRef unwound_fn(ad_module_ctx *mc, int heap_header) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, ad_rev_unwound_name(heap_header),
      LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0), &fn);
  if (!b)
    return fn;
  LLVMValueRef header = LLVMGetParam(fn, 0);
  free_device_shadows(mc, b, header);
  ad_rev_free_owned_shadows(mc, b, header);
  LLVMValueRef records = LLVMBuildLoad2(b, ptr, header, "records");
  ad_rev_call_libc(mc, b, "free", &records, 1);
  if (heap_header)
    ad_rev_call_libc(mc, b, "free", &header, 1);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

LLVMValueRef ad_rev_guarded_aug(ad_module_ctx *mc, LLVMValueRef aug,
                                int heap_header) {
  ad_map seen;
  ad_map_init(&seen);
  int unwinds = ad_rev_body_may_unwind(aug, &seen);
  ad_map_free(&seen);
  if (unwinds == 0)
    return aug;
  size_t n;
  const char *aug_name = LLVMGetValueName2(aug, &n);
  strbuf name;
  sb_init(&name);
  sb_printf(&name, "tanjit.rev.guard.%s%.*s", heap_header ? "heap." : "", (int)n,
                aug_name);
  if (name.failed) {
    sb_free(&name);
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    return NULL;
  }
  LLVMTypeRef ft = LLVMGlobalGetValueType(aug);
  LLVMValueRef g;
  LLVMBuilderRef b = ad_get_or_define_internal(mc->mod, name.data, ft, &g);
  sb_free(&name);
  if (!b)
    return g;
  LLVMSetPersonalityFn(g, ad_rev_personality(mc, aug));
  unsigned np = LLVMCountParams(g);
  LLVMValueRef *args = tj_malloc((np ? np : 1) * sizeof *args);
  if (!args) {
    LLVMDisposeBuilder(b);
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    return NULL;
  }
  for (unsigned k = 0; k < np; k++)
    args[k] = LLVMGetParam(g, k);
  LLVMValueRef header = LLVMGetParam(g, np - 1); /* the tape is last */
  LLVMContextRef c = mc->llctx;
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, g, "ok");
  LLVMBasicBlockRef lp = LLVMAppendBasicBlockInContext(c, g, "unwinding");
  LLVMValueRef res = LLVMBuildInvoke2(b, ft, aug, args, np, ok, lp, "");
  free(args);
  LLVMPositionBuilderAtEnd(b, ok);
  if (LLVMGetTypeKind(LLVMGetReturnType(ft)) == LLVMVoidTypeKind)
    LLVMBuildRetVoid(b);
  else
    LLVMBuildRet(b, res);
  LLVMPositionBuilderAtEnd(b, lp);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef lpt[2] = {ptr, LLVMInt32TypeInContext(c)};
  LLVMValueRef l =
      LLVMBuildLandingPad(b, LLVMStructTypeInContext(c, lpt, 2, 0), NULL, 0, "");
  LLVMSetCleanup(l, 1);
  LLVMValueRef unwound = unwound_fn(mc, heap_header);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(unwound), unwound, &header, 1, "");
  LLVMBuildResume(b, l);
  LLVMDisposeBuilder(b);
  return g;
}
