/*
 * Reverse pairs: one `augmented_<f>` and one `diffe<f>` per (function,
 * parameter activities, result needs), cached per module transform and
 * built from a worklist (a body that calls g only declares g's pair), so
 * recursion and long call chains never nest builds.
 *
 *   augmented_f(params..., shadow after each DUP param, tape)
 *       -> the primal result, or {primal, shadow} for a pointer result
 *   diffe_f(params..., shadow after each DUP param, [d result], tape)
 *       -> { adjoint of each OUT param, in order }, or void
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/analysis/types.h"
#include "ad/core/cfg.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"
#include "common/strbuf.h"

typedef struct rev_entry {
  ad_rev_sig sig;
  ad_rev_pair pair;
  int built;
  /* the first indirect call it was asked for as a possible target of, and
   * that target (a wrapper's function), for its errors */
  LLVMValueRef via_indirect, as_target;
} rev_entry;

struct ad_rev_state {
  rev_entry *e;
  size_t n, cap;
};

void ad_rev_state_free(ad_module_ctx *mc) {
  struct ad_rev_state *s = mc->rev;
  if (!s)
    return;
  for (size_t i = 0; i < s->n; i++)
    free(s->e[i].sig.activity);
  free(s->e);
  free(s);
  mc->rev = NULL;
}

/* Every pair (declare() below) and every tanjit.* helper reverse mode
 * defines (ad_define_internal) carries the mark ad_add_generated_function
 * sets: the mark decides, not a name a program's own function could have. */
int ad_rev_is_generated(ad_module_ctx *mc, LLVMValueRef fn) {
  (void)mc;
  return ad_is_generated_function(fn);
}

/* FNV-1a, 64 bits. */
static unsigned long long fnv(unsigned long long h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ s[i]) * 0x100000001b3ull;
  return h;
}

unsigned long long ad_rev_sig_tag(const ad_rev_sig *sig) {
  size_t n;
  const char *name = LLVMGetValueName2(sig->fn, &n);
  unsigned long long h = fnv(0xcbf29ce484222325ull, name, n);
  unsigned char rest[3] = {(unsigned char)sig->nparams, sig->ret_adjoint,
                           sig->ret_shadow};
  h = fnv(h, rest, sizeof rest);
  h = fnv(h, sig->activity, sig->nparams);
  if (sig->parallel)
    h = fnv(h, "parallel", 8);
  if (sig->lanes_undo)
    h = fnv(h, "lanes_undo", 10);
  return h ? h : 1; /* 0 marks a consumed tape */
}

const ad_rev_sig *ad_rev_sig_by_tag(ad_module_ctx *mc, unsigned long long tag) {
  for (size_t i = 0; mc->rev && i < mc->rev->n; i++)
    if (ad_rev_sig_tag(&mc->rev->e[i].sig) == tag)
      return &mc->rev->e[i].sig;
  return NULL;
}

static int sig_equal(const ad_rev_sig *a, const ad_rev_sig *b) {
  return a->fn == b->fn && a->nparams == b->nparams &&
         a->ret_adjoint == b->ret_adjoint && a->ret_shadow == b->ret_shadow &&
         a->back_to_back == b->back_to_back && a->parallel == b->parallel &&
         a->lanes_undo == b->lanes_undo &&
         memcmp(a->activity, b->activity, a->nparams) == 0;
}

