/*
 * Custom reverse rules: a call to a function with a custom gradient calls
 * the rule's augmented forward function in aug and its reverse function in
 * rev, instead of differentiating the callee.  Two sources:
 *
 *  1. Enzyme's in-IR registration, read at load and at transform by
 *     rules/custom.c (which retires the global, as for forward rules):
 *       void *__enzyme_register_gradient_<x>[3] = {f, aug_f, rev_f};
 *           -> !enzyme_gradient !{ptr @aug_f, ptr @rev_f} on f
 *     The two functions' own types say what they take and give:
 *       aug_f(args, [shadow after each pointer arg]) returns
 *         void                        nothing;
 *         f's own (non-pointer) result  the primal result;
 *         { T tape, [R primal] }        (a literal struct) both;
 *         anything else               the tape;
 *       rev_f(args, [shadow after each pointer arg], [R dresult when R is a
 *             float], [T tape when aug_f returns one])
 *         returns the adjoints of f's float scalar parameters, in order:
 *         nothing, the value, or their struct (any type of at least the
 *         struct's size, read as its layout: a C struct clang coerced).
 *     aug_f replaces the primal call; when f's result is used and aug_f
 *     does not return it, the primal call is made too.
 *  2. tanjit_register_rev_rule(s, "function", "augmented", "reverse"): for
 *     a symbol with no IR, matched as forward rules are (its name or its
 *     "enzyme_math" name).  The functions are declared here, external:
 *       void *augmented(args, [shadow after each pointer arg])
 *         runs just before the primal call, which is kept, and returns the
 *         tape (any pointer; augmented may be absent: no tape);
 *       reverse(args, [shadows], [R dresult when R is a float],
 *               [void *tape when augmented is given])
 *         returns the adjoints as above (several: the LLVM literal struct).
 *
 * A pointer argument's shadow is its shadow memory, into which the rule
 * accumulates, or NULL when the argument is inactive (an in-IR rule
 * refuses that: Enzyme's signature gives every pointer one).  Memory the
 * reverse would read through an argument after aug's frame or a free lost
 * it is copied at the call (custom_inputs.c).  The tape value is
 * recorded in the block's tape record like any value the reverse reads,
 * so a rule called in a loop gets each call's own tape back.  A call none
 * of whose operands or result is active is the primal call alone.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"
#include "common/error.h"
#include "common/strbuf.h"

/* ---- the registry of tanjit_register_rev_rule ---- */

typedef struct rev_rule {
  char *function, *augmented, *reverse; /* augmented may be NULL */
} rev_rule;

struct ad_rev_rules {
  pthread_mutex_t lock;
  /* never moved nor freed before the registry: a transform may hold one */
  rev_rule **rules;
  size_t n, cap;
};

ad_rev_rules *ad_rev_rules_new(void) {
  ad_rev_rules *r = tj_calloc(1, sizeof *r);
  if (r && pthread_mutex_init(&r->lock, NULL) != 0) {
    free(r);
    return NULL;
  }
  return r;
}

void ad_rev_rules_free(ad_rev_rules *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->n; i++) {
    free(r->rules[i]->function);
    free(r->rules[i]->augmented);
    free(r->rules[i]->reverse);
    free(r->rules[i]);
  }
  free(r->rules);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

int ad_engine_register_rev_rule(ad_engine *e, const char *function,
                                const char *augmented, const char *reverse,
                                tanjit_error **err) {
  ad_rev_rules *r = ad_engine_rev_rules(e);
  rev_rule *rr = tj_calloc(1, sizeof *rr);
  int ok = r && rr && (rr->function = tj_strdup(function)) &&
           (rr->reverse = tj_strdup(reverse)) &&
           (!augmented || (rr->augmented = tj_strdup(augmented)));
  if (ok) {
    pthread_mutex_lock(&r->lock);
    if (r->n == r->cap) {
      size_t cap = r->cap ? 2 * r->cap : 8;
      rev_rule **g = tj_realloc(r->rules, cap * sizeof *g);
      if (g) {
        r->rules = g;
        r->cap = cap;
      } else {
        ok = 0;
      }
    }
    if (ok)
      r->rules[r->n++] = rr;
    pthread_mutex_unlock(&r->lock);
  }
  if (!ok) {
    if (rr) {
      free(rr->function);
      free(rr->augmented);
      free(rr->reverse);
      free(rr);
    }
    return tj_fail(err, TANJIT_ERR_NO_MEMORY,
                   "reverse rule for %s: out of memory", function);
  }
  return 0;
}

