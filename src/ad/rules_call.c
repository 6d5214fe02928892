/*
 * Calls: name resolution, the table of rule families, and the generic cases
 * (a defined callee is differentiated recursively; a callee with neither a
 * rule nor a body is an error naming it).  Also the "inactive" family:
 * functions and intrinsics with no derivative effect (printing, lifetime
 * markers, ...), whose primal call is simply kept.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/engine.h"
#include "common/strbuf.h"

/* Families asked in order, after custom rules (custom.c); the first rule
 * found wins.  A new family adds its lookup here. */
static const ad_call_family_lookup ad_call_families[] = {
    ad_inactive_lookup,
    ad_math_lookup,
    ad_memory_lookup,
    ad_vector_lookup,
    ad_cuda_lookup,
    ad_complex_lookup,
};

int ad_name_matches(const char *name, const char *pattern) {
  size_t n = strlen(pattern);
  if (strncmp(name, pattern, n) != 0)
    return 0;
  if (name[n] == 0)
    return 1;
  return strncmp(pattern, "llvm.", 5) == 0 && name[n] == '.';
}

static int emit_nothing(ad_fn_ctx *fc, const ad_call_rule *r, LLVMValueRef call,
                        LLVMValueRef clone) {
  (void)fc;
  (void)r;
  (void)call;
  (void)clone;
  return 0;
}

#define INACTIVE(n) {n, emit_nothing, NULL, 0, 0, 1}
static const ad_call_rule inactive_rules[] = {
    INACTIVE("printf"),
    INACTIVE("fprintf"),
    INACTIVE("puts"),
    INACTIVE("putchar"),
    INACTIVE("fputs"),
    INACTIVE("fputc"),
    INACTIVE("fflush"),
    INACTIVE("fwrite"),
    INACTIVE("abort"),
    INACTIVE("exit"),
    INACTIVE("__assert_fail"),
    INACTIVE("llvm.lifetime.start"),
    INACTIVE("llvm.lifetime.end"),
    INACTIVE("llvm.assume"),
    INACTIVE("llvm.experimental.noalias.scope.decl"),
    INACTIVE("llvm.stacksave"),
    INACTIVE("llvm.stackrestore"),
    INACTIVE("llvm.invariant.start"),
    INACTIVE("llvm.invariant.end"),
    INACTIVE("llvm.prefetch"),
    INACTIVE("llvm.var.annotation"),
    INACTIVE("llvm.donothing"),
    INACTIVE("llvm.trap"),
    INACTIVE("llvm.debugtrap"),
    INACTIVE("llvm.sideeffect"),
    INACTIVE("llvm.is.fpclass"),
    /* Julia's GC bookkeeping: roots and safepoints move no values */
    INACTIVE("llvm.julia.gc_preserve_begin"),
    INACTIVE("llvm.julia.gc_preserve_end"),
    INACTIVE("julia.safepoint"),
    INACTIVE("julia.get_pgcstack"),
};

const ad_call_rule *ad_inactive_lookup(const char *name) {
  for (size_t i = 0; i < sizeof inactive_rules / sizeof *inactive_rules; i++)
    if (ad_name_matches(name, inactive_rules[i].name))
      return &inactive_rules[i];
  return NULL;
}

LLVMValueRef ad_called_function(LLVMValueRef call) {
  LLVMValueRef v = ad_strip_casts(LLVMGetCalledValue(call), 0);
  return v && LLVMIsAFunction(v) ? v : NULL;
}

int ad_parse_rename(const char *name, ad_rename *out) {
  static const char *const prefixes[] = {"ejlstr$", "ejlptr$"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
    size_t n = strlen(prefixes[i]);
    if (strncmp(name, prefixes[i], n) != 0)
      continue;
    const char *fn = name + n, *sep = strchr(fn, '$');
    if (!sep || sep == fn || !sep[1])
      return -1;
    if (out) {
      out->prefix = prefixes[i];
      out->fn = fn;
      out->fn_len = (size_t)(sep - fn);
      out->lib = sep + 1;
    }
    return 1;
  }
  return 0;
}