/* Parameter types of aug (extra: 0) or rev (1: the result's adjoint). */
static LLVMTypeRef pair_type(ad_module_ctx *mc, const ad_rev_sig *sig,
                             int reverse) {
  LLVMTypeRef ft = LLVMGlobalGetValueType(sig->fn);
  unsigned n = LLVMCountParamTypes(ft);
  LLVMTypeRef *pt = tj_malloc((n ? n : 1) * sizeof *pt);
  LLVMTypeRef *out = tj_malloc((2 * n + 2) * sizeof *out);
  LLVMTypeRef *outs = tj_malloc((n ? n : 1) * sizeof *outs);
  if (!pt || !out || !outs) {
    free(pt);
    free(out);
    free(outs);
    return NULL;
  }
  LLVMGetParamTypes(ft, pt);
  unsigned k = 0, nouts = 0;
  for (unsigned i = 0; i < n; i++) {
    out[k++] = pt[i];
    if (ad_rev_has_shadow_param(sig->activity[i]))
      out[k++] = pt[i];
    if (sig->activity[i] == AD_REV_OUT) /* an integer: float bits */
      outs[nouts++] = ad_rev_bits_float(mc, pt[i]);
  }
  LLVMTypeRef r = LLVMGetReturnType(ft);
  if (reverse && sig->ret_adjoint)
    out[k++] = ad_rev_bits_float(mc, r);
  out[k++] = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMTypeRef rt;
  if (reverse) {
    rt = nouts ? LLVMStructTypeInContext(mc->llctx, outs, nouts, 0)
               : LLVMVoidTypeInContext(mc->llctx);
  } else if (sig->ret_shadow) {
    LLVMTypeRef two[2] = {r, r};
    rt = LLVMStructTypeInContext(mc->llctx, two, 2, 0);
  } else {
    rt = r;
  }
  LLVMTypeRef res = LLVMFunctionType(rt, out, k, 0);
  free(pt);
  free(out);
  free(outs);
  return res;
}

static LLVMValueRef declare(ad_module_ctx *mc, const char *prefix,
                            LLVMValueRef fn, LLVMTypeRef t) {
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, prefix);
  sb_append(&sb, ad_value_name(fn));
  if (sb.failed || !sb.data) {
    sb_free(&sb);
    return NULL;
  }
  LLVMValueRef d = ad_add_generated_function(mc->mod, sb.data, t);
  sb_free(&sb);
  LLVMSetLinkage(d, LLVMInternalLinkage);
  /* compiled as fn is: aug's recomputed values are the primal's, bit for
   * bit (a host FMA would fuse what fn's target leaves unfused) */
  ad_copy_fn_environment(fn, d);
  return d;
}

int ad_rev_get(ad_module_ctx *mc, const ad_rev_sig *sig, LLVMValueRef where,
               ad_rev_pair *out) {
  if (!mc->rev && !(mc->rev = tj_calloc(1, sizeof *mc->rev)))
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, where, "out of memory");
  struct ad_rev_state *s = mc->rev;
  for (size_t i = 0; i < s->n; i++)
    if (sig_equal(&s->e[i].sig, sig)) {
      *out = s->e[i].pair;
      return 0;
    }
  LLVMValueRef fn = sig->fn;
  /* calls to it use the rule (custom.c); a request on it directly would
   * differentiate its body, which could disagree with the rule */
  LLVMValueRef custom = ad_rev_custom_gradient_of(fn);
  if (custom)
    return ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, where,
                        "reverse mode: %s has a custom gradient (%s), which "
                        "is used for calls to it, not for a gradient of %s "
                        "itself: differentiate a function that calls it",
                        ad_value_name(fn), ad_value_name(custom),
                        ad_value_name(fn));
  if (LLVMCountBasicBlocks(fn) == 0)
    return ad_fail(mc, where, "cannot differentiate %s: it has no body here",
                   ad_value_name(fn));
  if (ad_reads_variadic_arguments(fn))
    return ad_fail(mc, where, "cannot differentiate variadic function %s",
                   ad_value_name(fn));
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 8;
    rev_entry *g = tj_realloc(s->e, cap * sizeof *g);
    if (!g)
      return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, where, "out of memory");
    s->e = g;
    s->cap = cap;
  }
  rev_entry *e = &s->e[s->n];
  memset(e, 0, sizeof *e);
  e->sig = *sig;
  e->sig.activity = tj_malloc(sig->nparams ? sig->nparams : 1);
  LLVMTypeRef at = pair_type(mc, sig, 0), rt = pair_type(mc, sig, 1);
  if (!e->sig.activity || !at || !rt) {
    free(e->sig.activity);
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, where, "out of memory");
  }
  memcpy(e->sig.activity, sig->activity, sig->nparams);
  e->pair.aug = declare(mc, "augmented_", fn, at);
  e->pair.rev = declare(mc, "diffe", fn, rt);
  if (!e->pair.aug || !e->pair.rev) {
    free(e->sig.activity);
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, where, "out of memory");
  }
  s->n++;
  *out = e->pair;
  return 0;
}

