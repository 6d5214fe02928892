/*
 * A function's unwinding clone: the body reverse mode differentiates for
 * a callee whose exception a handler above it catches and goes on from.
 *
 * When g throws inside a caller's try block, the caller's reverse must run
 * the adjoint of what g actually ran: its blocks up to the call that
 * threw, and the cleanups the exception passed through.  A pair built
 * from g itself has no reverse for that (an exception in g's middle ends
 * no block, and blocks ending in `resume` have no reverse), so such a call
 * site takes the pair of g's clone `<g>.tanjit.unwinding`, the same body
 * put in a shape where every way out by exception ends a block:
 *  - every call that may unwind becomes an invoke to a pad of its own
 *    (`landingpad cleanup`, then a branch to a block holding only
 *    `resume`): the block's record is pushed in the pad (exceptions.c), so
 *    the reverse knows the block ran up to that call;
 *  - every `resume` moves to a block of its own, reached by a branch, so
 *    no loop block has a successor that ends in resume (loops.c takes such
 *    an edge for one that never finishes).
 * In a clone, blocks ending in `resume` are exits as returns are
 * (adjoint.c): they push their record (with an id, as returning blocks do
 * when there are several) and the reverse starts from the one that ran.
 * The reverse of the caller reverses the invoke along its unwind edge as
 * along its normal one, calling the clone's diffe, whose dispatcher finds
 * on the tape which way g left.  The clone's own invokes of defined
 * functions take those functions' clones in turn (calls.c).
 *
 * The clone is never called: only its pair is.  It has internal linkage
 * and is removed with the module's dead code.
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

static const char clone_attr[] = "tanjit-unwinding";
static const char clone_suffix[] = ".tanjit.unwinding";

int ad_rev_is_unwinding_clone(LLVMValueRef fn) {
  return fn && LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                             clone_attr,
                                             sizeof clone_attr - 1) != NULL;
}

static void copy_attributes(LLVMValueRef from, LLVMValueRef to) {
  unsigned np = LLVMCountParams(from);
  for (long long idx = -1; idx <= (long long)np; idx++) {
    LLVMAttributeIndex at = (LLVMAttributeIndex)(
        idx < 0 ? (long long)LLVMAttributeFunctionIndex : idx);
    unsigned n = LLVMGetAttributeCountAtIndex(from, at);
    if (n == 0)
      continue;
    LLVMAttributeRef *attrs = tj_malloc(n * sizeof *attrs);
    if (!attrs)
      continue; /* attributes only refine; the clone stays right */
    LLVMGetAttributesAtIndex(from, at, attrs);
    for (unsigned k = 0; k < n; k++)
      LLVMAddAttributeAtIndex(to, at, attrs[k]);
    free(attrs);
  }
}

static int is_debug_call(LLVMValueRef i) {
  if (!LLVMIsACallInst(i))
    return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  size_t n;
  return LLVMIsAFunction(callee) &&
         strncmp(LLVMGetValueName2(callee, &n), "llvm.dbg.", 9) == 0;
}

/* The body of fn copied into the empty function g.  0, or -1 when memory
 * runs out. */
static int copy_body(LLVMContextRef c, LLVMValueRef fn, LLVMValueRef g) {
  ad_map m;
  ad_map_init(&m);
  int rc = 0;
  unsigned np = LLVMCountParams(fn);
  for (unsigned k = 0; k < np && rc == 0; k++) {
    size_t len;
    const char *name = LLVMGetValueName2(LLVMGetParam(fn, k), &len);
    LLVMSetValueName2(LLVMGetParam(g, k), name, len);
    rc = ad_map_put(&m, LLVMGetParam(fn, k), LLVMGetParam(g, k));
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && rc == 0;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMBasicBlockRef nb =
        LLVMAppendBasicBlockInContext(c, g, LLVMGetBasicBlockName(bb));
    rc = ad_map_put(&m, LLVMBasicBlockAsValue(bb), LLVMBasicBlockAsValue(nb));
  }
  unsigned assign_kind = LLVMGetMDKindIDInContext(c, "DIAssignID", 10);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && rc == 0;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMPositionBuilderAtEnd(
        b, LLVMValueAsBasicBlock(ad_map_get(&m, LLVMBasicBlockAsValue(bb))));
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && rc == 0;
         i = LLVMGetNextInstruction(i)) {
      if (is_debug_call(i))
        continue;
      size_t len;
      const char *name = LLVMGetValueName2(i, &len);
      LLVMValueRef ci;
      if (LLVMIsAPHINode(i)) {
        ci = LLVMBuildPhi(b, LLVMTypeOf(i), "");
        ad_copy_fmf(ci, i);
      } else {
        ci = LLVMInstructionClone(i);
        LLVMInsertIntoBuilder(b, ci);
        /* a DIAssignID ties the instruction to fn's #dbg_assign records
         * (which the clone does not copy) */
        if (LLVMGetMetadata(ci, assign_kind))
          LLVMSetMetadata(ci, assign_kind, NULL);
      }
      if (len && LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind)
        LLVMSetValueName2(ci, name, len);
      rc = ad_map_put(&m, i, ci);
    }
  }
  LLVMDisposeBuilder(b);
  /* operands (values and blocks) and PHIs' edges, now that all exist */
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && rc == 0;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef ci = ad_map_get(&m, i);
      if (!ci)
        continue;
      if (LLVMIsAPHINode(i)) {
        unsigned n = LLVMCountIncoming(i);
        for (unsigned k = 0; k < n; k++) {
          LLVMValueRef v = LLVMGetIncomingValue(i, k);
          LLVMValueRef mv = ad_map_get(&m, v);
          LLVMBasicBlockRef from = LLVMValueAsBasicBlock(
              ad_map_get(&m, LLVMBasicBlockAsValue(LLVMGetIncomingBlock(i, k))));
          if (mv)
            v = mv;
          LLVMAddIncoming(ci, &v, &from, 1);
        }
        continue;
      }
      int n = LLVMGetNumOperands(ci);
      for (int k = 0; k < n; k++) {
        LLVMValueRef op = LLVMGetOperand(ci, (unsigned)k);
        LLVMValueRef mv = op ? ad_map_get(&m, op) : NULL;
        if (mv)
          LLVMSetOperand(ci, (unsigned)k, mv);
      }
    }
  ad_map_free(&m);
  return rc;
}

