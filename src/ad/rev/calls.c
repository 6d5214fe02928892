/*
 * Calls, in both directions.  The aug decides a plan per call and the
 * reverse follows it.  Which rule a call gets is data:
 *  - inactive rules (printing, lifetime markers): the primal call only;
 *  - rule kinds: a math row (rules/math.c) is read backwards, each active
 *    argument's adjoint += partial * the result's adjoint, from the same
 *    row forward mode evaluates (fmin/fmax: the adjoint goes to the
 *    argument chosen); a complex row (rules/complex.c) gives its
 *    vector-Jacobian product (complex.c here);
 *  - named rows (rev_call_tables below, one file per concept: memory.c,
 *    mathout.c, vector.c): an aug step and a reverse step per rule name;
 *  - a defined callee: its own pair, for the activities its arguments
 *    have here: aug calls augmented_g, reverse calls diffe_g with the
 *    same arguments and accumulates the adjoints it returns;
 *  - a call through a pointer: the pair of every function of the module
 *    that may be its target, chosen at run time by comparing the pointer
 *    (in aug and again in reverse), as forward mode's fwd/indirect.c does.
 * Anything else with active operands is an error naming the call.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "ad/analysis/activity.h"
#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"
#include "ad/rules/blas.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"
#include "common/strbuf.h"

/* The named reverse rules, asked in this order; the first row whose name
 * matches the call's rule name wins. */
static const ad_rev_call_rows *const rev_call_tables[] = {
    &ad_rev_memory_rows,
    &ad_rev_mathout_rows,
    &ad_rev_vector_rows,
    &ad_rev_tree_rows,
};

const ad_rev_call_row *ad_rev_row_of(const char *name) {
  for (size_t t = 0; t < sizeof rev_call_tables / sizeof *rev_call_tables; t++)
    for (size_t i = 0; i < rev_call_tables[t]->n; i++)
      if (ad_name_matches(name, rev_call_tables[t]->rows[i].name))
        return &rev_call_tables[t]->rows[i];
  return NULL;
}

/* The reverse rule of a forward rule: by its kind (the rows of a family
 * read backwards), else by its name. */
static const ad_rev_call_row *rev_rule_of(const ad_call_rule *rule) {
  if (ad_complex_is_rule(rule))
    return &ad_rev_complex_row;
  blas_routine_id id;
  blas_iface iface;
  unsigned prec;
  if (ad_blas_rule_info(rule, &id, &iface, &prec))
    return &ad_rev_blas_row;
  return ad_rev_row_of(rule->name);
}

void ad_rev_free_plans(ad_rev_fn *r) {
  for (size_t i = 0; i < r->plans.cap; i++)
    if (r->plans.keys[i] && r->plans.vals[i]) {
      ad_rev_call_plan *p = r->plans.vals[i];
      free(p->act);
      free(p->targets);
      free(p->pairs);
      free(p->copied);
      free(p);
    }
  ad_map_free(&r->plans);
}

int ad_rev_fail_call(ad_rev_fn *r, LLVMValueRef call, const char *fmt,
                     const char *name) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, name);
  return ad_fail_code(r->mc, TANJIT_ERR_UNSUPPORTED, call,
                      "reverse mode: %s", msg);
}

ad_rev_call_plan *ad_rev_new_plan(ad_rev_fn *r, LLVMValueRef call,
                                  ad_rev_plan_kind kind) {
  ad_rev_call_plan *p = tj_calloc(1, sizeof *p);
  if (!p || ad_map_put(&r->plans, call, p) != 0) {
    free(p);
    ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    return NULL;
  }
  p->kind = kind;
  return p;
}

ad_rev_call_plan *ad_rev_plan_row(ad_rev_fn *r, LLVMValueRef call,
                                  const ad_rev_call_row *row) {
  ad_rev_call_plan *p = ad_rev_new_plan(r, call, PLAN_ROW);
  if (p) {
    p->row = row;
    p->rule = ad_rule_of_call(r->mc, call);
  }
  return p;
}

