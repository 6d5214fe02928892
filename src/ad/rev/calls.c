/*
 * Calls, in both directions.  The aug decides a plan per call and the
 * reverse follows it:
 *  - inactive rules (printing, lifetime markers): the primal call only;
 *  - math rows (rules/math.c): the call in aug; in reverse each active
 *    argument's adjoint += partial * the result's adjoint, from the same
 *    row forward mode evaluates (fmin/fmax: the adjoint goes to the
 *    argument chosen);
 *  - allocations: a zeroed shadow (calloc) in aug, freed at the reverse
 *    of the allocation; the primal free stays in aug;
 *  - memcpy/memmove of float memory: reverse src' += dst', dst' = 0;
 *    of pointer or integer memory: the shadows copied in aug; memset of
 *    float memory: reverse zeroes dst', of other memory: the shadow set
 *    in aug;
 *  - a defined callee: its own pair, for the activities its arguments
 *    have here: aug calls augmented_g, reverse calls diffe_g with the
 *    same arguments and accumulates the adjoints it returns.
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
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

typedef enum plan_kind {
  PLAN_NONE,
  PLAN_MATH,
  PLAN_ALLOC,
  PLAN_COPY_FLOAT,
  PLAN_SET_FLOAT,
  PLAN_REDUCE,
  PLAN_CALL
} plan_kind;

struct ad_rev_call_plan {
  plan_kind kind;
  const ad_call_rule *rule;
  ad_rev_pair pair;
  unsigned char *act; /* PLAN_CALL: the callee's activities */
  unsigned np;
  int ret_adjoint;
  LLVMTypeRef elem; /* PLAN_COPY_FLOAT */
};

void ad_rev_free_plans(ad_rev_fn *r) {
  for (size_t i = 0; i < r->plans.cap; i++)
    if (r->plans.keys[i] && r->plans.vals[i]) {
      struct ad_rev_call_plan *p = r->plans.vals[i];
      free(p->act);
      free(p);
    }
  ad_map_free(&r->plans);
}

static int fail_call(ad_rev_fn *r, LLVMValueRef call, const char *fmt,
                     const char *name) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, name);
  return ad_fail_code(r->mc, TANJIT_ERR_UNSUPPORTED, call,
                      "reverse mode: %s", msg);
}

static struct ad_rev_call_plan *new_plan(ad_rev_fn *r, LLVMValueRef call,
                                         plan_kind kind) {
  struct ad_rev_call_plan *p = tj_calloc(1, sizeof *p);
  if (!p || ad_map_put(&r->plans, call, p) != 0) {
    free(p);
    ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    return NULL;
  }
  p->kind = kind;
  return p;
}

static int any_active(ad_rev_fn *r, LLVMValueRef call) {
  if (ad_is_active(&r->fc, call))
    return 1;
  unsigned n = LLVMGetNumArgOperands(call);
  for (unsigned k = 0; k < n; k++)
    if (ad_is_active(&r->fc, LLVMGetOperand(call, k)))
      return 1;
  return 0;
}

static const struct {
  const char *name;
  signed char size_a, size_b; /* the byte count: arg a (times arg b) */
} allocators[] = {
    {"malloc", 0, -1},
    {"calloc", 0, 1},
    {"aligned_alloc", 1, -1},
    {"memalign", 1, -1},
    {"_Znwm", 0, -1},
    {"_Znam", 0, -1},
    {"_ZnwmSt11align_val_t", 0, -1},
    {"_ZnamSt11align_val_t", 0, -1},
    {"_ZnwmRKSt9nothrow_t", 0, -1},
    {"_ZnamRKSt9nothrow_t", 0, -1},
};

static const char *const freers[] = {
    "free",   "_ZdlPv",  "_ZdaPv",  "_ZdlPvm",  "_ZdaPvm",  "_ZdlPvSt11align_val_t",
    "_ZdaPvSt11align_val_t", "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t",
};

static int name_in(const char *name, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(name, list[i]) == 0)
      return 1;
  return 0;
}