/* The latest rule registered for `name`, or NULL. */
static const rev_rule *registered(ad_rev_rules *r, const char *name) {
  const rev_rule *found = NULL;
  if (!r || !name)
    return NULL;
  pthread_mutex_lock(&r->lock);
  for (size_t i = r->n; i-- > 0 && !found;)
    if (strcmp(r->rules[i]->function, name) == 0)
      found = r->rules[i];
  pthread_mutex_unlock(&r->lock);
  return found;
}

/* ---- which rule a call gets ---- */

/* The in-IR pair of fn (!enzyme_gradient), 0 or -1 when it has none. */
static int in_ir_pair(LLVMValueRef fn, LLVMValueRef *aug, LLVMValueRef *rev) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  unsigned kind = LLVMGetMDKindIDInContext(c, AD_GRADIENT_MD,
                                           sizeof AD_GRADIENT_MD - 1);
  size_t n = 0;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(fn, &n);
  int found = -1;
  for (unsigned i = 0; md && i < n && found; i++) {
    if (LLVMValueMetadataEntriesGetKind(md, i) != kind)
      continue;
    LLVMValueRef node =
        LLVMMetadataAsValue(c, LLVMValueMetadataEntriesGetMetadata(md, i));
    if (LLVMGetMDNodeNumOperands(node) != 2)
      continue;
    LLVMValueRef ops[2];
    LLVMGetMDNodeOperands(node, ops);
    LLVMValueRef a = ad_strip_casts(ops[0], AD_STRIP_INT_CASTS);
    LLVMValueRef r = ad_strip_casts(ops[1], AD_STRIP_INT_CASTS);
    if (a && r && LLVMIsAFunction(a) && LLVMIsAFunction(r)) {
      *aug = a;
      *rev = r;
      found = 0;
    }
  }
  if (md)
    LLVMDisposeValueMetadataEntries(md);
  return found;
}

LLVMValueRef ad_rev_custom_gradient_of(LLVMValueRef fn) {
  LLVMValueRef a, r;
  return fn && in_ir_pair(fn, &a, &r) == 0 ? r : NULL;
}

static const rev_rule *api_rule(ad_module_ctx *mc, LLVMValueRef call,
                                LLVMValueRef fn) {
  ad_rev_rules *rules = ad_engine_rev_rules(mc->engine);
  if (!rules)
    return NULL;
  pthread_mutex_lock(&rules->lock); /* registrations may race with this */
  size_t count = rules->n;
  pthread_mutex_unlock(&rules->lock);
  if (!count)
    return NULL;
  size_t n;
  const char *plain = LLVMGetValueName2(fn, &n);
  const rev_rule *found = registered(rules, plain);
  if (!found) {
    char buf[256];
    const char *name = ad_call_rule_name(mc->engine, call, buf, sizeof buf);
    if (name && strcmp(name, plain) != 0)
      found = registered(rules, name);
  }
  return found;
}

int ad_rev_custom_applies(ad_module_ctx *mc, LLVMValueRef call) {
  LLVMValueRef fn = ad_called_function(call);
  LLVMValueRef a, r;
  return fn && (in_ir_pair(fn, &a, &r) == 0 || api_rule(mc, call, fn));
}

/* ---- the plan of one call ---- */

typedef struct custom_plan {
  LLVMValueRef aug, rev;     /* aug may be NULL (an API rule without) */
  LLVMTypeRef rev_type;      /* the type rev is called with */
  LLVMValueRef tape;         /* the aug's tape value (its own vmap key) */
  LLVMTypeRef adjoints;      /* {T...} of the float scalar params, or NULL */
  unsigned nfloat;
  /* per call argument: the copy of the memory it points to that the
   * reverse reads instead (custom_inputs.c), or NULL */
  LLVMValueRef *kept;
} custom_plan;

void ad_rev_custom_free(ad_rev_fn *r) {
  for (size_t i = 0; i < r->custom.cap; i++)
    if (r->custom.keys[i]) {
      custom_plan *p = r->custom.vals[i];
      free(p->kept);
      free(p);
    }
  ad_map_free(&r->custom);
}

