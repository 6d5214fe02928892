/*
 * Calls: a rule from the registry when there is one; else a defined callee
 * is differentiated (its derivative called with the activities its
 * arguments have here), and a callee with neither a rule nor a body is an
 * error naming it (one that never returns has a rule: the registry's
 * noreturn family keeps its primal call alone).  Indirect calls:
 * indirect.c.
 */
#include <stdlib.h>
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "common/alloc.h"
#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/fwd/fwd.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"

static int only_integers(LLVMValueRef call) {
  if (ad_type_can_carry(LLVMTypeOf(call)))
    return 0;
  unsigned n = LLVMGetNumArgOperands(call);
  for (unsigned k = 0; k < n; k++)
    if (ad_type_can_carry(LLVMTypeOf(LLVMGetOperand(call, k))))
      return 0;
  return 1;
}

/* Integers, vectors of integers, and aggregates made only of them. */
static int integer_based(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMIntegerTypeKind:
    return 1;
  case LLVMVectorTypeKind:
  case LLVMArrayTypeKind:
    return integer_based(LLVMGetElementType(t));
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(t);
    for (unsigned i = 0; i < n; i++)
      if (!integer_based(LLVMStructGetTypeAtIndex(t, i)))
        return 0;
    return n > 0;
  }
  default:
    return 0;
  }
}

/*
 * Whether a call passes the shadow of `v` (an argument, or the call's own
 * result) across the call.  Floats and pointers do when active.  So do
 * integers: activity analysis keeps an integer active only when type
 * analysis cannot rule out that it holds a pointer (a CUdeviceptr, a
 * uintptr_t) or float bits, and its shadow is read; a plain integer (a
 * count, an index) is never active.  Enzyme passes such an integer's shadow
 * as an integer of the same type, and so does the derivative signature.
 */
static int passes_shadow(ad_fn_ctx *fc, LLVMValueRef v) {
  if (!ad_is_active(fc, v))
    return 0;
  LLVMTypeRef t = LLVMTypeOf(v);
  return ad_type_can_carry(t) || integer_based(t);
}

/* The first argument of `call` that is an integer whose shadow the callee
 * would need (see passes_shadow), or NULL. */
static LLVMValueRef active_integer_argument(ad_fn_ctx *fc, LLVMValueRef call) {
  unsigned n = LLVMGetNumArgOperands(call);
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (integer_based(LLVMTypeOf(a)) && passes_shadow(fc, a))
      return a;
  }
  return NULL;
}