/* An integer OUT parameter holds a float's bits (calls.c gives integers
 * that activity only then): the callee's type analysis starts from that,
 * which its body alone may not show (clang -O1 stores the bits straight
 * into memory the caller reads as a double).  The analysis is kept in
 * fc->types, which activity analysis then uses. */
static int seed_float_bit_params(ad_rev_fn *r) {
  unsigned n = r->sig->nparams, any = 0;
  unsigned *bits = tj_calloc(n ? n : 1, sizeof *bits);
  if (!bits)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  for (unsigned i = 0; i < n; i++) {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(r->sig->fn, i));
    LLVMTypeRef f = ad_rev_bits_float(r->mc, t);
    if (r->sig->activity[i] == AD_REV_OUT && f != t &&
        LLVMGetTypeKind(t) == LLVMIntegerTypeKind)
      bits[i] = LLVMGetIntTypeWidth(t), any = 1;
  }
  if (any) {
    ad_module_ctx *mc = r->mc;
    r->fc.types = ad_types_analyze_params(mc->engine, mc->mod, mc->td,
                                          r->sig->fn, bits);
    if (!r->fc.types) {
      free(bits);
      return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    }
  }
  free(bits);
  return 0;
}

/* aug and rev take the parameters alike (a shadow after each DUP one):
 * a DUP pointer's shadow is another object (not AD_REV_DUP_RUNTIME's,
 * which may be the pointer itself; not an integer's, never dereferenced
 * as such). */
static void scope_disjoint_shadows(const ad_rev_sig *sig, LLVMValueRef f) {
  ad_disjoint_params pairs[AD_MAX_DISJOINT_PAIRS];
  unsigned npairs = 0, k = 0;
  for (unsigned i = 0; i < sig->nparams; i++) {
    unsigned at = k++;
    if (!ad_rev_has_shadow_param(sig->activity[i]))
      continue;
    unsigned shadow_at = k++;
    if (sig->activity[i] == AD_REV_DUP && npairs < AD_MAX_DISJOINT_PAIRS &&
        LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(sig->fn, i))) ==
            LLVMPointerTypeKind)
      pairs[npairs++] = (ad_disjoint_params){LLVMGetParam(f, at),
                                             LLVMGetParam(f, shadow_at), i};
  }
  ad_scope_disjoint_params(f, pairs, npairs);
}