static int is_float_scalar(LLVMTypeRef t) { return ad_type_is_float_scalar(t); }

static int is_pointer(LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMPointerTypeKind;
}

static int fail(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef fn,
                const char *why) {
  return ad_fail_code(r->mc, TANJIT_ERR_DIFFERENTIATE, call,
                      "reverse mode: the custom gradient of %s: %s",
                      ad_value_name(fn), why);
}

/* The argument list both functions start with: every argument, a pointer
 * followed by its shadow (NULL when inactive).  `reverse`: the values the
 * reverse body sees. */
static unsigned rule_args(ad_rev_fn *r, LLVMValueRef call, int reverse,
                          LLVMValueRef *const kept, LLVMValueRef *out) {
  unsigned n = LLVMGetNumArgOperands(call), k = 0;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef a = LLVMGetOperand(call, i);
    if (reverse && kept && kept[i])
      out[k++] = ad_rev_custom_kept_address(r, ad_rev_primal(r, kept[i]));
    else
      out[k++] = reverse ? ad_rev_primal(r, a) : ad_primal(&r->fc, a);
    if (!is_pointer(LLVMTypeOf(a)))
      continue;
    if (ad_is_active(&r->fc, a) && ad_shadow_or_null(&r->fc, a))
      out[k++] = reverse ? ad_rev_shadow(r, a) : ad_shadow_value(&r->fc, a);
    else
      out[k++] = LLVMConstNull(LLVMTypeOf(a));
  }
  return k;
}

static LLVMValueRef call_fn(LLVMBuilderRef b, LLVMValueRef fn, LLVMTypeRef t,
                            LLVMValueRef *args, unsigned n, LLVMValueRef at) {
  LLVMValueRef c = LLVMBuildCall2(b, t, fn, args, n, "");
  LLVMSetInstructionCallConv(c, LLVMGetInstructionCallConv(at));
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(at);
  if (loc)
    LLVMInstructionSetDebugLoc(c, loc);
  return c;
}

/* What the reverse function's result must hold, and the types both
 * functions take under the API convention. */
static int plan_types(ad_rev_fn *r, LLVMValueRef call, custom_plan *p,
                      LLVMTypeRef *params, unsigned *nparams) {
  unsigned n = LLVMGetNumArgOperands(call), k = 0;
  LLVMTypeRef floats[64];
  p->nfloat = 0;
  for (unsigned i = 0; i < n; i++) {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(call, i));
    params[k++] = t;
    if (is_pointer(t))
      params[k++] = t;
    if (is_float_scalar(t)) {
      if (p->nfloat == 64)
        return -1;
      floats[p->nfloat++] = t;
    }
  }
  *nparams = k;
  p->adjoints = p->nfloat ? LLVMStructTypeInContext(r->mc->llctx, floats,
                                                    p->nfloat, 0)
                          : NULL;
  return 0;
}