/* The landingpad type of fn's personality: an existing pad's, else
 * Itanium's { ptr, i32 }. */
static LLVMTypeRef pad_type(LLVMContextRef c, LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef lp = ad_ir_landing_pad_of(bb);
    if (lp)
      return LLVMTypeOf(lp);
  }
  LLVMTypeRef m[2] = {LLVMPointerTypeInContext(c, 0), LLVMInt32TypeInContext(c)};
  return LLVMStructTypeInContext(c, m, 2, 0);
}

/* A block of g holding only `resume v`. */
static LLVMBasicBlockRef resume_block(LLVMContextRef c, LLVMValueRef g,
                                      LLVMBuilderRef b, LLVMValueRef v) {
  LLVMBasicBlockRef rb = LLVMAppendBasicBlockInContext(c, g, "unwinding.exit");
  LLVMPositionBuilderAtEnd(b, rb);
  LLVMBuildResume(b, v);
  return rb;
}

/* Puts g in the clone's shape (the file's head comment).  0 or -1. */
static int reshape(LLVMContextRef c, LLVMValueRef g) {
  size_t n = 0, cap = 16;
  LLVMValueRef *list = tj_malloc(cap * sizeof *list);
  if (!list)
    return -1;
  /* the resumes first (the pads made below end in a resume of their own) */
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (!term || LLVMGetInstructionOpcode(term) != LLVMResume)
      continue;
    if (n == cap) {
      LLVMValueRef *grown = tj_realloc(list, (cap *= 2) * sizeof *list);
      if (!grown) {
        free(list);
        return -1;
      }
      list = grown;
    }
    list[n++] = term;
  }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  for (size_t k = 0; k < n; k++) {
    LLVMValueRef term = list[k];
    LLVMBasicBlockRef exit = resume_block(c, g, b, LLVMGetOperand(term, 0));
    LLVMPositionBuilderBefore(b, term);
    LLVMBuildBr(b, exit);
    LLVMInstructionEraseFromParent(term);
  }
  n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) || !ad_ir_may_unwind(i))
        continue;
      if (n == cap) {
        LLVMValueRef *grown = tj_realloc(list, (cap *= 2) * sizeof *list);
        if (!grown) {
          LLVMDisposeBuilder(b);
          free(list);
          return -1;
        }
        list = grown;
      }
      list[n++] = i;
    }
  LLVMTypeRef lpt = pad_type(c, g);
  int rc = 0;
  for (size_t k = 0; k < n && rc == 0; k++) {
    LLVMBasicBlockRef pad = LLVMAppendBasicBlockInContext(c, g, "unwinding.pad");
    LLVMPositionBuilderAtEnd(b, pad);
    LLVMValueRef lp = LLVMBuildLandingPad(b, lpt, NULL, 0, "");
    LLVMSetCleanup(lp, 1);
    LLVMBasicBlockRef exit = resume_block(c, g, b, lp);
    LLVMPositionBuilderAtEnd(b, pad);
    LLVMBuildBr(b, exit);
    if (!ad_ir_call_to_invoke(list[k], pad, NULL, NULL))
      rc = -1;
  }
  LLVMDisposeBuilder(b);
  free(list);
  return rc;
}

LLVMValueRef ad_rev_unwinding_clone(ad_module_ctx *mc, LLVMValueRef fn,
                                    LLVMValueRef where) {
  if (ad_rev_is_unwinding_clone(fn) || LLVMCountBasicBlocks(fn) == 0)
    return fn;
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  if (LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, nounwind))
    return fn;
  ad_map seen;
  ad_map_init(&seen);
  int unwinds = ad_rev_body_may_unwind(fn, &seen);
  ad_map_free(&seen);
  if (unwinds < 0) {
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, where, "out of memory");
    return NULL;
  }
  if (unwinds == 0)
    return fn; /* its pair serves: an exception never leaves it */
  size_t len;
  const char *base = LLVMGetValueName2(fn, &len);
  strbuf name;
  sb_init(&name);
  sb_printf(&name, "%.*s%s", (int)len, base, clone_suffix);
  if (name.failed) {
    sb_free(&name);
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, where, "out of memory");
    return NULL;
  }
  LLVMValueRef g = LLVMGetNamedFunction(mc->mod, name.data);
  if (g && ad_rev_is_unwinding_clone(g)) {
    sb_free(&name);
    return g;
  }
  LLVMContextRef c = mc->llctx;
  g = ad_add_generated_function(mc->mod, name.data, LLVMGlobalGetValueType(fn));
  sb_free(&name);
  copy_attributes(fn, g);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetVisibility(g, LLVMDefaultVisibility);
  LLVMSetFunctionCallConv(g, LLVMGetFunctionCallConv(fn));
  LLVMAddAttributeAtIndex(
      g, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(c, clone_attr, sizeof clone_attr - 1, "", 0));
  LLVMSetPersonalityFn(g, ad_rev_personality(mc, fn));
  if (copy_body(c, fn, g) != 0 || reshape(c, g) != 0) {
    LLVMDeleteFunction(g);
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, where, "out of memory");
    return NULL;
  }
  return g;
}