static LLVMTypeRef float_of_bits(ad_module_ctx *mc, unsigned bits) {
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

/* What a copy's bytes hold: floats of one type (*elem), none (0), or a mix
 * or unknown bytes (-1, an error). */
static int copy_kind(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef dst,
                     LLVMValueRef src, LLVMValueRef len, LLVMTypeRef *elem) {
  ad_copy_layout l;
  memset(&l, 0, sizeof l);
  if (ad_copy_layout_of(&r->fc, call, dst, src, len, &l) != 0)
    return -2;
  int nf = 0, no = 0, nu = 0;
  unsigned long long foff = 0;
  for (size_t i = 0; i < l.n; i++) {
    if (l.segs[i].kind == AD_BYTES_FLOAT) {
      if (!nf)
        foff = l.segs[i].offset;
      nf++;
    } else if (l.segs[i].kind == AD_BYTES_UNKNOWN) {
      nu++;
    } else {
      no++;
    }
  }
  ad_copy_layout_free(&l);
  if (nf && (no || nu))
    return -1;
  if (!nf)
    return nu ? -1 : 0;
  unsigned bits = 0;
  ad_tkind k = ad_types_kind(r->fc.types, dst, (long long)foff, &bits);
  if (k != AD_T_FLOAT)
    k = ad_types_kind(r->fc.types, src, (long long)foff, &bits);
  *elem = k == AD_T_FLOAT ? float_of_bits(r->mc, bits) : NULL;
  return *elem ? 1 : -1;
}

static int aug_copy(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef c,
                    const char *name, int is_set) {
  ad_fn_ctx *fc = &r->fc;
  LLVMValueRef dst = LLVMGetOperand(call, 0);
  LLVMValueRef src = is_set ? dst : LLVMGetOperand(call, 1);
  LLVMValueRef len = LLVMGetOperand(call, 2);
  if (!ad_shadow_or_null(fc, dst)) {
    if (!is_set && ad_is_active(fc, src) && ad_shadow_or_null(fc, src)) {
      LLVMTypeRef e = NULL;
      if (copy_kind(r, call, dst, src, len, &e) != 0)
        return fail_call(r, call,
                         "%s copies active memory into memory with no shadow",
                         name);
    }
    return 0;
  }
  LLVMTypeRef elem = NULL;
  int k = copy_kind(r, call, dst, src, len, &elem);
  if (k == -2)
    return -1;
  if (k < 0)
    return fail_call(r, call,
                     "%s of memory whose bytes are not all floats of one "
                     "type nor all pointers and integers (mixed or unknown "
                     "to type analysis) is not supported",
                     name);
  if (k == 0) {
    /* pointers and integers: the shadows move as the primal bytes do */
    static const unsigned ops2[] = {0, 1};
    LLVMValueRef vals[2] = {ad_shadow_value(fc, dst),
                            is_set ? NULL : ad_shadow_value(fc, src)};
    ad_replay_call(fc, c, ops2, vals, is_set ? 1 : 2);
    return 0;
  }
  struct ad_rev_call_plan *p =
      new_plan(r, call, is_set ? PLAN_SET_FLOAT : PLAN_COPY_FLOAT);
  if (!p)
    return -1;
  p->elem = elem;
  return 0;
}

/* The callee's activities for this call site. */
static int plan_callee(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef fn,
                       struct ad_rev_call_plan *p) {
  ad_fn_ctx *fc = &r->fc;
  unsigned np = LLVMCountParams(fn);
  if (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(fn)))
    return fail_call(r, call,
                     "a call to variadic function %s with active arguments "
                     "is not supported",
                     ad_value_name(fn));
  if (LLVMGetNumArgOperands(call) != np)
    return fail_call(r, call, "a call to %s with a mismatched argument count",
                     ad_value_name(fn));
  p->np = np;
  p->act = tj_calloc(np ? np : 1, 1);
  if (!p->act)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  for (unsigned k = 0; k < np; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (!ad_is_active(fc, a))
      continue;
    int f = 0, o = 0;
    ad_rev_leaves(LLVMTypeOf(a), &f, &o);
    if (f && o)
      return fail_call(r, call,
                       "an argument of %s that mixes floats and pointers in "
                       "one value is not supported",
                       ad_value_name(fn));
    if (o && LLVMGetEnumAttributeAtIndex(fn, k + 1, byval))
      return fail_call(r, call,
                       "an active by-value (byval) argument of %s is not "
                       "supported",
                       ad_value_name(fn));
    p->act[k] = f ? AD_REV_OUT : AD_REV_DUP;
  }
  int f = 0, o = 0;
  ad_rev_leaves(LLVMTypeOf(call), &f, &o);
  if (ad_is_active(fc, call) && f && o)
    return fail_call(r, call,
                     "a result of %s that mixes floats and pointers is not "
                     "supported",
                     ad_value_name(fn));
  ad_rev_sig sig = {fn, np, p->act, 0, 0, 0};
  sig.ret_adjoint = (unsigned char)(ad_is_active(fc, call) && f);
  sig.ret_shadow = (unsigned char)(ad_is_active(fc, call) && o);
  p->ret_adjoint = sig.ret_adjoint;
  return ad_rev_get(r->mc, &sig, call, &p->pair);
}