int ad_rev_any_active(ad_rev_fn *r, LLVMValueRef call) {
  if (ad_is_active(&r->fc, call))
    return 1;
  unsigned n = LLVMGetNumArgOperands(call);
  for (unsigned k = 0; k < n; k++)
    if (ad_is_active(&r->fc, LLVMGetOperand(call, k)))
      return 1;
  return 0;
}

LLVMTypeRef ad_rev_float_of_bits(ad_module_ctx *mc, unsigned bits) {
  switch (bits) {
  case 16:
    return LLVMHalfTypeInContext(mc->llctx);
  case 32:
    return LLVMFloatTypeInContext(mc->llctx);
  case 64:
    return LLVMDoubleTypeInContext(mc->llctx);
  case 80:
    return LLVMX86FP80TypeInContext(mc->llctx);
  case 128:
    return LLVMFP128TypeInContext(mc->llctx);
  default:
    return NULL;
  }
}

/* Whether t has a leaf that may hold a pointer: a pointer, or an integer
 * as wide as one (a narrower integer never does: std::optional<double>'s
 * {double, i8} flag is no shadow to pass). */
static int holds_pointer_leaf(ad_module_ctx *mc, LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMStructTypeKind:
    for (unsigned i = 0; i < LLVMCountStructElementTypes(t); i++)
      if (holds_pointer_leaf(mc, LLVMStructGetTypeAtIndex(t, i)))
        return 1;
    return 0;
  case LLVMArrayTypeKind:
  case LLVMVectorTypeKind:
    return holds_pointer_leaf(mc, LLVMGetElementType(t));
  case LLVMPointerTypeKind:
    return 1;
  case LLVMIntegerTypeKind:
    return LLVMGetIntTypeWidth(t) >= 8 * LLVMPointerSize(mc->td);
  default:
    return 0;
  }
}

/* ad_rev_leaves of a call's argument or result, where floats beside
 * narrow integers are floats alone: the value's adjoint is its floats',
 * and the integers carry nothing (the extracted flag is inactive). */
static void call_leaves(ad_rev_fn *r, LLVMValueRef v, int *f, int *o) {
  LLVMTypeRef t = ad_rev_adjoint_type(r, v);
  *f = 0, *o = 0;
  ad_rev_leaves(t, f, o);
  if (*f && *o && !holds_pointer_leaf(r->mc, t))
    *o = 0;
}

/* The callee's activities for this call site. */
static int plan_callee(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef fn,
                       ad_rev_call_plan *p) {
  ad_fn_ctx *fc = &r->fc;
  if (LLVMIsAInvokeInst(call)) {
    /* an exception the reverse follows: the pair of the callee's clone
     * that ends a block wherever it may throw (unwinding.c) */
    int reversed = ad_rev_unwind_reversed(r, call);
    if (reversed < 0)
      return -1;
    if (reversed && !(fn = ad_rev_unwinding_clone(r->mc, fn, call)))
      return -1;
  }
  unsigned np = LLVMCountParams(fn);
  if (ad_reads_variadic_arguments(fn))
    return ad_rev_fail_call(r, call,
                            "a call to variadic function %s with active arguments "
                            "is not supported (va_arg is not differentiated; "
                            "give it a custom gradient, or mark it inactive "
                            "with __enzyme_inactivefn or the enzyme_inactive "
                            "attribute if it only logs)",
                            ad_value_name(fn));
  if (LLVMGetNumArgOperands(call) != np)
    return ad_rev_fail_call(r, call, "a call to %s with a mismatched argument count",
                            ad_value_name(fn));
  p->np = np;
  p->act = tj_calloc(np ? np : 1, 1);
  if (!p->act)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  for (unsigned k = 0; k < np; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (ad_is_null_pointer_argument(call, fn, a)) {
      /* its shadow is null too, and never dereferenced (null_argument.c) */
      p->act[k] = AD_REV_DUP;
      continue;
    }
    if (!ad_is_active(fc, a))
      continue;
    int f, o;
    call_leaves(r, a, &f, &o); /* float bits: OUT */
    if (f && o)
      return ad_rev_fail_call(r, call,
                              "an argument of %s that mixes floats and pointers in "
                              "one value is not supported",
                              ad_value_name(fn));
    /* a byval argument the callee only reads is passed as the caller's
     * pointer and shadow (reading a copy and the original give the same
     * values and adjoints); one it writes gets copies (byval.c) */
    if (o && ad_rev_byval_written(fn, k)) {
      if (!p->copied && !(p->copied = tj_calloc(np ? np : 1, 1)))
        return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
      p->copied[k] = 1;
    }
    p->act[k] = f                                   ? AD_REV_OUT
                : ad_shadow_may_equal_primal(fc, a) ? AD_REV_DUP_RUNTIME
                                                    : AD_REV_DUP;
  }
  int f, o;
  call_leaves(r, call, &f, &o);
  if (ad_is_active(fc, call) && f && o)
    return ad_rev_fail_call(r, call,
                            "a result of %s that mixes floats and pointers is not "
                            "supported",
                            ad_value_name(fn));
  ad_rev_sig sig = {fn, np, p->act, 0, 0, 0, r->sig->parallel, 0};
  sig.ret_adjoint = (unsigned char)(ad_is_active(fc, call) && f);
  sig.ret_shadow = (unsigned char)(ad_is_active(fc, call) && o);
  p->ret_adjoint = sig.ret_adjoint;
  return ad_rev_get(r->mc, &sig, call, &p->pair);
}

