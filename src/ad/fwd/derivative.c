/*
 * Derivative functions: one per (function, argument activities, width,
 * return mode), cached per module transform.  A derivative is declared and
 * cached when first asked for and built later, from a worklist (the cache's
 * unbuilt entries): recursive functions call their own derivative, and a
 * chain of N calls costs a loop of N builds, not N nested ones (issue 10).
 *
 * The body is a clone of the primal, block by block in reverse post-order
 * (every definition is cloned before its uses, PHIs aside), with each
 * instruction's tangent emitted right after its clone (rules/inst.c; calls: fwd/call.c).  PHIs
 * are created empty and filled when every block exists, since LLVM-C cannot
 * retarget a PHI's incoming blocks.  Unreachable blocks are not cloned.
 * Invokes, landing pads and resume: fwd/exceptions.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "ad/analysis/activity.h"
#include "ad/analysis/types.h"
#include "ad/core/cfg.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/fwd/fwd.h"
#include "ad/ir/ir.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"
#include "common/strbuf.h"

/* The key leaves out the module's active globals on purpose: engine.c
 * fixes that set before the first derivative is emitted, so within one
 * transform a signature always means the same derivative. */
static int sig_equal(const ad_signature *a, const ad_signature *b) {
  return a->fn == b->fn && a->nparams == b->nparams && a->width == b->width &&
         a->ret == b->ret && a->error == b->error && a->direct == b->direct &&
         memcmp(a->activity, b->activity, a->nparams) == 0;
}

LLVMTypeRef ad_derivative_type(ad_module_ctx *mc, const ad_signature *sig) {
  LLVMTypeRef ft = LLVMGlobalGetValueType(sig->fn);
  unsigned n = LLVMCountParamTypes(ft);
  LLVMTypeRef *pt = tj_malloc((n ? n : 1) * sizeof *pt);
  LLVMTypeRef *out = tj_malloc((2 * n + 1) * sizeof *out);
  unsigned k = 0;
  if (!pt || !out) {
    free(pt);
    free(out);
    return NULL;
  }
  LLVMGetParamTypes(ft, pt);
  for (unsigned i = 0; i < n; i++) {
    out[k++] = pt[i];
    if (sig->activity[i] != AD_ARG_CONST)
      out[k++] = ad_lanes_type(pt[i], sig->width);
  }
  LLVMTypeRef r = LLVMGetReturnType(ft), rt;
  LLVMTypeRef sr = ad_lanes_type(r, sig->width);
  switch (sig->ret) {
  case AD_RET_VOID:
    rt = LLVMVoidTypeInContext(mc->llctx);
    break;
  case AD_RET_PRIMAL:
    rt = r;
    break;
  case AD_RET_TANGENT:
    rt = sr;
    break;
  default: {
    LLVMTypeRef two[2] = {r, sr};
    rt = LLVMStructTypeInContext(mc->llctx, two, 2, 0);
    break;
  }
  }
  LLVMTypeRef res = LLVMFunctionType(rt, out, k, 0);
  free(pt);
  free(out);
  return res;
}

void ad_copy_abi_attrs(const ad_signature *sig, LLVMValueRef target) {
  static const char *const kinds[] = {"byval", "align"};
  int is_call = LLVMIsACallInst(target) != NULL;
  unsigned k = 0;
  for (unsigned i = 0; i < sig->nparams; i++) {
    unsigned copies = sig->activity[i] != AD_ARG_CONST ? 2 : 1;
    LLVMAttributeRef byval = LLVMGetEnumAttributeAtIndex(
        sig->fn, i + 1, LLVMGetEnumAttributeKindForName("byval", 5));
    for (unsigned c = 0; c < copies && byval && (c == 0 || sig->width == 1);
         c++)
      for (size_t a = 0; a < sizeof kinds / sizeof *kinds; a++) {
        LLVMAttributeRef at = LLVMGetEnumAttributeAtIndex(
            sig->fn, i + 1,
            LLVMGetEnumAttributeKindForName(kinds[a], strlen(kinds[a])));
        if (!at)
          continue;
        if (is_call)
          LLVMAddCallSiteAttribute(target, k + c + 1, at);
        else
          LLVMAddAttributeAtIndex(target, k + c + 1, at);
      }
    k += copies;
  }
}