static int aug_callee(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef fn) {
  ad_fn_ctx *fc = &r->fc;
  struct ad_rev_call_plan *p = new_plan(r, call, PLAN_CALL);
  if (!p || plan_callee(r, call, fn, p) != 0)
    return -1;
  unsigned n = 0;
  LLVMValueRef *args = tj_malloc((2 * p->np + 1) * sizeof *args);
  if (!args)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  for (unsigned k = 0; k < p->np; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    args[n++] = ad_primal(fc, a);
    if (p->act[k] == AD_REV_DUP)
      args[n++] = ad_shadow_value(fc, a);
  }
  args[n++] = r->aug_tape;
  LLVMValueRef aug = p->pair.aug;
  LLVMValueRef res = LLVMBuildCall2(fc->b, LLVMGlobalGetValueType(aug), aug,
                                    args, n, "");
  free(args);
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(call);
  if (loc)
    LLVMInstructionSetDebugLoc(res, loc);
  LLVMTypeRef rt = LLVMTypeOf(call);
  if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind)
    return 0;
  LLVMValueRef primal = res;
  if (LLVMGetTypeKind(LLVMGetReturnType(LLVMGlobalGetValueType(aug))) ==
          LLVMStructTypeKind &&
      LLVMGetReturnType(LLVMGlobalGetValueType(aug)) != rt) {
    primal = LLVMBuildExtractValue(fc->b, res, 0, "");
    ad_set_shadow(fc, call, LLVMBuildExtractValue(fc->b, res, 1, "shadow"));
  }
  if (ad_map_put(&fc->vmap, call, primal) != 0)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  return 0;
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
  if (fn && (ad_rev_is_generated(mc, fn)) && any_active(r, call))
    return fail_call(r, call,
                     "a gradient inside a function differentiated in reverse "
                     "mode (reverse over reverse, through %s) is not "
                     "supported",
                     ad_value_name(fn));
  const ad_call_rule *rule = ad_rule_of_call(mc, call);
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
        struct ad_rev_call_plan *p = new_plan(r, call, PLAN_MATH);
        if (!p)
          return -1;
        p->rule = rule;
      }
      return 0;
    }
    for (size_t i = 0; i < sizeof allocators / sizeof *allocators; i++) {
      if (strcmp(name, allocators[i].name) != 0)
        continue;
      if (!ad_is_active(fc, call))
        return 0;
      LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
      LLVMValueRef size = LLVMBuildZExtOrBitCast(
          fc->b, ad_primal(fc, LLVMGetOperand(call, (unsigned)allocators[i].size_a)),
          i64, "");
      if (allocators[i].size_b >= 0)
        size = LLVMBuildMul(
            fc->b, size,
            LLVMBuildZExtOrBitCast(
                fc->b,
                ad_primal(fc, LLVMGetOperand(call, (unsigned)allocators[i].size_b)),
                i64, ""),
            "");
      LLVMValueRef args[2] = {LLVMConstInt(i64, 1, 0), size};
      LLVMValueRef s = ad_rev_call_libc(mc, fc->b, "calloc", args, 2);
      LLVMSetValueName2(s, "shadow.alloc", 12);
      ad_set_shadow(fc, call, s);
      return new_plan(r, call, PLAN_ALLOC) ? 0 : -1;
    }
    if (name_in(name, freers, sizeof freers / sizeof *freers))
      return 0;
    if (ad_name_matches(name, "memcpy") || ad_name_matches(name, "memmove") ||
        ad_name_matches(name, "llvm.memcpy") ||
        ad_name_matches(name, "llvm.memcpy.inline") ||
        ad_name_matches(name, "llvm.memmove"))
      return aug_copy(r, call, c, name, 0);
    if (ad_name_matches(name, "memset") || ad_name_matches(name, "llvm.memset") ||
        ad_name_matches(name, "llvm.memset.inline"))
      return aug_copy(r, call, c, name, 1);
    if (ad_name_matches(name, "llvm.vector.reduce.fadd")) {
      if (ad_rev_has_adjoint(r, call))
        return new_plan(r, call, PLAN_REDUCE) ? 0 : -1;
      return 0;
    }
    if (!any_active(r, call))
      return 0;
    return fail_call(r, call, "no reverse-mode rule for a call to %s", name);
  }
  int touches = fn && LLVMCountBasicBlocks(fn) > 0 &&
                ad_function_touches_active_globals(mc, fn);
  if (!touches && !any_active(r, call) &&
      !ad_is_active(fc, LLVMGetCalledValue(call)))
    return ad_clone(fc, call) ? 0 : -1;
  if (fn && LLVMCountBasicBlocks(fn) > 0)
    return aug_callee(r, call, fn);
  if (fn && ad_is_request_function(fn))
    return fail_call(r, call,
                     "a derivative request (%s) with active arguments inside "
                     "a function being differentiated in reverse mode is "
                     "not supported",
                     ad_value_name(fn));
  if (fn) {
    char buf[256];
    const char *rn = ad_call_rule_name(mc->engine, call, buf, sizeof buf);
    return fail_call(r, call,
                     "no reverse-mode derivative for a call to %s (no rule "
                     "and no body)",
                     rn ? rn : ad_value_name(fn));
  }
  if (LLVMIsAInlineAsm(LLVMGetCalledValue(call)))
    return fail_call(r, call, "%s with active operands is not supported",
                     "inline assembly");
  return fail_call(r, call,
                   "%s with active arguments is not supported (call the "
                   "function directly)",
                   "an indirect call (through a function pointer)");
}