enum { MAX_TARGETS = 64 };

/* Calls one pair function of each target (`fns`, nt of them; more than
 * one: an indirect call, the one whose primal is `target` at run time, a
 * pointer matching none traps) at b; returns the result (a PHI over the
 * targets), or NULL for void. */
static LLVMValueRef call_each_target(ad_rev_fn *r, LLVMBuilderRef b,
                                     LLVMValueRef in_fn, LLVMValueRef call,
                                     LLVMValueRef target,
                                     const LLVMValueRef *targets,
                                     const LLVMValueRef *fns, unsigned nt,
                                     LLVMValueRef *args, unsigned n) {
  ad_module_ctx *mc = r->mc;
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(call);
  if (nt == 1 && !targets) {
    LLVMValueRef res =
        LLVMBuildCall2(b, LLVMGlobalGetValueType(fns[0]), fns[0], args, n, "");
    if (loc)
      LLVMInstructionSetDebugLoc(res, loc);
    return res;
  }
  LLVMContextRef c = mc->llctx;
  LLVMBasicBlockRef merge = LLVMAppendBasicBlockInContext(c, in_fn, "indirect.join");
  LLVMBasicBlockRef unknown =
      LLVMAppendBasicBlockInContext(c, in_fn, "indirect.unknown");
  LLVMValueRef res[MAX_TARGETS];
  LLVMBasicBlockRef from[MAX_TARGETS];
  for (unsigned i = 0; i < nt; i++) {
    LLVMBasicBlockRef hit = LLVMAppendBasicBlockInContext(c, in_fn, "indirect.call");
    LLVMBasicBlockRef next =
        i + 1 < nt ? LLVMAppendBasicBlockInContext(c, in_fn, "indirect.next")
                   : unknown;
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, target, targets[i], ""), hit,
                    next);
    LLVMPositionBuilderAtEnd(b, hit);
    res[i] = LLVMBuildCall2(b, LLVMGlobalGetValueType(fns[i]), fns[i], args, n, "");
    if (loc)
      LLVMInstructionSetDebugLoc(res[i], loc);
    from[i] = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, merge);
    LLVMPositionBuilderAtEnd(b, next);
  }
  /* a function from outside the module, or one not address-taken here */
  ad_emit_unknown_target_report(mc, b, call, target, targets, nt,
                                "reverse");
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, merge);
  if (LLVMGetTypeKind(LLVMTypeOf(res[0])) == LLVMVoidTypeKind)
    return res[0];
  LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(res[0]), "");
  LLVMAddIncoming(phi, res, from, nt);
  return phi;
}