/* Pointer facts of the primal's parameters that hold in the derivative
 * too, so the optimizer treats derivative memory as it treats the primal's
 * (Enzyme does the same).  The primal copy gets them all; the shadow of a
 * pointer (width 1 only: wider shadows travel as arrays) is laid out like
 * its primal, so its extent, alignment and non-nullness hold, it is
 * captured no more than the primal, and a noalias primal has a noalias
 * shadow (shadow memory is disjoint from primal memory, as Enzyme assumes).
 * Memory effects (readonly, writeonly) are not copied: a rule or custom
 * derivative may read-modify-write a shadow the primal only writes, and
 * LLVM infers the true effects of the derivative body itself.  Names
 * unknown to this LLVM (nocapture became captures(none) in LLVM 21) have
 * kind 0 and are skipped. */
static void copy_param_attr(LLVMValueRef from, unsigned from_index,
                            LLVMValueRef to, unsigned to_index,
                            const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAttributeRef at =
      kind ? LLVMGetEnumAttributeAtIndex(from, from_index, kind) : NULL;
  if (at)
    LLVMAddAttributeAtIndex(to, to_index, at);
}

static void copy_pointer_param_attrs(const ad_signature *sig, LLVMValueRef d) {
  static const char *const facts[] = {
      "noalias", "nocapture",       "captures",
      "nonnull", "dereferenceable", "dereferenceable_or_null",
      "align"};
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  unsigned nd = LLVMCountParams(d), k = 0;
  for (unsigned i = 0; i < sig->nparams; i++) {
    unsigned copies = sig->activity[i] != AD_ARG_CONST ? 2 : 1;
    LLVMValueRef p = LLVMGetParam(sig->fn, i);
    int plain_ptr = LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMPointerTypeKind &&
                    !LLVMGetEnumAttributeAtIndex(sig->fn, i + 1, byval);
    for (unsigned c = 0; plain_ptr && c < copies && k + c < nd; c++) {
      /* a shadow gets them only where it is a pointer itself (width 1),
       * and not where it may be the primal itself; then the primal loses
       * noalias too (two noalias names for one object, both written
       * through, would be undefined) and nocapture/captures(none): the
       * derivative compares its address with the shadow's, which LLVM 21+
       * may fold away for an argument whose address is not captured (a
       * non-inlined derivative read tangents out of enzyme_const data) */
      if (LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(d, k + c))) !=
              LLVMPointerTypeKind ||
          (c == 1 && sig->activity[i] == AD_ARG_DUP_RUNTIME))
        continue;
      for (size_t a = 0; a < sizeof facts / sizeof *facts; a++)
        if (a > 2 || sig->activity[i] != AD_ARG_DUP_RUNTIME)
          copy_param_attr(sig->fn, i + 1, d, k + c + 1, facts[a]);
      if (c == 0) /* the caller passes the primal's own argument */
        copy_param_attr(sig->fn, i + 1, d, k + 1, "noundef");
    }
    k += copies;
  }
}

/* A primal kept out of line keeps its derivative out of line too (as
 * Enzyme's clone of the primal does): derivatives are internal and called
 * once, which the inliner otherwise takes as a reason to inline a chain of
 * them into its head, one copy per level (quadratic in the chain). */
static void copy_noinline(LLVMValueRef from, LLVMValueRef to) {
  unsigned kind = LLVMGetEnumAttributeKindForName("noinline", 8);
  LLVMAttributeRef at =
      LLVMGetEnumAttributeAtIndex(from, LLVMAttributeFunctionIndex, kind);
  if (at)
    LLVMAddAttributeAtIndex(to, LLVMAttributeFunctionIndex, at);
}

static int add_pending_phi(ad_fn_ctx *fc, LLVMValueRef primal,
                           LLVMValueRef clone, LLVMValueRef shadow) {
  if (fc->nphis == fc->capphis) {
    size_t ncap = fc->capphis ? fc->capphis * 2 : 16;
    void *g = tj_realloc(fc->phis, ncap * sizeof *fc->phis);
    if (!g)
      return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    fc->phis = g;
    fc->capphis = ncap;
  }
  fc->phis[fc->nphis].primal = primal;
  fc->phis[fc->nphis].clone = clone;
  fc->phis[fc->nphis].shadow = shadow;
  fc->nphis++;
  return 0;
}