/* tanjit.rev.copy.<T>(dst', src', n, add): the reverse of copying n
 * elements of T: every dst'[i] read and zeroed first (the two ranges may
 * overlap, memmove), then added into src'[i] when `add`. */
static LLVMValueRef copy_reverse_fn(ad_module_ctx *mc, LLVMTypeRef t) {
  char name[96];
  char *tn = LLVMPrintTypeToString(t);
  snprintf(name, sizeof name, "tanjit.rev.copy.%s", tn);
  LLVMDisposeMessage(tn);
  LLVMValueRef fn = LLVMGetNamedFunction(mc->mod, name);
  if (fn)
    return fn;
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef i1 = LLVMInt1TypeInContext(c);
  LLVMTypeRef params[4] = {ptr, ptr, i64, i1};
  fn = LLVMAddFunction(mc->mod, name,
                       LLVMFunctionType(LLVMVoidTypeInContext(c), params, 4, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMValueRef d = LLVMGetParam(fn, 0), s = LLVMGetParam(fn, 1);
  LLVMValueRef n = LLVMGetParam(fn, 2), add = LLVMGetParam(fn, 3);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "entry");
  LLVMBasicBlockRef l1 = LLVMAppendBasicBlockInContext(c, fn, "gather");
  LLVMBasicBlockRef mid = LLVMAppendBasicBlockInContext(c, fn, "mid");
  LLVMBasicBlockRef l2 = LLVMAppendBasicBlockInContext(c, fn, "scatter");
  LLVMBasicBlockRef fin = LLVMAppendBasicBlockInContext(c, fn, "free");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef zero = LLVMConstInt(i64, 0, 0), one = LLVMConstInt(i64, 1, 0);
  LLVMValueRef esz = LLVMConstInt(i64, LLVMABISizeOfType(mc->td, t), 0);
  LLVMValueRef ca[2] = {n, esz};
  LLVMValueRef tmp = ad_rev_call_libc(mc, b, "calloc", ca, 2);
  LLVMValueRef empty = LLVMBuildICmp(b, LLVMIntEQ, n, zero, "");
  LLVMBuildCondBr(b, empty, fin, l1);
  /* gather */
  LLVMPositionBuilderAtEnd(b, l1);
  LLVMValueRef i = LLVMBuildPhi(b, i64, "i");
  LLVMValueRef pd = LLVMBuildGEP2(b, t, d, &i, 1, "");
  LLVMValueRef v = LLVMBuildLoad2(b, t, pd, "");
  LLVMBuildStore(b, LLVMConstNull(t), pd);
  LLVMBuildStore(b, v, LLVMBuildGEP2(b, t, tmp, &i, 1, ""));
  LLVMValueRef i1n = LLVMBuildAdd(b, i, one, "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, i1n, n, ""), l1, mid);
  LLVMValueRef iv[2] = {zero, i1n};
  LLVMBasicBlockRef ib[2] = {entry, l1};
  LLVMAddIncoming(i, iv, ib, 2);
  LLVMPositionBuilderAtEnd(b, mid);
  LLVMBuildCondBr(b, add, l2, fin);
  /* scatter */
  LLVMPositionBuilderAtEnd(b, l2);
  LLVMValueRef j = LLVMBuildPhi(b, i64, "j");
  LLVMValueRef ps = LLVMBuildGEP2(b, t, s, &j, 1, "");
  LLVMValueRef sum = LLVMBuildFAdd(
      b, LLVMBuildLoad2(b, t, ps, ""),
      LLVMBuildLoad2(b, t, LLVMBuildGEP2(b, t, tmp, &j, 1, ""), ""), "");
  LLVMBuildStore(b, sum, ps);
  LLVMValueRef j1 = LLVMBuildAdd(b, j, one, "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, j1, n, ""), l2, fin);
  LLVMValueRef jv[2] = {zero, j1};
  LLVMBasicBlockRef jb[2] = {mid, l2};
  LLVMAddIncoming(j, jv, jb, 2);
  LLVMPositionBuilderAtEnd(b, fin);
  ad_rev_call_libc(mc, b, "free", &tmp, 1);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

static int reverse_math(ad_rev_fn *r, LLVMValueRef call,
                        const struct ad_rev_call_plan *p) {
  unsigned n = LLVMGetNumArgOperands(call);
  if (n > 3)
    return fail_call(r, call, "math call %s with more than 3 arguments",
                     p->rule->name);
  LLVMValueRef args[3], partial[3] = {NULL, NULL, NULL};
  for (unsigned k = 0; k < n; k++)
    args[k] = ad_rev_primal(r, LLVMGetOperand(call, k));
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
                          const struct ad_rev_call_plan *p) {
  unsigned n = 0;
  LLVMValueRef *args = tj_malloc((2 * p->np + 2) * sizeof *args);
  if (!args)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  for (unsigned k = 0; k < p->np; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    args[n++] = ad_rev_primal(r, a);
    if (p->act[k] == AD_REV_DUP)
      args[n++] = ad_rev_shadow(r, a);
  }
  if (p->ret_adjoint)
    args[n++] = ad_rev_take(r, call);
  args[n++] = r->rev_tape;
  LLVMValueRef rev = p->pair.rev;
  LLVMValueRef res = LLVMBuildCall2(r->rb, LLVMGlobalGetValueType(rev), rev,
                                    args, n, "");
  free(args);
  unsigned j = 0;
  for (unsigned k = 0; k < p->np; k++) {
    if (p->act[k] != AD_REV_OUT)
      continue;
    ad_rev_accumulate(r, LLVMGetOperand(call, k),
                      LLVMBuildExtractValue(r->rb, res, j++, ""), NULL);
  }
  return 0;
}

int ad_rev_reverse_call(ad_rev_fn *r, LLVMValueRef call) {
  struct ad_rev_call_plan *p = ad_map_get(&r->plans, call);
  if (!p)
    return ad_rev_cuda_reverse(r, call) != 0 ? -1 /* cuda.c, julia.c */
                                              : ad_rev_julia_reverse(r, call);
  ad_module_ctx *mc = r->mc;
  switch (p->kind) {
  case PLAN_NONE:
    return 0;
  case PLAN_MATH:
    return reverse_math(r, call, p);
  case PLAN_ALLOC: {
    LLVMValueRef s = ad_rev_shadow(r, call);
    ad_rev_call_libc(mc, r->rb, "free", &s, 1);
    return 0;
  }
  case PLAN_SET_FLOAT: {
    LLVMValueRef dst = LLVMGetOperand(call, 0);
    LLVMValueRef len = ad_rev_primal(r, LLVMGetOperand(call, 2));
    LLVMBuildMemSet(r->rb, ad_rev_shadow(r, dst),
                    LLVMConstInt(LLVMInt8TypeInContext(mc->llctx), 0, 0), len,
                    1);
    return 0;
  }
  case PLAN_COPY_FLOAT: {
    LLVMValueRef dst = LLVMGetOperand(call, 0), src = LLVMGetOperand(call, 1);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
    LLVMValueRef len = LLVMBuildZExtOrBitCast(
        r->rb, ad_rev_primal(r, LLVMGetOperand(call, 2)), i64, "");
    LLVMValueRef count = LLVMBuildUDiv(
        r->rb, len, LLVMConstInt(i64, LLVMABISizeOfType(mc->td, p->elem), 0),
        "");
    LLVMValueRef ds = ad_rev_shadow(r, dst);
    LLVMValueRef ss = ad_shadow_or_null(&r->fc, src) ? ad_rev_shadow(r, src)
                                                      : ds;
    LLVMValueRef add;
    if (!ad_shadow_or_null(&r->fc, src))
      add = LLVMConstInt(LLVMInt1TypeInContext(mc->llctx), 0, 0);
    else if (ad_shadow_may_equal_primal(&r->fc, src))
      add = LLVMBuildICmp(r->rb, LLVMIntNE, ss, ad_rev_primal(r, src), "");
    else
      add = LLVMConstInt(LLVMInt1TypeInContext(mc->llctx), 1, 0);
    LLVMValueRef fn = copy_reverse_fn(mc, p->elem);
    LLVMValueRef a[4] = {ds, ss, count, add};
    LLVMBuildCall2(r->rb, LLVMGlobalGetValueType(fn), fn, a, 4, "");
    return 0;
  }
  case PLAN_REDUCE: {
    LLVMValueRef start = LLVMGetOperand(call, 0), vec = LLVMGetOperand(call, 1);
    LLVMValueRef d = ad_rev_take(r, call);
    ad_rev_accumulate(r, start, d, call);
    if (ad_rev_has_adjoint(r, vec)) {
      LLVMTypeRef vt = LLVMTypeOf(vec);
      LLVMValueRef splat = LLVMGetPoison(vt);
      unsigned nl = LLVMGetVectorSize(vt);
      for (unsigned k = 0; k < nl; k++)
        splat = LLVMBuildInsertElement(
            r->rb, splat, d,
            LLVMConstInt(LLVMInt32TypeInContext(mc->llctx), k, 0), "");
      ad_rev_accumulate(r, vec, splat, call);
    }
    return 0;
  }
  case PLAN_CALL:
    return reverse_callee(r, call, p);
  }
  return 0;
}