/* The aug of a defined callee, or of each possible target (PLAN_INDIRECT),
 * with the primal arguments and the shadows the plan's activities name. */
static int aug_calls(ad_rev_fn *r, LLVMValueRef call, ad_rev_call_plan *p) {
  ad_fn_ctx *fc = &r->fc;
  unsigned n = 0;
  LLVMValueRef *args = tj_malloc((4 * p->np + 1) * sizeof *args);
  if (!args)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  LLVMValueRef *prim = args + 2 * p->np + 1, *shad = prim + p->np;
  for (unsigned k = 0; k < p->np; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    prim[k] = ad_primal(fc, a);
    shad[k] = ad_rev_has_shadow_param(p->act[k]) ? ad_shadow_value(fc, a) : NULL;
  }
  if (ad_rev_byval_aug(r, call, p, prim, shad) != 0) {
    free(args);
    return -1;
  }
  for (unsigned k = 0; k < p->np; k++) {
    args[n++] = prim[k];
    if (ad_rev_has_shadow_param(p->act[k]))
      args[n++] = shad[k];
  }
  args[n++] = r->aug_tape;
  LLVMValueRef fns[MAX_TARGETS];
  unsigned nt = p->kind == PLAN_INDIRECT ? p->ntargets : 1;
  for (unsigned i = 0; i < nt; i++)
    fns[i] = p->kind == PLAN_INDIRECT ? p->pairs[i].aug : p->pair.aug;
  LLVMValueRef target = p->kind == PLAN_INDIRECT
                            ? ad_primal(fc, LLVMGetCalledValue(call))
                            : NULL;
  LLVMValueRef res =
      call_each_target(r, fc->b, fc->deriv_fn, call, target,
                       p->kind == PLAN_INDIRECT ? p->targets : NULL, fns, nt,
                       args, n);
  free(args);
  LLVMTypeRef rt = LLVMTypeOf(call);
  if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind)
    return 0;
  LLVMValueRef primal = res;
  LLVMTypeRef aug_rt = LLVMGetReturnType(LLVMGlobalGetValueType(fns[0]));
  if (LLVMGetTypeKind(aug_rt) == LLVMStructTypeKind && aug_rt != rt) {
    primal = LLVMBuildExtractValue(fc->b, res, 0, "");
    ad_set_shadow(fc, call, LLVMBuildExtractValue(fc->b, res, 1, "shadow"));
  }
  if (ad_map_put(&fc->vmap, call, primal) != 0)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  return 0;
}

static int aug_callee(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef fn) {
  ad_rev_call_plan *p = ad_rev_new_plan(r, call, PLAN_CALL);
  if (!p || plan_callee(r, call, fn, p) != 0)
    return -1;
  return aug_calls(r, call, p);
}

/*
 * A call through a pointer with active arguments: every function of this
 * module with the call's type whose address is taken may be its target,
 * and each gets its pair for the activities the arguments have here (the
 * same for all, as the arguments are).  aug and reverse compare the
 * pointer with each (the reverse reads it from the tape) and call that
 * target's aug or diffe; a pointer matching none traps.  Every candidate
 * must be differentiable: one that is not is a load error naming it (no
 * target is built at once here, so none can be set aside as forward mode
 * does).  A declared function whose address is taken (libm's sin in a
 * table of callbacks) is a candidate when a rule covers its calls: its
 * direct-call wrapper (ir.c) is differentiated in its place; so is a
 * defined one's whose calls a rule answers (a custom gradient, an
 * inactive mark), as a direct call of it would.  A candidate's build
 * failure says it was only a possible target of this call (cache.c).
 */
static LLVMValueRef declared_candidate(ad_module_ctx *mc, LLVMValueRef call,
                                       LLVMValueRef f, int *oom) {
  const ad_call_rule *rule;
  return ad_declared_target_with_rule(mc, call, f, &rule, oom);
}