int ad_rev_custom_aug(ad_rev_fn *r, LLVMValueRef call) {
  ad_fn_ctx *fc = &r->fc;
  ad_module_ctx *mc = r->mc;
  LLVMValueRef fn = ad_called_function(call);
  unsigned n = LLVMGetNumArgOperands(call);
  int active = ad_is_active(fc, call);
  for (unsigned i = 0; i < n && !active; i++)
    active = ad_is_active(fc, LLVMGetOperand(call, i));
  if (!active)
    return ad_clone(fc, call) ? 0 : -1;
  LLVMTypeRef rt = LLVMTypeOf(call);
  if (active && ad_is_active(fc, call) && is_pointer(rt))
    return fail(r, call, fn,
                "a function returning an active pointer is not supported "
                "(return it through an argument)");
  custom_plan *p = tj_calloc(1, sizeof *p);
  LLVMTypeRef *params = tj_malloc((2 * n + 3) * sizeof *params);
  LLVMValueRef *args = tj_malloc((2 * n + 3) * sizeof *args);
  int rc = 0;
  if (!p || !params || !args || ad_map_put(&r->custom, call, p) != 0) {
    free(p);
    rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    goto out;
  }
  unsigned np = 0;
  if (plan_types(r, call, p, params, &np) != 0) {
    rc = fail(r, call, fn, "more than 64 float parameters");
    goto out;
  }
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  int float_result = is_float_scalar(rt);
  LLVMValueRef aug_f = NULL, rev_f = NULL;
  const rev_rule *api = NULL;
  if (in_ir_pair(fn, &aug_f, &rev_f) != 0) {
    api = api_rule(mc, call, fn);
    if (!api) {
      rc = fail(r, call, fn, "the rule disappeared");
      goto out;
    }
    if (api->augmented)
      aug_f = ad_get_or_declare(mc->mod, api->augmented,
                                LLVMFunctionType(ptr, params, np, 0));
    params[np] = rt;
    params[np + float_result] = ptr;
    LLVMTypeRef res = p->nfloat == 1 ? LLVMStructGetTypeAtIndex(p->adjoints, 0)
                      : p->nfloat    ? p->adjoints
                                     : LLVMVoidTypeInContext(mc->llctx);
    p->rev_type = LLVMFunctionType(res, params,
                                   np + float_result + (aug_f ? 1 : 0), 0);
    rev_f = ad_get_or_declare(mc->mod, api->reverse, p->rev_type);
  } else {
    p->rev_type = LLVMGlobalGetValueType(rev_f);
    /* Enzyme's signature gives every pointer a shadow the rule may
     * accumulate into; an inactive one has none (Enzyme refuses the
     * rule's type there too), and NULL would crash the user's reverse */
    for (unsigned i = 0; i < n && rc == 0; i++) {
      LLVMValueRef a = LLVMGetOperand(call, i);
      if (is_pointer(LLVMTypeOf(a)) &&
          !(ad_is_active(fc, a) && ad_shadow_or_null(fc, a)))
        rc = ad_fail_code(
            mc, TANJIT_ERR_DIFFERENTIATE, call,
            "reverse mode: the custom gradient of %s: argument %u (a pointer) "
            "is inactive at this call (enzyme_const, or memory no active "
            "value reaches), so it has no shadow to pass after it; the "
            "rule's functions take one after every pointer (make the "
            "argument enzyme_dup, with a shadow, at the request)",
            ad_value_name(fn), i + 1);
    }
    if (rc)
      goto out;
  }
  p->aug = aug_f;
  p->rev = rev_f;
  unsigned k = rule_args(r, call, 0, NULL, args);
  LLVMValueRef primal = NULL;
  if (api) {
    if (aug_f)
      p->tape = call_fn(fc->b, aug_f, LLVMFunctionType(ptr, params, np, 0),
                        args, k, call);
    if (!ad_clone(fc, call))
      rc = -1;
    goto record;
  }
  /* in IR: aug_f's own type says what it returns */
  LLVMTypeRef at = LLVMGlobalGetValueType(aug_f);
  if (LLVMCountParamTypes(at) != np) {
    rc = fail(r, call, fn,
              "its augmented function takes a different number of "
              "parameters than the call's arguments with a shadow after "
              "each pointer");
    goto out;
  }
  LLVMValueRef res = call_fn(fc->b, aug_f, at, args, k, call);
  LLVMTypeRef art = LLVMGetReturnType(at);
  int void_fn = LLVMGetTypeKind(rt) == LLVMVoidTypeKind;
  if (LLVMGetTypeKind(art) == LLVMVoidTypeKind) {
    /* nothing returned */
  } else if (!void_fn && art == rt) {
    primal = res;
  } else if (LLVMGetTypeKind(art) == LLVMStructTypeKind &&
             LLVMCountStructElementTypes(art) == (void_fn ? 1u : 2u) &&
             (void_fn || LLVMStructGetTypeAtIndex(art, 1) == rt)) {
    p->tape = LLVMBuildExtractValue(fc->b, res, 0, "custom.tape");
    if (!void_fn)
      primal = LLVMBuildExtractValue(fc->b, res, 1, "");
  } else {
    p->tape = res;
  }
  if (!void_fn && !primal && LLVMGetFirstUse(call)) {
    if (!ad_clone(fc, call))
      rc = -1;
  } else if (primal && ad_map_put(&fc->vmap, call, primal) != 0) {
    rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  {
    LLVMTypeRef revt = LLVMGlobalGetValueType(rev_f);
    unsigned want = np + (unsigned)float_result + (p->tape ? 1u : 0u);
    LLVMTypeRef rr = LLVMGetReturnType(revt);
    if (rc == 0 && LLVMCountParamTypes(revt) != want)
      rc = fail(r, call, fn,
                "its reverse function takes a different number of "
                "parameters than the call's arguments (a shadow after each "
                "pointer), the result's adjoint (a float result) and the "
                "tape (when the augmented function returns one)");
    else if (rc == 0 && p->nfloat &&
             (LLVMGetTypeKind(rr) == LLVMVoidTypeKind ||
              LLVMABISizeOfType(mc->td, rr) <
                  LLVMABISizeOfType(mc->td, p->adjoints)))
      rc = fail(r, call, fn,
                "its reverse function must return the adjoints of the "
                "float parameters (a value, or a struct of them in order)");
  }
record:
  /* after the rule's augmented half (and the primal call): what its
   * reverse reads through its pointer arguments */
  if (rc == 0 && !(p->kept = tj_calloc(n ? n : 1, sizeof *p->kept)))
    rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  for (unsigned i = 0; i < n && rc == 0; i++)
    if (is_pointer(LLVMTypeOf(LLVMGetOperand(call, i))))
      rc = ad_rev_custom_keep_input(r, call, LLVMGetOperand(call, i),
                                    &p->kept[i]);
  /* the tape is read back in rev from the block's record, keyed by
   * itself: it has no primal value.  It is a call or an extractvalue of
   * one, which the record never recomputes (tape.c), so it is stored */
  if (rc == 0 && p->tape && ad_map_put(&fc->vmap, p->tape, p->tape) != 0)
    rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
out:
  free(params);
  free(args);
  return rc;
}

int ad_rev_custom_reverse(ad_rev_fn *r, LLVMValueRef call) {
  custom_plan *p = ad_map_get(&r->custom, call);
  ad_module_ctx *mc = r->mc;
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef *args = tj_malloc((2 * n + 3) * sizeof *args);
  if (!args)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  unsigned k = rule_args(r, call, 1, p->kept, args);
  LLVMTypeRef rt = LLVMTypeOf(call);
  if (ad_type_is_float_scalar(rt))
    args[k++] = ad_rev_has_adjoint(r, call) ? ad_rev_take(r, call)
                                            : LLVMConstNull(rt);
  if (p->tape)
    args[k++] = ad_rev_primal(r, p->tape);
  LLVMTypeRef revt = p->rev_type;
  LLVMValueRef res = call_fn(r->rb, p->rev, revt, args, k, call);
  free(args);
  for (unsigned i = 0; i < n; i++)
    if (p->kept[i])
      ad_rev_shadow_free(mc, r->rb, ad_rev_primal(r, p->kept[i]));
  if (!p->nfloat)
    return 0;
  LLVMValueRef *d = tj_malloc(p->nfloat * sizeof *d);
  if (!d)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  LLVMTypeRef have = LLVMTypeOf(res);
  if (p->nfloat == 1 && have == LLVMStructGetTypeAtIndex(p->adjoints, 0)) {
    d[0] = res;
  } else if (have == p->adjoints) {
    for (unsigned j = 0; j < p->nfloat; j++)
      d[j] = LLVMBuildExtractValue(r->rb, res, j, "");
  } else {
    /* a C struct clang coerced (<2 x float>, {double, double}...): the
     * same bytes, read as the adjoints' layout */
    LLVMValueRef slot = ad_entry_alloca(r->rev, have, "custom.adjoints");
    LLVMBuildStore(r->rb, res, slot);
    for (unsigned j = 0; j < p->nfloat; j++) {
      LLVMValueRef at = LLVMBuildStructGEP2(r->rb, p->adjoints, slot, j, "");
      d[j] = LLVMBuildLoad2(r->rb, LLVMStructGetTypeAtIndex(p->adjoints, j),
                            at, "");
    }
  }
  unsigned j = 0;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef a = LLVMGetOperand(call, i);
    if (!is_float_scalar(LLVMTypeOf(a)))
      continue;
    ad_rev_accumulate(r, a, d[j++], NULL);
  }
  free(d);
  return 0;
}