const char *ad_call_rule_name(const ad_engine *e, LLVMValueRef call, char *buf,
                              size_t bufsize) {
  LLVMValueRef fn = ad_called_function(call);
  if (!fn)
    return NULL;
  size_t n;
  const char *name = LLVMGetValueName2(fn, &n);
  (void)e; /* rule names come from the IR; registered rules are custom.c's */
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex, "enzyme_math", 11);
  if (!a)
    a = LLVMGetCallSiteStringAttribute(call, LLVMAttributeFunctionIndex,
                                       "enzyme_math", 11);
  if (a) {
    unsigned len;
    const char *v = LLVMGetStringAttributeValue(a, &len);
    if (len < bufsize) {
      memcpy(buf, v, len);
      buf[len] = 0;
      return buf;
    }
  }
  ad_rename rn;
  if (ad_parse_rename(name, &rn) == 1 && rn.fn_len < bufsize) {
    memcpy(buf, rn.fn, rn.fn_len);
    buf[rn.fn_len] = 0;
    return buf;
  }
  return name;
}

const ad_call_rule *ad_find_call_rule(const ad_engine *e, LLVMValueRef call) {
  /* Custom rules (in-IR registrations, tanjit_register_fwd_rule, the
   * enzyme_inactive attribute) win over the built-in tables. */
  const ad_call_rule *custom = ad_custom_lookup(e, call);
  if (custom)
    return custom;
  char buf[256];
  const char *name = ad_call_rule_name(e, call, buf, sizeof buf);
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof ad_call_families / sizeof *ad_call_families;
       i++) {
    const ad_call_rule *r = ad_call_families[i](name);
    if (r)
      return r;
  }
  return NULL;
}

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

/* Emits a call to the derivative of `fn` for the activities the arguments
 * of `call` have here; returns its primal result (or NULL for void) and its
 * shadow (NULL when the result is inactive).  0 or -1. */
/* A pointer, or an aggregate or vector holding one (Julia passes an array
 * descriptor {ptr, len} by value). */
static int holds_pointer(LLVMTypeRef t, int depth) {
  if (ad_type_is_pointerish(t))
    return 1;
  if (depth > 8)
    return 0;
  switch (LLVMGetTypeKind(t)) {
  case LLVMArrayTypeKind:
  case LLVMVectorTypeKind:
    return holds_pointer(LLVMGetElementType(t), depth + 1);
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(t);
    for (unsigned i = 0; i < n; i++)
      if (holds_pointer(LLVMStructGetTypeAtIndex(t, i), depth + 1))
        return 1;
    return 0;
  }
  default:
    return 0;
  }
}

/* build_now: the derivative (and those it calls) is built before the call
 * is emitted, not later from the worklist, so that a failure leaves no
 * call behind (an indirect call's candidate, see emit_indirect_call). */
static int derivative_call(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef fn,
                           int build_now, LLVMValueRef *primal_out,
                           LLVMValueRef *shadow_out) {
  ad_module_ctx *mc = fc->mc;
  unsigned np = LLVMCountParams(fn);
  unsigned na = LLVMGetNumArgOperands(call);
  *primal_out = *shadow_out = NULL;
  if (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(fn)))
    return ad_fail(mc, call,
                   "no forward-mode derivative for call to variadic function "
                   "%s with active arguments (va_arg is not differentiated; "
                   "give it a custom rule, or mark it inactive with "
                   "__enzyme_inactivefn or the enzyme_inactive attribute if it "
                   "only logs)",
                   ad_value_name(fn));
  if (na != np)
    return ad_fail(mc, call, "call to %s passes %u arguments for %u parameters",
                   ad_value_name(fn), na, np);
  unsigned char *act = malloc(np ? np : 1);
  LLVMValueRef *args = malloc((2 * np + 1) * sizeof *args);
  if (!act || !args) {
    free(act);
    free(args);
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  /* A pointer whose shadow may be itself here keeps its run-time checks in
   * the callee: a derivative of its own for that case. */
  for (unsigned i = 0; i < np; i++) {
    LLVMValueRef a = LLVMGetOperand(call, i);
    if (!passes_shadow(fc, a))
      act[i] = AD_ARG_CONST;
    else if (holds_pointer(LLVMTypeOf(a), 0) &&
             ad_shadow_may_equal_primal(fc, a))
      act[i] = AD_ARG_DUP_RUNTIME;
    else
      act[i] = AD_ARG_DUP;
  }
  LLVMTypeRef rt = LLVMTypeOf(call);
  ad_signature sig = {fn, np, act, fc->width, AD_RET_PRIMAL};
  if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind)
    sig.ret = AD_RET_VOID;
  else if (passes_shadow(fc, call))
    sig.ret = AD_RET_BOTH;
  /* The callee's body is built with its own builder: ours stays put. */
  size_t mark = mc->ncache;
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
  if (derivative_call(fc, call, fn, 0, &p, &s) != 0)
    return -1;
  if (p)
    ad_map_put(&fc->vmap, call, p);
  if (s)
    ad_set_shadow(fc, call, s);
  return 0;
}