static int aug_indirect(ad_rev_fn *r, LLVMValueRef call) {
  ad_module_ctx *mc = r->mc;
  LLVMValueRef cands[MAX_TARGETS], callee[MAX_TARGETS];
  unsigned nc = 0;
  for (int declared = 0; declared < 2; declared++)
    for (LLVMValueRef f = LLVMGetFirstFunction(mc->mod); f;
         f = LLVMGetNextFunction(f)) {
      LLVMValueRef via = f;
      if (declared) {
        int oom = 0;
        via = declared_candidate(mc, call, f, &oom);
        if (oom)
          return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
        if (!via)
          continue;
      } else if (!ad_may_be_indirect_target(call, f) ||
                 ad_rev_is_generated(mc, f)) {
        continue;
      } else if (ad_rev_custom_gradient_of(f) ||
                 ad_custom_answers_function(mc->engine, f)) {
        /* its rule (a custom gradient, an inactive mark) answers calls to
         * it, not a pair of its own: a direct call of it (the wrapper's)
         * takes the rule */
        if (!(via = ad_direct_call_wrapper(mc->mod, f)))
          return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
      }
      if (nc == MAX_TARGETS)
        return ad_rev_fail_call(r, call,
                                "%s with active arguments and more than 64 "
                                "possible targets in this module is not "
                                "supported",
                                "an indirect call (through a function pointer)");
      callee[nc] = via;
      cands[nc++] = f;
    }
  if (!nc)
    return ad_rev_fail_call(r, call,
                            "%s with active arguments, and no function of this "
                            "module can be its target (none of its type whose "
                            "address is taken has a body or a rule), is not "
                            "supported",
                            "an indirect call (through a function pointer)");
  ad_rev_call_plan *p = ad_rev_new_plan(r, call, PLAN_INDIRECT);
  if (!p)
    return -1;
  p->targets = tj_malloc(nc * sizeof *p->targets);
  p->pairs = tj_malloc(nc * sizeof *p->pairs);
  if (!p->targets || !p->pairs)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  for (unsigned i = 0; i < nc; i++) {
    free(p->act);
    p->act = NULL;
    if (plan_callee(r, call, callee[i], p) != 0)
      return -1;
    ad_rev_note_indirect_target(mc, &p->pair, call, cands[i]);
    p->targets[i] = cands[i];
    p->pairs[i] = p->pair;
  }
  p->ntargets = nc;
  return aug_calls(r, call, p);
}