static int build_entry(ad_module_ctx *mc, size_t idx) {
  mc->rev->e[idx].built = 1;
  rev_entry own = mc->rev->e[idx]; /* the array may move */
  ad_rev_fn r;
  memset(&r, 0, sizeof r);
  r.mc = mc;
  r.sig = &own.sig;
  r.aug = own.pair.aug;
  r.rev = own.pair.rev;
  unsigned n = own.sig.nparams;
  unsigned char *fact = tj_malloc(n ? n : 1);
  if (!fact)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  for (unsigned i = 0; i < n; i++)
    fact[i] = own.sig.activity[i] == AD_REV_CONST         ? AD_ARG_CONST
              : own.sig.activity[i] == AD_REV_DUP_RUNTIME ? AD_ARG_DUP_RUNTIME
                                                          : AD_ARG_DUP;
  /* a result whose adjoint or shadow the caller passes is, in forward
   * terms, one whose derivative is returned: activity keeps what computes
   * it (an i64 of a double's bits the caller reinterprets), and prunes an
   * integer result the caller only branches on */
  r.fsig = (ad_signature){own.sig.fn, n, fact, 1,
                          own.sig.ret_shadow || own.sig.ret_adjoint
                              ? AD_RET_TANGENT
                              : AD_RET_PRIMAL,
                          0, 0};
  ad_fn_ctx *fc = &r.fc;
  fc->mc = mc;
  fc->sig = &r.fsig;
  fc->primal_fn = own.sig.fn;
  fc->deriv_fn = r.aug;
  fc->width = 1;
  fc->b = LLVMCreateBuilderInContext(mc->llctx);
  ad_map_init(&fc->vmap);
  ad_map_init(&fc->shadow);
  ad_map_init(&fc->active);
  ad_map_init(&fc->exit_block);
  ad_map_init(&r.block_id);
  ad_map_init(&r.plans);
  ad_map_init(&r.adj);
  ad_map_init(&r.rparam);
  ad_map_init(&r.rshadow);
  ad_map_init(&r.custom);
  r.rb = LLVMCreateBuilderInContext(mc->llctx);
  r.eb = LLVMCreateBuilderInContext(mc->llctx);
  int rc = 0;
  unsigned ka = 0, kr = 0;
  for (unsigned i = 0; i < n && rc == 0; i++) {
    LLVMValueRef p = LLVMGetParam(own.sig.fn, i);
    LLVMValueRef ap = LLVMGetParam(r.aug, ka++), rp = LLVMGetParam(r.rev, kr++);
    ad_name_after(ap, p, "");
    ad_name_after(rp, p, "");
    if (ad_map_put(&fc->vmap, p, ap) != 0 || ad_map_put(&r.rparam, p, rp) != 0)
      rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    if (ad_rev_has_shadow_param(own.sig.activity[i])) {
      LLVMValueRef as = LLVMGetParam(r.aug, ka++), rs = LLVMGetParam(r.rev, kr++);
      ad_name_after(as, p, "'");
      ad_name_after(rs, p, "'");
      ad_set_shadow(fc, p, as);
      if (ad_map_put(&r.rshadow, p, rs) != 0)
        rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    }
  }
  if (own.sig.ret_adjoint) {
    r.dret = LLVMGetParam(r.rev, kr++);
    LLVMSetValueName2(r.dret, "dret", 4);
  }
  r.aug_tape = LLVMGetParam(r.aug, ka);
  r.rev_tape = LLVMGetParam(r.rev, kr);
  LLVMSetValueName2(r.aug_tape, "tape", 4);
  LLVMSetValueName2(r.rev_tape, "tape", 4);
  if (rc == 0 && !(r.rpo = ad_reverse_post_order(own.sig.fn, &r.nblocks)))
    rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  for (size_t i = 0; rc == 0 && i < r.nblocks; i++)
    if (ad_map_put(&r.block_id, LLVMBasicBlockAsValue(r.rpo[i]),
                   (void *)(uintptr_t)(i + 1)) != 0)
      rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  if (rc == 0 && !ad_activity_disabled())
    rc = seed_float_bit_params(&r);
  if (rc == 0)
    rc = ad_activity_analyze(fc);
  if (rc == 0)
    rc = ad_rev_plan_loops(&r);
  if (rc == 0)
    rc = ad_rev_build_aug(&r);
  if (rc == 0)
    rc = ad_rev_build_reverse(&r);
  if (rc == 0)
    rc = ad_rev_custom_finish_frees(&r);
  if (rc == 0 && !mc->diag.failed) {
    scope_disjoint_shadows(&own.sig, r.aug);
    scope_disjoint_shadows(&own.sig, r.rev);
  }
  ad_rev_free_plans(&r);
  ad_rev_loops_free(&r);
  ad_rev_custom_free(&r);
  ad_rev_cuda_free_plans(&r);
  ad_map_free(&r.recorded);
  ad_map_free(&fc->vmap);
  ad_map_free(&fc->shadow);
  ad_map_free(&fc->active);
  ad_map_free(&fc->exit_block);
  ad_types_free(fc->types);
  LLVMDisposeBuilder(fc->b);
  ad_map_free(&r.block_id);
  ad_map_free(&r.adj);
  ad_map_free(&r.rparam);
  ad_map_free(&r.rshadow);
  LLVMDisposeBuilder(r.rb);
  LLVMDisposeBuilder(r.eb);
  free(r.items);
  free(r.rpo);
  free(fact);
  return mc->diag.failed ? -1 : rc;
}

void ad_rev_note_indirect_target(ad_module_ctx *mc, const ad_rev_pair *pair,
                                 LLVMValueRef call, LLVMValueRef target) {
  for (size_t i = 0; mc->rev && i < mc->rev->n; i++)
    if (mc->rev->e[i].pair.aug == pair->aug && !mc->rev->e[i].built &&
        !mc->rev->e[i].via_indirect) {
      mc->rev->e[i].via_indirect = call;
      mc->rev->e[i].as_target = target;
    }
}

/* A possible target's failure may name a function the program never
 * calls there: the error says why it was differentiated. */