/*
 * A candidate target whose derivative cannot be made (a function of the
 * same type that calls something without a rule, and that the program may
 * never pass here): forgets the derivatives begun since `mark` (its own
 * and its callees', some half built), which nothing else refers to yet,
 * and the error, so that only a call through that target traps.  The
 * error's text is returned (caller frees; NULL if none was kept).
 */
static char *forget_failed_candidate(ad_module_ctx *mc, size_t mark) {
  ad_forget_derivatives(mc, mark);
  mc->failed = 0;
  mc->failed_code = TANJIT_OK;
  char *why = NULL;
  if (mc->err && *mc->err) {
    const char *m = tanjit_error_message(*mc->err);
    why = m ? tj_strdup(m) : NULL;
    tanjit_error_free(*mc->err);
    *mc->err = NULL;
  }
  return why;
}

/* Before the trap of a target that could not be differentiated: the
 * session's report (its unresolved-call handler) says which and why. */
static void report_at_run_time(ad_fn_ctx *fc, LLVMValueRef target,
                               const char *why) {
  void *user;
  ad_runtime_report fn = ad_engine_runtime_report(fc->mc->engine, &user);
  if (!fn)
    return;
  strbuf what;
  sb_init(&what);
  sb_printf(&what, "%s (called through a pointer in %s)",
            ad_value_name(target), ad_value_name(fc->primal_fn));
  const char *w = what.data ? ad_engine_keep_string(fc->mc->engine, what.data) : NULL;
  sb_free(&what);
  strbuf reason;
  sb_init(&reason);
  sb_printf(&reason, "no forward-mode derivative: %s", why ? why : "?");
  const char *r = reason.data ? ad_engine_keep_string(fc->mc->engine, reason.data) : NULL;
  sb_free(&reason);
  if (!w || !r)
    return;
  LLVMContextRef c = fc->mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef params[3] = {ptr, ptr, ptr};
  LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(c), params, 3, 0);
  LLVMValueRef args[3] = {ad_address_constant(c, user), ad_address_constant(c, w),
                          ad_address_constant(c, r)};
  LLVMBuildCall2(fc->b, ft, ad_address_constant(c, (const void *)(uintptr_t)fn),
                 args, 3, "");
}

/*
 * An indirect call with active arguments.  The target is known only at run
 * time, so the derivative dispatches on it: every function of this module
 * with the call's type whose address is taken is a candidate; the call
 * compares the pointer with each and calls that candidate's derivative.
 * A pointer matching none (a function from outside the module), or a
 * candidate that cannot be differentiated, traps; if no candidate can be,
 * the call is an error that gives the first one's reason.
 */