int ad_rev_aug_call(ad_rev_fn *r, LLVMValueRef call) {
  ad_fn_ctx *fc = &r->fc;
  ad_module_ctx *mc = r->mc;
  LLVMValueRef fn = ad_called_function(call);
  if (fn) {
    size_t n;
    const char *name = LLVMGetValueName2(fn, &n);
    if (strncmp(name, "llvm.dbg.", 9) == 0)
      return 0;
  }
  if (fn) {
    int iter = ad_rev_iter_aug(r, call); /* 1: not __enzyme_iter */
    if (iter != 1)
      return iter;
  }
  if (fn && ad_rev_is_generated(mc, fn)) {
    /* reverse over reverse: nested.c (1: differentiated as ordinary code) */
    int nested = ad_rev_nested_aug(r, call, fn);
    if (nested != 1)
      return nested;
  }
  if (fn && ad_rev_custom_applies(mc, call))
    return ad_rev_custom_aug(r, call);
  const ad_rev_call_row *omp = fn ? ad_rev_openmp_row(fn) : NULL;
  if (omp) /* parallel regions, critical sections, barriers */
    return omp->aug(r, omp, call, NULL);
  const ad_call_rule *rule = ad_rule_of_call(mc, call);
  /* a custom forward derivative says nothing about the reverse: a callee
   * with a body is differentiated, as Enzyme does */
  int custom_fwd = rule && !rule->inactive && fn &&
                   ad_custom_lookup(mc->engine, call) == rule;
  if (custom_fwd && LLVMCountBasicBlocks(fn) > 0)
    rule = NULL;
  if (rule) {
    LLVMValueRef c = ad_clone(fc, call);
    if (!c)
      return -1;
    if (rule->inactive)
      return 0;
    int runtime = ad_rev_cuda_aug(r, call, c, rule); /* 1: not CUDA's */
    if (runtime == 1)
      runtime = ad_rev_julia_aug(r, call, c, rule); /* 1: nor Julia's */
    if (runtime != 1)
      return runtime;
    const char *name = rule->name;
    if (ad_math_is_row(rule)) {
      if (ad_rev_has_adjoint(r, call)) {
        ad_rev_call_plan *p = ad_rev_new_plan(r, call, PLAN_MATH);
        if (!p)
          return -1;
        p->rule = rule;
      }
      return 0;
    }
    if (rule->frees_argument && !rule->returns_allocation) {
      int deferred = ad_rev_custom_defer_free(r, call, c); /* 1: not */
      if (deferred != 1)
        return deferred;
    }
    const ad_rev_call_row *row = rev_rule_of(rule);
    if (row)
      return row->aug(r, row, call, c);
    if (!ad_rev_any_active(r, call))
      return 0;
    if (custom_fwd)
      return ad_rev_fail_call(r, call,
                              "no reverse-mode rule for a call to %s: it has a "
                              "custom forward derivative only, and no body to "
                              "differentiate (register a custom gradient)",
                              ad_value_name(fn));
    return ad_rev_fail_call(r, call, "no reverse-mode rule for a call to %s", name);
  }
  int touches = fn && LLVMCountBasicBlocks(fn) > 0 &&
                ad_function_touches_active_globals(mc, fn);
  if (!touches && !ad_rev_any_active(r, call) &&
      !ad_is_active(fc, LLVMGetCalledValue(call)))
    return ad_clone(fc, call) ? 0 : -1;
  if (fn && LLVMCountBasicBlocks(fn) > 0)
    return aug_callee(r, call, fn);
  if (fn && ad_is_request_function(fn))
    return ad_rev_fail_call(r, call,
                            "a derivative request (%s) with active arguments inside "
                            "a function being differentiated in reverse mode is "
                            "not supported",
                            ad_value_name(fn));
  if (fn) {
    char buf[256];
    const char *rn = ad_call_rule_name(mc->engine, call, buf, sizeof buf);
    return ad_rev_fail_call(r, call,
                            "no reverse-mode derivative for a call to %s (no rule "
                            "and no body)",
                            rn ? rn : ad_value_name(fn));
  }
  if (LLVMIsAInlineAsm(LLVMGetCalledValue(call)))
    return ad_rev_fail_call(r, call, "%s with active operands is not supported",
                            "inline assembly");
  return aug_indirect(r, call);
}

static int reverse_math(ad_rev_fn *r, LLVMValueRef call,
                        const ad_rev_call_plan *p) {
  unsigned n = LLVMGetNumArgOperands(call);
  if (n > 3)
    return ad_rev_fail_call(r, call, "math call %s with more than 3 arguments",
                            p->rule->name);
  LLVMValueRef args[3], partial[3] = {NULL, NULL, NULL};
  /* an out-parameter (remquo's quotient) is written, never read by a
   * partial: its address is not kept for the reverse */
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    args[k] = LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind
                  ? NULL
                  : ad_rev_primal(r, a);
  }
  LLVMValueRef result = ad_rev_primal(r, call);
  LLVMValueRef d = ad_rev_take(r, call);
  int chooses = 0;
  ad_fn_ctx here = r->fc; /* the row is evaluated into the reverse */
  here.b = r->rb;
  if (ad_math_partials(&here, p->rule, call, args, result, partial,
                       &chooses) != 0)
    return -1;
  if (chooses) {
    /* the adjoint goes to the argument chosen; a NaN y chooses x */
    LLVMTypeRef t = LLVMTypeOf(call);
    LLVMValueRef z = LLVMConstNull(t);
    LLVMValueRef take_first = LLVMBuildOr(
        r->rb, LLVMBuildFCmp(r->rb, LLVMRealONE, partial[0], z, ""),
        LLVMBuildFCmp(r->rb, LLVMRealUNO, args[1], args[1], ""), "");
    ad_rev_accumulate(r, LLVMGetOperand(call, 0),
                      LLVMBuildSelect(r->rb, take_first, d, z, ""), call);
    ad_rev_accumulate(r, LLVMGetOperand(call, 1),
                      LLVMBuildSelect(r->rb, take_first, z, d, ""), call);
    return 0;
  }
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (!partial[k] || !ad_rev_has_adjoint(r, a))
      continue;
    LLVMValueRef g = LLVMBuildFMul(r->rb, d, partial[k], "");
    ad_copy_fmf(g, call);
    ad_rev_accumulate(r, a, g, call);
  }
  return 0;
}