int ad_derivative_call(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef fn,
                       int build_now, LLVMValueRef *primal_out,
                       LLVMValueRef *shadow_out) {
  ad_module_ctx *mc = fc->mc;
  unsigned np = LLVMCountParams(fn);
  unsigned na = LLVMGetNumArgOperands(call);
  *primal_out = *shadow_out = NULL;
  if (ad_reads_variadic_arguments(fn))
    return ad_fail(mc, call,
                   "no forward-mode derivative for call to variadic function "
                   "%s with active arguments (va_arg is not differentiated; "
                   "give it a custom rule, or mark it inactive with "
                   "__enzyme_inactivefn or the enzyme_inactive attribute if it "
                   "only logs)",
                   ad_value_name(fn));
  if (na != np)
    return ad_fail(mc, call, "call to %s passes %u argument%s for %u parameter%s",
                   ad_value_name(fn), na, na == 1 ? "" : "s", np, np == 1 ? "" : "s");
  unsigned char *act = tj_malloc(np ? np : 1);
  LLVMValueRef *args = tj_malloc((2 * np + 1) * sizeof *args);
  if (!act || !args) {
    free(act);
    free(args);
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  /* A pointer whose shadow may be itself here keeps its run-time checks in
   * the callee: a derivative of its own for that case. */
  for (unsigned i = 0; i < np; i++) {
    LLVMValueRef a = LLVMGetOperand(call, i);
    if (ad_is_null_pointer_argument(call, fn, a)) {
      /* its shadow is null too, and never dereferenced (null_argument.c) */
      act[i] = AD_ARG_DUP;
    } else if (!passes_shadow(fc, a)) {
      act[i] = AD_ARG_CONST;
    } else if (ad_points_only_into_unneeded(fc, a)) {
      /* the callee's derivative leaves out its primal writes there */
      act[i] = AD_ARG_DUPNONEED;
      fc->unneeded_written |= ad_unneeded_parameters(fc, a);
    } else if (ad_type_holds_pointer(LLVMTypeOf(a)) &&
               ad_shadow_may_equal_primal(fc, a)) {
      act[i] = AD_ARG_DUP_RUNTIME;
    } else {
      act[i] = AD_ARG_DUP;
    }
  }
  LLVMTypeRef rt = LLVMTypeOf(call);
  ad_signature sig = {fn, np, act, fc->width, AD_RET_PRIMAL,
                      (unsigned char)ad_estimates_error(fc), 0};
  if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind)
    sig.ret = AD_RET_VOID;
  else if (passes_shadow(fc, call))
    sig.ret = AD_RET_BOTH;
  /* The callee's body is built with its own builder: ours stays put. */
  size_t mark = mc->derivatives->n;
  LLVMValueRef d = ad_get_derivative(mc, &sig, call);
  if (d && build_now && ad_build_derivatives(mc, mark) != 0)
    d = NULL;
  if (!d) {
    free(act);
    free(args);
    return -1;
  }
  unsigned k = 0;
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  for (unsigned i = 0; i < np; i++) {
    LLVMValueRef a = LLVMGetOperand(call, i);
    args[k++] = ad_primal(fc, a);
    if (act[i] == AD_ARG_CONST)
      continue;
    LLVMValueRef sh = ad_shadow_value(fc, a);
    LLVMAttributeRef bv =
        act[i] == AD_ARG_DUP_RUNTIME ? LLVMGetEnumAttributeAtIndex(fn, i + 1, byval)
                                     : NULL;
    if (bv) {
      /* A by-value copy of inactive memory: the callee gets a copy of the
       * shadow, at another address than the primal's copy, so it cannot
       * tell; where the shadow is the primal, it copies inactive memory's
       * shadow instead (floats 0, pointers themselves). */
      LLVMValueRef lanes[AD_MAX_WIDTH];
      for (unsigned lane = 0; lane < fc->width; lane++)
        lanes[lane] = ad_guard_byval_shadow(fc, a, ad_lane(fc, sh, lane),
                                            LLVMGetTypeAttributeValue(bv));
      sh = ad_pack(fc, LLVMTypeOf(a), lanes);
    }
    args[k++] = sh;
  }
  size_t n;
  const char *name = LLVMGetValueName2(call, &n);
  LLVMValueRef c = LLVMBuildCall2(fc->b, LLVMGlobalGetValueType(d), d, args, k,
                                  sig.ret == AD_RET_VOID ? "" : name);
  if (LLVMInstructionGetDebugLoc(call))
    LLVMInstructionSetDebugLoc(c, LLVMInstructionGetDebugLoc(call));
  ad_copy_abi_attrs(&sig, c);
  if (sig.ret == AD_RET_BOTH) {
    *primal_out = LLVMBuildExtractValue(fc->b, c, 0, "");
    *shadow_out = LLVMBuildExtractValue(fc->b, c, 1, "");
  } else if (sig.ret == AD_RET_PRIMAL) {
    *primal_out = c;
  }
  free(act);
  free(args);
  return 0;
}

static int emit_derivative_call(ad_fn_ctx *fc, LLVMValueRef call,
                                LLVMValueRef fn) {
  LLVMValueRef p, s;
  if (ad_derivative_call(fc, call, fn, 0, &p, &s) != 0)
    return -1;
  if (p)
    ad_map_put(&fc->vmap, call, p);
  if (s)
    ad_set_shadow(fc, call, s);
  return 0;
}