static void note_possible_target(ad_module_ctx *mc, const rev_entry *e) {
  if (!e->via_indirect || !mc->diag.err || !*mc->diag.err ||
      mc->diag.failed_code == TANJIT_ERR_NO_MEMORY)
    return;
  char *where = ad_location_text(e->via_indirect);
  strbuf sb;
  sb_init(&sb);
  sb_printf(&sb,
            "%s (%s is only a possible target of the indirect call%s: every "
            "function of its type whose address is taken must be "
            "differentiable in reverse mode, whether or not the call "
            "reaches it)",
            tanjit_error_message(*mc->diag.err), ad_value_name(e->as_target),
            where ? where : "");
  if (sb.data) {
    ad_strip_session_suffixes(sb.data);
    tj_error_set_message(*mc->diag.err, sb.data);
  }
  sb_free(&sb);
  free(where);
}

int ad_rev_build_all(ad_module_ctx *mc) {
  for (size_t i = 0; mc->rev && i < mc->rev->n; i++)
    if (!mc->rev->e[i].built && build_entry(mc, i) != 0) {
      note_possible_target(mc, &mc->rev->e[i]);
      return -1;
    }
  return mc->diag.failed ? -1 : 0;
}

LLVMValueRef ad_rev_emit_gradient(ad_module_ctx *mc, LLVMBuilderRef b,
                                  LLVMValueRef holder, const ad_rev_pair *p,
                                  LLVMValueRef *args, unsigned nargs,
                                  LLVMValueRef seed) {
  return ad_rev_emit_gradient_primal(mc, b, holder, p, args, nargs, seed, NULL);
}

/* The pair stays out of line in the request's caller, so that it
 * computes the primal's values as the primal compiled on its own does
 * (what fn_env.c's attributes are for, too).  Inlined there, code built
 * with fast-math's `reassoc` may fold the caller's arithmetic into the
 * primal's: Boost odeint's integrate_const (enzyme_rev integrateconst
 * -O1..-O3) takes dt = (i * 0.1) * (1/3) in its caller, and the backend's
 * fold to i * (0.1/3), one ulp off, ends the Euler loop a step early at
 * t = 8.1; the gradient is then the exact derivative of that other primal
 * (1.792 for (1 - 0.4t)^2, not -6.02 for (1 - 0.4t)^3).  The same
 * program without differentiation, its foobar inlined into main by
 * stock opt, takes 2 steps there too, and with `reassoc` and
 * unsafe-fp-math off the inlined pair is right: no annotation of the
 * pair's is false (tests/rev/primal_out_of_line.c).  Callees' pairs and
 * helpers still inline into the pair. */
static void keep_out_of_line(ad_module_ctx *mc, LLVMValueRef call) {
  unsigned kind = LLVMGetEnumAttributeKindForName("noinline", 8);
  LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute(mc->llctx, kind, 0));
}

/* Whether the function attribute `name` is on the call or its callee. */
static LLVMAttributeRef call_attribute(LLVMValueRef call, LLVMValueRef callee,
                                       const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAttributeRef a =
      LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind);
  return a ? a : LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex,
                                            kind);
}

/* A call LLVM may delete when its result is unused: to a function that
 * returns, never unwinds and writes no memory (`memory` with no Mod bit:
 * LLVM 19 keeps two bits, Ref and Mod, for each of its three locations). */
static int call_is_dead_if_unused(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (!LLVMIsAFunction(callee) || !call_attribute(call, callee, "nounwind") ||
      !call_attribute(call, callee, "willreturn"))
    return 0;
  LLVMAttributeRef m = call_attribute(call, callee, "memory");
  return m && (LLVMGetEnumAttributeValue(m) & 0x2a) == 0;
}

/* libm functions whose only effect is errno, set on a domain error
 * below zero (sqrt) or a pole or domain error at zero and below (log):
 * a call whose argument is never there has none (C11 7.12.7.5, 7.12.6.7). */
static const struct {
  const char *name;
  int positive; /* the argument must be positive, not only non-negative */
} errno_below_zero[] = {
    {"sqrt", 0},  {"sqrtf", 0},  {"sqrtl", 0},  {"log", 1},   {"logf", 1},
    {"logl", 1},  {"log2", 1},   {"log2f", 1},  {"log2l", 1}, {"log10", 1},
    {"log10f", 1}, {"log10l", 1},
};