static int reverse_callee(ad_rev_fn *r, LLVMValueRef call,
                          const ad_rev_call_plan *p) {
  unsigned n = 0;
  LLVMValueRef *args = tj_malloc((3 * p->np + 2) * sizeof *args);
  if (!args)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  LLVMValueRef *shad = args + 2 * p->np + 2;
  for (unsigned k = 0; k < p->np; k++)
    shad[k] = ad_rev_has_shadow_param(p->act[k]) ? ad_rev_shadow(r, LLVMGetOperand(call, k))
                                      : NULL;
  /* the shadow copies of byval arguments the callee writes to (byval.c) */
  LLVMValueRef copies = ad_rev_byval_rev_shadows(r, call, p, shad);
  if (r->mc->diag.failed) {
    free(args);
    return -1;
  }
  for (unsigned k = 0; k < p->np; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    args[n++] = ad_rev_primal(r, a);
    if (ad_rev_has_shadow_param(p->act[k]))
      args[n++] = shad[k];
  }
  if (p->ret_adjoint)
    args[n++] = ad_rev_take(r, call);
  args[n++] = r->rev_tape;
  LLVMValueRef fns[MAX_TARGETS];
  int indirect = p->kind == PLAN_INDIRECT;
  unsigned nt = indirect ? p->ntargets : 1;
  for (unsigned i = 0; i < nt; i++)
    fns[i] = indirect ? p->pairs[i].rev : p->pair.rev;
  LLVMValueRef target =
      indirect ? ad_rev_primal(r, LLVMGetCalledValue(call)) : NULL;
  LLVMValueRef res = call_each_target(r, r->rb, r->rev, call, target,
                                      indirect ? p->targets : NULL, fns, nt,
                                      args, n);
  free(args);
  unsigned j = 0;
  for (unsigned k = 0; k < p->np; k++) {
    if (p->act[k] != AD_REV_OUT)
      continue;
    ad_rev_accumulate(r, LLVMGetOperand(call, k),
                      LLVMBuildExtractValue(r->rb, res, j++, ""), NULL);
  }
  return ad_rev_byval_reverse(r, call, p, copies);
}

int ad_rev_reverse_call(ad_rev_fn *r, LLVMValueRef call) {
  if (ad_map_get(&r->custom, call))
    return ad_rev_custom_reverse(r, call);
  ad_rev_call_plan *p = ad_map_get(&r->plans, call);
  if (!p)
    return ad_rev_cuda_reverse(r, call) != 0 ? -1 /* cuda.c, julia.c */
                                              : ad_rev_julia_reverse(r, call);
  switch (p->kind) {
  case PLAN_NONE:
    return 0;
  case PLAN_MATH:
    return reverse_math(r, call, p);
  case PLAN_ROW:
    return p->row->rev ? p->row->rev(r, p->row, call, p) : 0;
  case PLAN_CALL:
    return reverse_callee(r, call, p);
  case PLAN_INDIRECT:
    return reverse_callee(r, call, p);
  }
  return 0;
}