int ad_emit_call(ad_fn_ctx *fc, LLVMValueRef call) {
  LLVMValueRef fn = ad_called_function(call);
  if (fn) {
    size_t n;
    const char *name = LLVMGetValueName2(fn, &n);
    /* Debug intrinsics are dropped: their operands are primal-local
     * metadata that the clone cannot remap through LLVM-C. */
    if (strncmp(name, "llvm.dbg.", 9) == 0)
      return 0;
  }
  int omp = ad_fwd_openmp_call(fc, call); /* 1: not a fork or a reduction */
  if (omp != 1)
    return omp;
  const ad_call_rule *rule = ad_rule_of_call(fc->mc, call);
  LLVMValueRef c;
  if (rule) {
    /* error estimation has bounds for the math rows alone; other rules
     * that compute a float would write a tangent as its bound */
    if (ad_estimates_error(fc) && !rule->inactive && !ad_math_is_row(rule) &&
        ad_type_is_float(LLVMTypeOf(call)) && ad_is_active(fc, call))
      return ad_fail(fc->mc, call,
                     "no forward-mode error estimate for call to %s (its "
                     "rule computes tangents; error estimation has bounds "
                     "for the math functions' rows)",
                     rule->name);
    int unneeded = ad_unneeded_call_effect(fc, rule, call);
    if (unneeded < 0 || !(c = ad_clone(fc, call)))
      return -1;
    if (!rule->inactive && rule->emit(fc, rule, call, c) != 0)
      return -1;
    if (unneeded) /* a copy or set into enzyme_dupnoneed memory */
      ad_drop_unneeded_clone(fc, call, c);
    return 0;
  }
  unsigned na = LLVMGetNumArgOperands(call);
  int any = ad_is_active(fc, call) || ad_is_active(fc, LLVMGetCalledValue(call));
  for (unsigned k = 0; k < na && !any; k++)
    any = ad_is_active(fc, LLVMGetOperand(call, k));
  /* Integers alone carry nothing, unless one may hold a pointer into
   * active memory (activity kept it): then the callee needs its shadow. */
  LLVMValueRef int_arg = any ? active_integer_argument(fc, call) : NULL;
  /* A defined callee that reads or writes active globals carries
   * derivatives through them, whatever its arguments and result. */
  int touches_globals = fn && LLVMCountBasicBlocks(fn) > 0 &&
                        ad_function_touches_active_globals(fc->mc, fn);
  if (touches_globals)
    return emit_derivative_call(fc, call, fn);
  if (!any ||
      (only_integers(call) && !int_arg && !passes_shadow(fc, call)))
    return ad_clone(fc, call) ? 0 : -1;
  if (fn && LLVMCountBasicBlocks(fn) > 0)
    return emit_derivative_call(fc, call, fn);
  if (fn && ad_is_request_function(fn)) {
    /* A request not rewritten yet inside a function being differentiated:
     * the function reaches its own request (engine.c).  Its tangent would
     * be a derivative of this very derivative, and so on without end. */
    LLVMValueRef target = LLVMGetNumArgOperands(call)
                              ? ad_strip_casts(LLVMGetOperand(call, 0),
                                               AD_STRIP_INT_CASTS |
                                                   AD_STRIP_INSTRUCTIONS)
                              : NULL;
    return ad_fail(fc->mc, call,
                   "__enzyme_fwddiff of %s inside %s, which is being "
                   "differentiated by a request it reaches itself, with "
                   "active arguments: its tangent would need a derivative of "
                   "that derivative, without end (a function may request its "
                   "own derivative only where nothing the request is given "
                   "carries a tangent)",
                   target && LLVMIsAFunction(target) ? ad_value_name(target) : "?",
                   ad_value_name(fc->primal_fn));
  }
  if (fn) {
    char buf[256];
    const char *rn = ad_call_rule_name(fc->mc->engine, call, buf, sizeof buf);
    /* With activity analysis off every integer is "active", which says
     * nothing about pointers: such calls keep the primal call alone. */
    if (only_integers(call) && ad_activity_disabled())
      return ad_clone(fc, call) ? 0 : -1;
    if (only_integers(call)) {
      /* Without a body there is no telling what the callee does with an
       * integer that may be a pointer: a silent primal call could leave
       * shadow memory stale, or hand out a pointer with no shadow. */
      char *t = ad_value_text(int_arg ? int_arg : call);
      int rc = ad_fail(fc->mc, call,
                       "no forward-mode derivative for call to %s (no rule "
                       "and no body): %s `%s` is an integer that may hold a "
                       "pointer to active memory (type analysis cannot show "
                       "it is a plain integer)",
                       rn ? rn : ad_value_name(fn),
                       int_arg ? "its argument" : "its result", t ? t : "?");
      free(t);
      return rc;
    }
    return ad_fail(fc->mc, call,
                   "no forward-mode %s for call to %s (no rule and no body)",
                   ad_estimates_error(fc) ? "error estimate" : "derivative",
                   rn ? rn : ad_value_name(fn));
  }
  if (LLVMIsAInlineAsm(LLVMGetCalledValue(call)))
    return ad_fail(fc->mc, call,
                   "no forward-mode derivative for inline assembly with active "
                   "operands");
  return ad_emit_indirect_call(fc, call);
}