static int emit_phi(ad_fn_ctx *fc, LLVMValueRef phi) {
  LLVMValueRef c = LLVMBuildPhi(fc->b, LLVMTypeOf(phi), "");
  ad_name_after(c, phi, "");
  ad_copy_fmf(c, phi);
  if (ad_map_put(&fc->vmap, phi, c) != 0)
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  LLVMValueRef s = NULL;
  if (ad_is_active(fc, phi)) {
    s = LLVMBuildPhi(fc->b, ad_shadow_type(fc, LLVMTypeOf(phi)), "");
    ad_name_after(s, phi, "'");
    ad_set_shadow(fc, phi, s);
  }
  return add_pending_phi(fc, phi, c, s);
}

static int fill_phis(ad_fn_ctx *fc) {
  for (size_t i = 0; i < fc->nphis; i++) {
    struct ad_pending_phi *p = &fc->phis[i];
    if (LLVMIsALandingPadInst(p->primal)) {
      ad_fill_landing_pad(fc, p->primal);
      continue;
    }
    unsigned n = LLVMCountIncoming(p->primal);
    for (unsigned k = 0; k < n; k++) {
      LLVMBasicBlockRef from = LLVMGetIncomingBlock(p->primal, k);
      /* an unwind edge comes from the invoke's pad (exceptions.c keys it
       * by the primal invoke), not from the end of the invoking block */
      LLVMValueRef term = LLVMGetBasicBlockTerminator(from);
      int unwind = term && LLVMIsAInvokeInst(term) &&
                   LLVMGetUnwindDest(term) ==
                       LLVMGetInstructionParent(p->primal);
      LLVMValueRef nb = ad_map_get(&fc->exit_block,
                                   unwind ? term : LLVMBasicBlockAsValue(from));
      if (!nb)
        continue; /* an unreachable predecessor was not cloned */
      LLVMBasicBlockRef nbb = LLVMValueAsBasicBlock(nb);
      LLVMValueRef v = LLVMGetIncomingValue(p->primal, k);
      LLVMValueRef pv = ad_primal(fc, v);
      LLVMAddIncoming(p->clone, &pv, &nbb, 1);
      if (p->shadow) {
        LLVMPositionBuilderBefore(fc->b, LLVMGetBasicBlockTerminator(nbb));
        LLVMValueRef sv = ad_shadow_value(fc, v);
        LLVMAddIncoming(p->shadow, &sv, &nbb, 1);
      }
    }
  }
  return 0;
}

/* A DUP pointer's shadow is another object; a DUPNONEED one's primal
 * may be anything the caller had at hand, and AD_ARG_DUP_RUNTIME's shadow
 * may be the pointer itself. */
static void scope_disjoint_shadows(ad_fn_ctx *fc) {
  ad_disjoint_params pairs[AD_MAX_DISJOINT_PAIRS];
  unsigned npairs = 0, k = 0;
  for (unsigned i = 0; i < fc->sig->nparams; i++) {
    unsigned at = k++;
    if (fc->sig->activity[i] == AD_ARG_CONST)
      continue;
    unsigned shadow_at = k++;
    if (fc->sig->activity[i] == AD_ARG_DUP && npairs < AD_MAX_DISJOINT_PAIRS &&
        LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(fc->primal_fn, i))) ==
            LLVMPointerTypeKind)
      pairs[npairs++] = (ad_disjoint_params){LLVMGetParam(fc->deriv_fn, at),
                                             LLVMGetParam(fc->deriv_fn, shadow_at), i};
  }
  ad_scope_disjoint_params(fc->deriv_fn, pairs, npairs);
}