/* A libm call (a declaration of that name) in errno_below_zero whose
 * argument is never where it sets errno. */
static int libm_call_sets_no_errno(LLVMValueRef call, LLVMValueRef callee) {
  if (LLVMGetFirstBasicBlock(callee) || LLVMGetNumArgOperands(call) != 1 ||
      !call_attribute(call, callee, "nounwind"))
    return 0;
  size_t n = 0;
  const char *name = LLVMGetValueName2(callee, &n);
  for (size_t k = 0; k < sizeof errno_below_zero / sizeof *errno_below_zero;
       k++)
    if (strcmp(name, errno_below_zero[k].name) == 0)
      return ad_math_never_negative(LLVMGetOperand(call, 0),
                                    errno_below_zero[k].positive);
  return 0;
}

/* Whether calling the built aug and dropping its result has no effect:
 * no store, atomic, fence, volatile load, invoke or call that may write,
 * unwind or not return.  Then it pushes nothing either (a push reserves
 * through a call), so the reverse pops nothing and the aug need not run:
 * sum of squares' gradient is its reverse alone, as Enzyme's is.  A
 * libm call that may set errno keeps the aug; n-body's sqrt of its
 * softened r2 cannot (libm_call_sets_no_errno). */
static int aug_has_no_effect(LLVMValueRef aug) {
  if (!LLVMGetFirstBasicBlock(aug))
    return 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(aug); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      switch (LLVMGetInstructionOpcode(i)) {
      case LLVMStore:
      case LLVMAtomicRMW:
      case LLVMAtomicCmpXchg:
      case LLVMFence:
      case LLVMVAArg:
      case LLVMInvoke:
      case LLVMCallBr:
      case LLVMResume:
      case LLVMUnreachable:
        return 0;
      case LLVMLoad:
        if (LLVMGetVolatile(i))
          return 0;
        break;
      case LLVMCall: {
        LLVMValueRef callee = LLVMGetCalledValue(i);
        if (!call_is_dead_if_unused(i) &&
            !(LLVMIsAFunction(callee) && libm_call_sets_no_errno(i, callee)))
          return 0;
        break;
      }
      default:
        break;
      }
    }
  return 1;
}

LLVMValueRef ad_rev_emit_gradient_primal(ad_module_ctx *mc, LLVMBuilderRef b,
                                         LLVMValueRef holder,
                                         const ad_rev_pair *p,
                                         LLVMValueRef *args, unsigned nargs,
                                         LLVMValueRef seed,
                                         LLVMValueRef *primal) {
  /* the header with the owned list; aug through its guard, which frees
   * what aug made when an exception leaves it (exceptions.c) */
  LLVMTypeRef tt = ad_rev_header_type(mc);
  LLVMValueRef tape = ad_entry_alloca(holder, tt, "tape");
  LLVMBuildStore(b, LLVMConstNull(tt), tape);
  LLVMValueRef aug = ad_rev_guarded_aug(mc, p->aug, 0);
  LLVMValueRef *a = aug ? tj_malloc((nargs + 2) * sizeof *a) : NULL;
  if (!a) {
    if (aug)
      ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    return NULL;
  }
  memcpy(a, args, nargs * sizeof *a);
  a[nargs] = tape;
  LLVMValueRef result = NULL;
  /* without aug nothing is pushed: no tape to size or free */
  int pushes = primal || !aug_has_no_effect(p->aug);
  if (pushes) {
    ad_rev_tape_begin(mc, b, p->aug, tape);
    result = LLVMBuildCall2(b, LLVMGlobalGetValueType(aug), aug, a, nargs + 1, "");
    keep_out_of_line(mc, result);
  }
  if (primal)
    *primal = result;
  unsigned k = nargs;
  if (seed)
    a[k++] = seed;
  a[k++] = tape;
  LLVMValueRef res =
      LLVMBuildCall2(b, LLVMGlobalGetValueType(p->rev), p->rev, a, k, "");
  free(a);
  keep_out_of_line(mc, res);
  if (pushes)
    ad_rev_tape_end(mc, b, p->aug, tape);
  return LLVMGetTypeKind(LLVMTypeOf(res)) == LLVMVoidTypeKind ? NULL : res;
}