static int emit_indirect_call(ad_fn_ctx *fc, LLVMValueRef call) {
  ad_module_ctx *mc = fc->mc;
  LLVMValueRef cands[64];
  unsigned nc = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mc->mod); f;
       f = LLVMGetNextFunction(f))
    if (ad_may_be_indirect_target(call, f)) {
      if (nc == 64)
        return ad_fail(mc, call,
                       "indirect call with active arguments and more than 64 "
                       "possible targets in this module");
      cands[nc++] = f;
    }
  /* generated derivatives are internal and never address-taken: skipped */
  if (!nc) {
    char *t = ad_value_text(call);
    int rc = ad_fail(mc, call,
                     "indirect call with active arguments, and no function "
                     "of this module can be its target: %s",
                     t ? t : "");
    free(t);
    return rc;
  }
  LLVMValueRef target = ad_primal(fc, LLVMGetCalledValue(call));
  LLVMBasicBlockRef merge =
      LLVMAppendBasicBlockInContext(mc->llctx, fc->deriv_fn, "indirect.join");
  LLVMBasicBlockRef trapbb =
      LLVMAppendBasicBlockInContext(mc->llctx, fc->deriv_fn, "indirect.unknown");
  LLVMValueRef prim[64], shad[64];
  LLVMBasicBlockRef from[64];
  unsigned nok = 0;
  char *first_why = NULL;
  int rc = 0;
  for (unsigned i = 0; i < nc && rc == 0; i++) {
    LLVMBasicBlockRef hit =
        LLVMAppendBasicBlockInContext(mc->llctx, fc->deriv_fn, "indirect.call");
    LLVMBasicBlockRef next =
        i + 1 < nc ? LLVMAppendBasicBlockInContext(mc->llctx, fc->deriv_fn,
                                                   "indirect.next")
                   : trapbb;
    LLVMValueRef eq = LLVMBuildICmp(fc->b, LLVMIntEQ, target, cands[i], "");
    LLVMBuildCondBr(fc->b, eq, hit, next);
    LLVMPositionBuilderAtEnd(fc->b, hit);
    size_t mark = mc->ncache;
    rc = derivative_call(fc, call, cands[i], 1, &prim[nok], &shad[nok]);
    if (rc && mc->failed && mc->failed_code == TANJIT_ERR_DIFFERENTIATE) {
      char *why = forget_failed_candidate(mc, mark);
      report_at_run_time(fc, cands[i], why);
      if (!first_why)
        first_why = why;
      else
        free(why);
      ad_call_intrinsic(fc, "llvm.trap", NULL, 0, NULL, 0);
      LLVMBuildUnreachable(fc->b);
      rc = 0;
    } else if (rc == 0) {
      from[nok++] = LLVMGetInsertBlock(fc->b);
      LLVMBuildBr(fc->b, merge);
    }
    LLVMPositionBuilderAtEnd(fc->b, next);
  }
  if (rc) {
    free(first_why);
    return rc;
  }
  if (!nok) {
    char *t = ad_value_text(call);
    rc = ad_fail(mc, call,
                 "indirect call with active arguments, and none of its "
                 "possible targets (functions of this module of its type "
                 "whose address is taken) can be differentiated: %s; the "
                 "first: %s",
                 t ? t : "", first_why ? first_why : "(no reason kept)");
    free(t);
    free(first_why);
    return rc;
  }
  free(first_why);
  LLVMPositionBuilderAtEnd(fc->b, trapbb);
  ad_call_intrinsic(fc, "llvm.trap", NULL, 0, NULL, 0);
  LLVMBuildUnreachable(fc->b);
  LLVMPositionBuilderAtEnd(fc->b, merge);
  if (prim[0]) {
    LLVMValueRef phi = LLVMBuildPhi(fc->b, LLVMTypeOf(prim[0]), "");
    LLVMAddIncoming(phi, prim, from, nok);
    ad_map_put(&fc->vmap, call, phi);
  }
  if (shad[0]) {
    LLVMValueRef phi = LLVMBuildPhi(fc->b, LLVMTypeOf(shad[0]), "");
    LLVMAddIncoming(phi, shad, from, nok);
    ad_set_shadow(fc, call, phi);
  }
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
  const ad_call_rule *rule = ad_find_call_rule(fc->mc->engine, call);
  LLVMValueRef c;
  if (rule) {
    if (!(c = ad_clone(fc, call)))
      return -1;
    return rule->inactive ? 0 : rule->emit(fc, rule, call, c);
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
                   "no forward-mode derivative for call to %s (no rule and no "
                   "body)",
                   rn ? rn : ad_value_name(fn));
  }
  if (LLVMIsAInlineAsm(LLVMGetCalledValue(call)))
    return ad_fail(fc->mc, call,
                   "no forward-mode derivative for inline assembly with active "
                   "operands");
  return emit_indirect_call(fc, call);
}