static int build_body(ad_fn_ctx *fc) {
  ad_module_ctx *mc = fc->mc;
  LLVMValueRef fn = fc->primal_fn, d = fc->deriv_fn;
  size_t nblocks = 0;
  LLVMBasicBlockRef *rpo = ad_reverse_post_order(fn, &nblocks);
  if (!rpo)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  int rc = 0;
  for (size_t i = 0; i < nblocks && rc == 0; i++) {
    LLVMBasicBlockRef nb = LLVMAppendBasicBlockInContext(
        mc->llctx, d, LLVMGetBasicBlockName(rpo[i]));
    if (ad_map_put(&fc->vmap, LLVMBasicBlockAsValue(rpo[i]),
                   LLVMBasicBlockAsValue(nb)) != 0)
      rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  }
  unsigned k = 0;
  for (unsigned i = 0; i < fc->sig->nparams && rc == 0; i++) {
    LLVMValueRef p = LLVMGetParam(fn, i), np = LLVMGetParam(d, k++);
    ad_name_after(np, p, "");
    if (ad_map_put(&fc->vmap, p, np) != 0)
      rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    if (fc->sig->activity[i] != AD_ARG_CONST) {
      LLVMValueRef sp = LLVMGetParam(d, k++);
      ad_name_after(sp, p, "'");
      ad_set_shadow(fc, p, sp);
    }
  }
  if (rc == 0)
    rc = ad_activity_analyze(fc);
  for (size_t i = 0; i < nblocks && rc == 0; i++) {
    LLVMBasicBlockRef nb = LLVMValueAsBasicBlock(
        ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(rpo[i])));
    LLVMPositionBuilderAtEnd(fc->b, nb);
    for (LLVMValueRef inst = LLVMGetFirstInstruction(rpo[i]); inst && rc == 0;
         inst = LLVMGetNextInstruction(inst)) {
      /* rules leave the builder at the end of the block they end in */
      LLVMPositionBuilderAtEnd(fc->b, LLVMGetInsertBlock(fc->b));
      if (LLVMIsAPHINode(inst))
        rc = emit_phi(fc, inst);
      else if (LLVMIsALandingPadInst(inst))
        rc = ad_emit_landing_pad(fc, inst) ||
             add_pending_phi(fc, inst, ad_map_get(&fc->vmap, inst), NULL);
      else if (LLVMIsAInvokeInst(inst))
        rc = ad_emit_invoke(fc, inst);
      else if (LLVMIsAResumeInst(inst))
        rc = ad_clone(fc, inst) ? 0 : -1;
      else
        rc = LLVMIsACallInst(inst) ? ad_emit_call(fc, inst)
                                   : ad_emit_instruction(fc, inst);
      if (mc->diag.failed)
        rc = -1;
    }
    if (rc == 0 && ad_map_put(&fc->exit_block, LLVMBasicBlockAsValue(rpo[i]),
                              LLVMBasicBlockAsValue(LLVMGetInsertBlock(fc->b))))
      rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  }
  if (rc == 0)
    rc = fill_phis(fc);
  if (rc == 0)
    rc = ad_finish_unneeded_loads(fc);
  if (rc == 0 && !mc->diag.failed)
    scope_disjoint_shadows(fc);
  free(rpo);
  return mc->diag.failed ? -1 : rc;
}

static void fn_ctx_free(ad_fn_ctx *fc) {
  ad_map_free(&fc->vmap);
  ad_map_free(&fc->shadow);
  ad_map_free(&fc->active);
  ad_map_free(&fc->exit_block);
  free(fc->phis);
  free(fc->unneeded_loads);
  ad_types_free(fc->types);
  if (fc->b)
    LLVMDisposeBuilder(fc->b);
}

void ad_derivative_cache_init(ad_derivative_cache *c) {
  memset(c, 0, sizeof *c);
  ad_map_init(&c->index);
}

void ad_derivative_cache_free(ad_derivative_cache *c) {
  for (size_t i = 0; i < c->n; i++)
    free(c->entries[i].sig.activity);
  free(c->entries);
  ad_map_free(&c->index);
}

LLVMValueRef ad_get_derivative(ad_module_ctx *mc, const ad_signature *sig,
                               LLVMValueRef where) {
  for (size_t i = (size_t)(uintptr_t)ad_map_get(&mc->derivatives->index, sig->fn); i;
       i = mc->derivatives->entries[i - 1].prev_same_fn)
    if (sig_equal(&mc->derivatives->entries[i - 1].sig, sig))
      return mc->derivatives->entries[i - 1].derivative;
  LLVMValueRef fn = sig->fn;
  if (LLVMCountBasicBlocks(fn) == 0) {
    ad_fail(mc, where, "cannot differentiate %s: it has no body here",
            ad_value_name(fn));
    return NULL;
  }
  if (ad_reads_variadic_arguments(fn)) {
    ad_fail(mc, where, "cannot differentiate variadic function %s",
            ad_value_name(fn));
    return NULL;
  }
  LLVMTypeRef dt = ad_derivative_type(mc, sig);
  if (!dt) {
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, where, "out of memory");
    return NULL;
  }
  if (mc->derivatives->n == mc->derivatives->cap) {
    size_t ncap = mc->derivatives->cap ? mc->derivatives->cap * 2 : 8;
    void *g = tj_realloc(mc->derivatives->entries, ncap * sizeof *mc->derivatives->entries);
    if (!g) {
      ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, where, "out of memory");
      return NULL;
    }
    mc->derivatives->entries = g;
    mc->derivatives->cap = ncap;
  }
  ad_cache_entry *ce = &mc->derivatives->entries[mc->derivatives->n];
  ce->sig = *sig;
  ce->sig.activity = tj_malloc(sig->nparams ? sig->nparams : 1);
  ce->prev_same_fn = (size_t)(uintptr_t)ad_map_get(&mc->derivatives->index, fn);
  ce->built = 0;
  if (!ce->sig.activity ||
      ad_map_put(&mc->derivatives->index, fn, (void *)(uintptr_t)(mc->derivatives->n + 1))) {
    free(ce->sig.activity);
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, where, "out of memory");
    return NULL;
  }
  memcpy(ce->sig.activity, sig->activity, sig->nparams);
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, sig->error ? "fwderror" : "fwddiffe");
  if (sig->width > 1)
    sb_printf(&sb, "%u", sig->width);
  sb_append(&sb, ad_value_name(fn));
  if (sb.failed || !sb.data) {
    sb_free(&sb);
    ad_map_put(&mc->derivatives->index, fn, (void *)(uintptr_t)ce->prev_same_fn);
    free(ce->sig.activity);
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, where, "out of memory");
    return NULL;
  }
  LLVMValueRef d = ad_add_generated_function(mc->mod, sb.data, dt);
  sb_free(&sb);
  LLVMSetLinkage(d, LLVMInternalLinkage);
  ad_copy_fn_environment(fn, d);
  copy_noinline(fn, d);
  /* landing pads need the primal's personality (exceptions.c) */
  if (LLVMHasPersonalityFn(fn))
    LLVMSetPersonalityFn(d, LLVMGetPersonalityFn(fn));
  ad_copy_abi_attrs(sig, d);
  copy_pointer_param_attrs(sig, d);
  ce->derivative = d;
  mc->derivatives->n++;
  return d;
}

/* Builds the body of cache entry i (declared, not built). */
static int build_entry(ad_module_ctx *mc, size_t i) {
  mc->derivatives->entries[i].built = 1;
  /* The cache may move while the body begins other derivatives: the
   * context keeps its own copy of the signature. */
  ad_signature own = mc->derivatives->entries[i].sig;
  ad_fn_ctx fc;
  memset(&fc, 0, sizeof fc);
  fc.mc = mc;
  fc.sig = &own;
  fc.primal_fn = own.fn;
  fc.deriv_fn = mc->derivatives->entries[i].derivative;
  fc.width = own.width;
  fc.b = LLVMCreateBuilderInContext(mc->llctx);
  ad_map_init(&fc.vmap);
  ad_map_init(&fc.shadow);
  ad_map_init(&fc.active);
  ad_map_init(&fc.exit_block);
  int rc = build_body(&fc);
  fn_ctx_free(&fc);
  return rc;
}

int ad_build_derivatives(ad_module_ctx *mc, size_t from) {
  /* entries appended while building are picked up by the same loop; the
   * ones below cache_built need no second look */
  size_t i = from < mc->derivatives->built ? mc->derivatives->built : from;
  for (; i < mc->derivatives->n; i++)
    if (!mc->derivatives->entries[i].built && build_entry(mc, i) != 0)
      return -1;
  if (mc->diag.failed)
    return -1;
  if (from <= mc->derivatives->built)
    mc->derivatives->built = mc->derivatives->n;
  return 0;
}

void ad_forget_derivatives(ad_module_ctx *mc, size_t mark) {
  for (size_t i = mark; i < mc->derivatives->n; i++) {
    LLVMValueRef d = mc->derivatives->entries[i].derivative;
    LLVMReplaceAllUsesWith(d, LLVMGetPoison(LLVMTypeOf(d)));
  }
  /* newest first, so each function's index falls back to its older entry */
  for (size_t i = mc->derivatives->n; i-- > mark;) {
    ad_cache_entry *ce = &mc->derivatives->entries[i];
    ad_map_put(&mc->derivatives->index, ce->sig.fn,
               (void *)(uintptr_t)ce->prev_same_fn);
    LLVMDeleteFunction(ce->derivative);
    free(ce->sig.activity);
  }
  mc->derivatives->n = mark;
  if (mc->derivatives->built > mark)
    mc->derivatives->built = mark;
}
