/*
 * Entry point: one module's transform.  Finds every __enzyme_fwddiff and
 * __enzyme_autodiff request (rejecting split reverse mode), rewrites each through request.c, then drops
 * the request declarations and the activity-marker loads left dead.  The
 * globals that end up active are settled first, by analysis alone
 * (analysis/global_discovery.c).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "ad/ad.h"
#include "ad/analysis/globals.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/fwd/fwd.h"
#include "ad/ir/ir.h"
#include "ad/prep/prep.h"
#include "ad/registry/registry.h"
#include "ad/tangent/tangent.h"
#include "ad/request.h"
#include "ad/request_select.h"
#include "ad/rev/rev.h"
#include "ad/rules/rules.h"
#include "common/strbuf.h"

struct ad_engine {
  ad_custom_registry *custom; /* tanjit_register_fwd_rule (rules/custom.c) */
  ad_rev_rules *rev_rules;    /* tanjit_register_rev_rule (rev/custom.c) */
  ad_runtime_report report;   /* may be NULL */
  void *report_user;
  /* rule lookups that reached the families, over all transforms, and the
   * call sites of the modules those transforms differentiated */
  _Atomic unsigned long rule_lookups;
  /* tanjit_options.derivative_fp: zero (calloc) is the fast default */
  int strict_derivatives;
  _Atomic unsigned long call_sites;
};

void ad_engine_set_fast_derivatives(ad_engine *e, int fast) {
  e->strict_derivatives = !fast;
}

int ad_engine_fast_derivatives(const ad_engine *e) {
  return e && !e->strict_derivatives;
}

unsigned long ad_engine_rule_lookups(const ad_engine *e) {
  return e ? atomic_load(&e->rule_lookups) : 0;
}

unsigned long ad_engine_call_sites(const ad_engine *e) {
  return e ? atomic_load(&e->call_sites) : 0;
}

/* The calls (and invokes) in the bodies of m. */
static unsigned long count_call_sites(LLVMModuleRef m) {
  unsigned long n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        n += LLVMIsACallInst(i) || LLVMIsAInvokeInst(i);
  return n;
}

ad_engine *ad_engine_new(void) {
  ad_engine *e = tj_calloc(1, sizeof(ad_engine));
  if (e && (!(e->custom = ad_custom_registry_new()) ||
            !(e->rev_rules = ad_rev_rules_new()))) {
    ad_custom_registry_free(e->custom);
    free(e);
    return NULL;
  }
  return e;
}

void ad_engine_set_runtime_report(ad_engine *e, ad_runtime_report fn,
                                  void *user) {
  e->report = fn;
  e->report_user = user;
}

ad_runtime_report ad_engine_runtime_report(const ad_engine *e, void **user) {
  *user = e->report_user;
  return e->report;
}

ad_custom_registry *ad_engine_custom(const ad_engine *e) {
  return e ? e->custom : NULL;
}

ad_rev_rules *ad_engine_rev_rules(const ad_engine *e) {
  return e ? e->rev_rules : NULL;
}

void ad_engine_free(ad_engine *e) {
  if (!e)
    return;
  ad_custom_registry_free(e->custom);
  ad_rev_rules_free(e->rev_rules);
  free(e);
}

/* Enzyme recognises an entry point anywhere in the name, so that C++
 * declarations work: `template <typename T, typename... A> T
 * __enzyme_fwddiff(void *, A...)` is called as _Z16__enzyme_fwddiffIdJ...,
 * and C's asm("__enzyme_fwddiff") variants as __enzyme_fwddiff itself. */
static int name_contains(const char *s, size_t n, const char *word) {
  size_t w = strlen(word);
  for (size_t i = 0; i + w <= n; i++)
    if (memcmp(s + i, word, w) == 0)
      return 1;
  return 0;
}

/* Whether `name` is `word` itself or a C++ mangling of it (_Z<len><word>
 * followed by template arguments and parameter types). */
static int name_is(const char *s, size_t n, const char *word) {
  size_t w = strlen(word);
  if (n == w && memcmp(s, word, w) == 0)
    return 1;
  /* Every function of every module is asked this at load, several times
   * over: the mangled prefix is compared in place, never formatted. */
  if (n < 2 + w || s[0] != '_' || s[1] != 'Z')
    return 0;
  size_t i = 2, len = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9' && len <= w)
    len = 10 * len + (size_t)(s[i++] - '0');
  return i > 2 && s[2] != '0' && len == w && n - i >= w &&
         memcmp(s + i, word, w) == 0;
}

ad_request_kind ad_request_kind_of(LLVMValueRef f) {
  static const char *const split[] = {"__enzyme_augmentfwd", "__enzyme_reverse",
                                      "__enzyme_virtualreverse",
                                      "__enzyme_augmentsize"};
  size_t n;
  const char *name = LLVMGetValueName2(f, &n);
  int (*match)(const char *, size_t, const char *) =
      LLVMIsDeclaration(f) ? name_contains : name_is;
  if (match(name, n, "__enzyme_fwddiff"))
    return AD_REQUEST_FORWARD;
  if (match(name, n, "__enzyme_error_estimate"))
    return AD_REQUEST_ERROR;
  if (match(name, n, "__enzyme_batch"))
    return AD_REQUEST_BATCH;
  for (size_t i = 0; i < sizeof split / sizeof *split; i++)
    if (match(name, n, split[i]))
      return AD_REQUEST_SPLIT;
  if (match(name, n, "__enzyme_autodiff"))
    return AD_REQUEST_REVERSE;
  return AD_NOT_A_REQUEST;
}

int ad_is_request_function(LLVMValueRef f) {
  ad_request_kind k = ad_request_kind_of(f);
  return k == AD_REQUEST_FORWARD || k == AD_REQUEST_ERROR ||
         k == AD_REQUEST_REVERSE ||
         k == AD_REQUEST_BATCH || k == AD_REQUEST_SPLIT;
}

/* The calls to `fn` (collected first: rewriting changes the use list). */
static LLVMValueRef *calls_of(LLVMValueRef fn, size_t *count) {
  size_t n = 0, cap = 8;
  LLVMValueRef *out = tj_malloc(cap * sizeof *out);
  if (!out)
    return NULL;
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsACallInst(user) && !LLVMIsAInvokeInst(user))
      continue;
    if (n == cap) {
      LLVMValueRef *g = tj_realloc(out, cap * 2 * sizeof *out);
      if (!g) {
        free(out);
        return NULL;
      }
      out = g;
      cap *= 2;
    }
    out[n++] = user;
  }
  *count = n;
  return out;
}

/*
 * What each request's target reaches through calls, direct or indirect (an
 * indirect call reaches every function that may be its target, as
 * ad_emit_indirect_call in fwd/indirect.c differentiates every one of those),
 * computed once per target: requests are ordered by it, inner first.
 * Rewriting a request only removes a use of its target, so a set computed
 * earlier stays an over-approximation, which only orders requests.
 */
typedef struct reach_memo {
  ad_map sets;          /* target function -> ad_map * of reachable ones */
  LLVMValueRef *taken;  /* functions with a body whose address is taken */
  size_t ntaken;
  int oom;
} reach_memo;

static void reach_memo_init(reach_memo *r, LLVMModuleRef m) {
  memset(r, 0, sizeof *r);
  ad_map_init(&r->sets);
  size_t cap = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (!LLVMCountBasicBlocks(f) || !ad_function_address_taken(f))
      continue;
    if (r->ntaken == cap) {
      cap = cap ? 2 * cap : 16;
      LLVMValueRef *g = tj_realloc(r->taken, cap * sizeof *g);
      if (!g) {
        r->oom = 1;
        return;
      }
      r->taken = g;
    }
    r->taken[r->ntaken++] = f;
  }
}

static void reach_memo_free(reach_memo *r) {
  for (size_t i = 0; i < r->sets.cap; i++)
    if (r->sets.keys[i] && r->sets.vals[i]) {
      ad_map_free(r->sets.vals[i]);
      free(r->sets.vals[i]);
    }
  ad_map_free(&r->sets);
  free(r->taken);
}

/* Pushes `f` on the walk's stack unless seen; -1 on out of memory. */
static int walk_push(ad_map *seen, LLVMValueRef **stack, size_t *sp,
                     size_t *cap, LLVMValueRef f) {
  if (ad_map_get(seen, f))
    return 0;
  if (*sp == *cap) {
    LLVMValueRef *grown = tj_realloc(*stack, 2 * *cap * sizeof **stack);
    if (!grown)
      return -1;
    *stack = grown;
    *cap *= 2;
  }
  if (ad_map_put(seen, f, (void *)1) != 0)
    return -1;
  (*stack)[(*sp)++] = f;
  return 0;
}

/* The set of functions `target` reaches (itself included), or NULL on out
 * of memory. */
static ad_map *reach_set(reach_memo *r, LLVMValueRef target) {
  ad_map *seen = ad_map_get(&r->sets, target);
  if (seen)
    return seen;
  size_t sp = 0, cap = 64;
  LLVMValueRef *stack = tj_malloc(cap * sizeof *stack);
  seen = tj_malloc(sizeof *seen);
  if (seen)
    ad_map_init(seen);
  int failed = !stack || !seen || r->oom ||
               walk_push(seen, &stack, &sp, &cap, target) != 0;
  while (sp && !failed) {
    LLVMValueRef f = stack[--sp];
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && !failed;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !failed;
           i = LLVMGetNextInstruction(i)) {
        if ((!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i)) ||
            LLVMIsAInlineAsm(LLVMGetCalledValue(i)))
          continue;
        LLVMValueRef c = ad_called_function(i);
        if (c) {
          failed = LLVMCountBasicBlocks(c) &&
                   walk_push(seen, &stack, &sp, &cap, c) != 0;
          continue;
        }
        LLVMTypeRef ft = LLVMGetCalledFunctionType(i);
        for (size_t k = 0; k < r->ntaken && !failed; k++)
          failed = LLVMGlobalGetValueType(r->taken[k]) == ft &&
                   walk_push(seen, &stack, &sp, &cap, r->taken[k]) != 0;
      }
  }
  free(stack);
  if (failed || ad_map_put(&r->sets, target, seen) != 0) {
    if (seen) {
      ad_map_free(seen);
      free(seen);
    }
    return NULL;
  }
  return seen;
}

/* The function a request names, or NULL (request.c decodes it fully). */
static LLVMValueRef request_target(LLVMValueRef call) {
  LLVMValueRef target = LLVMGetNumArgOperands(call) ? LLVMGetOperand(call, 0) : NULL;
  if (target && !LLVMIsAFunction(target) && LLVMGetNumArgOperands(call) > 1)
    target = LLVMGetOperand(call, 1); /* after an sret pointer */
  return target && LLVMIsAFunction(target) ? target : NULL;
}

static LLVMValueRef holder_of(LLVMValueRef inst) {
  return LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst));
}

/* Whether the target of request `outer` reaches the function that holds
 * request `inner`. */
static int request_reaches(reach_memo *r, LLVMValueRef outer,
                           LLVMValueRef inner) {
  LLVMValueRef target = request_target(outer);
  if (!target)
    return 0;
  ad_map *reached = reach_set(r, target);
  /* out of memory: assume it does, which only orders requests */
  return !reached || ad_map_get(reached, holder_of(inner)) != NULL;
}

static const char *const marker_globals[] = {
    "enzyme_dup",   "enzyme_const",         "enzyme_dupnoneed",
    "enzyme_width", "enzyme_primal_return", "enzyme_dupv",
    "enzyme_out",   "enzyme_tape",          "enzyme_allocated",
    /* batch.c's */
    "enzyme_vector", "enzyme_scalar", "enzyme_buffer",
};

/* Marker loads feed only the (now erased) requests; a dead one would keep
 * an external declaration alive that nothing defines at link time. */
static void drop_dead_markers(LLVMModuleRef m) {
  for (size_t i = 0; i < sizeof marker_globals / sizeof *marker_globals; i++) {
    LLVMValueRef g = LLVMGetNamedGlobal(m, marker_globals[i]);
    if (!g)
      continue;
    LLVMUseRef u = LLVMGetFirstUse(g);
    while (u) {
      LLVMValueRef user = LLVMGetUser(u);
      u = LLVMGetNextUse(u);
      if (LLVMIsALoadInst(user) && !LLVMGetFirstUse(user) &&
          !LLVMGetVolatile(user))
        LLVMInstructionEraseFromParent(user);
    }
    if (!LLVMGetFirstUse(g) && LLVMIsDeclaration(g))
      LLVMDeleteGlobal(g);
  }
}

/* The calls to every request function of `m` into *all (and the
 * functions into *fns when non-NULL).  0, or -1 on out of memory. */
static int collect_requests(ad_module_ctx *mc, LLVMModuleRef m,
                            LLVMValueRef **all, size_t *nall,
                            LLVMValueRef **fns, size_t *nfns) {
  size_t cap = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (!ad_is_request_function(f))
      continue;
    if (fns) {
      LLVMValueRef *g = tj_realloc(*fns, (*nfns + 1) * sizeof *g);
      if (!g)
        return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
      *fns = g;
      (*fns)[(*nfns)++] = f;
    }
    size_t ncalls = 0;
    LLVMValueRef *calls = calls_of(f, &ncalls);
    if (!calls)
      return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    if (*nall + ncalls > cap) {
      cap = (*nall + ncalls) * 2;
      LLVMValueRef *g = tj_realloc(*all, cap * sizeof *g);
      if (!g) {
        free(calls);
        return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
      }
      *all = g;
    }
    if (ncalls)
      memcpy(*all + *nall, calls, ncalls * sizeof *calls);
    *nall += ncalls;
    free(calls);
  }
  return 0;
}

/*
 * Rewrites every request of `m` (mc set up), inner requests first.  A
 * function that reaches its own request (it requests its own derivative,
 * or one of a function that calls back into it) has that request cloned
 * into the derivative, where it is inactive (fwd/call.c refuses an
 * active one): it is a request of the derivative, for a derivative that
 * exists by then, so a second round rewrites it and finds nothing new.
 */
static int rewrite_requests(ad_module_ctx *mc, LLVMModuleRef m) {
  LLVMValueRef *req_fns = NULL;
  size_t nfns = 0;
  int rc = 0;
  for (int round = 0; rc == 0; round++) {
    LLVMValueRef *all = NULL;
    size_t nall = 0;
    /* one request per function (request_select.c), nested selects too */
    for (int split = 1; rc == 0 && split;)
      rc = ad_split_selected_requests(mc, &split);
    if (rc)
      break;
    rc = collect_requests(mc, m, &all, &nall, round ? NULL : &req_fns, &nfns);
    if (rc == 0 && nall && round == 4)
      rc = ad_fail(mc, all[0], "internal: requests inside derivatives did "
                               "not settle");
    if (rc || !nall) {
      free(all);
      break;
    }
    /* Inner requests first: a request whose target reaches (through calls,
     * direct or indirect) a function holding another pending request waits
     * for it, so the outer derivative differentiates the already rewritten
     * inner one. */
    reach_memo reach;
    reach_memo_init(&reach, m);
    while (rc == 0 && nall) {
      /* Sizes first, in any function: other requests' enzyme_allocated N
       * must read them as the constants they become (the pick below moves
       * the last request forward, so program order is not kept). */
      size_t pick = nall;
      for (size_t i = 0; i < nall && pick == nall; i++)
        if (ad_request_is_tape_size(all[i]))
          pick = i;
      for (size_t i = 0; i < nall && pick == nall; i++) {
        int blocked = 0;
        for (size_t j = 0; j < nall && !blocked; j++)
          if (j != i && request_reaches(&reach, all[i], all[j]))
            blocked = 1;
        if (!blocked) {
          pick = i;
          break;
        }
      }
      if (pick == nall) /* every one waits on another: a cycle */
        pick = 0;
      LLVMValueRef call = all[pick];
      all[pick] = all[--nall];
      rc = ad_request_kind_of(LLVMGetCalledValue(call)) == AD_REQUEST_BATCH
               ? ad_rewrite_batch(mc, call)
               : ad_rewrite_request(mc, call);
    }
    reach_memo_free(&reach);
    free(all);
  }
  for (size_t i = 0; rc == 0 && i < nfns; i++)
    if (!LLVMGetFirstUse(req_fns[i]))
      LLVMDeleteFunction(req_fns[i]);
  free(req_fns);
  if (rc == 0)
    rc = ad_rev_split_check(mc);
  if (rc == 0)
    drop_dead_markers(m);
  if (rc == 0)
    ad_rev_iter_finish(m); /* rev/nested.c */
  return rc;
}

/* A module context with nothing allocated yet: engine, module, errors. */
static void module_ctx_begin(ad_module_ctx *mc, ad_engine *e, LLVMModuleRef m,
                             tanjit_error **err) {
  memset(mc, 0, sizeof *mc);
  mc->engine = e;
  mc->mod = m;
  mc->llctx = LLVMGetModuleContext(m);
  mc->diag.err = err;
}

/* The storage of a module context's parts (context.h), for one transform. */
typedef struct module_parts {
  ad_derivative_cache derivatives;
  ad_active_globals globals;
  ad_global_shadows shadows;
  ad_rule_memo rules;
} module_parts;

static void module_parts_attach(ad_module_ctx *mc, module_parts *p) {
  ad_derivative_cache_init(&p->derivatives);
  ad_active_globals_init(&p->globals);
  ad_global_shadows_init(&p->shadows);
  ad_rule_memo_init(&p->rules);
  mc->derivatives = &p->derivatives;
  mc->globals = &p->globals;
  mc->shadows = &p->shadows;
  mc->rules = &p->rules;
}

static void module_parts_free(module_parts *p) {
  ad_derivative_cache_free(&p->derivatives);
  ad_active_globals_free(&p->globals);
  ad_global_shadows_free(&p->shadows);
  ad_rule_memo_free(&p->rules);
}

/* __enzyme_todense's pointers, once every request is rewritten: their
 * derivatives inlined, their loads and stores made calls (prep/todense.c) */
static int lower_todense(ad_module_ctx *mc, LLVMModuleRef m) {
  ad_todense_failure f;
  if (ad_lower_todense(m, &f) == 0)
    return 0;
  int rc = f.message ? ad_fail(mc, f.where, "%s", f.message)
                     : ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, f.where,
                                    "out of memory");
  free(f.message);
  return rc;
}

/* One transform of `m`: the active globals settled first
 * (analysis/global_discovery.c), then every request rewritten. */
static int transform(ad_engine *e, LLVMModuleRef m, tanjit_error **err) {
  ad_module_ctx mc;
  module_parts parts;
  module_ctx_begin(&mc, e, m, err);
  mc.td = LLVMCreateTargetData(LLVMGetDataLayoutStr(m));
  module_parts_attach(&mc, &parts);
  LLVMValueRef *requests = NULL;
  size_t nrequests = 0;
  int rc = collect_requests(&mc, m, &requests, &nrequests, NULL, NULL);
  if (rc == 0 && ad_discover_active_globals(&mc, requests, nrequests) < 0)
    rc = -1;
  free(requests);
  size_t settled = mc.globals->set.count;
  if (rc == 0)
    rc = rewrite_requests(&mc, m);
  if (rc == 0)
    ad_finish_shadow_reset(&mc);
  if (rc == 0)
    ad_settle_helper_environments(m);
  if (rc == 0)
    rc = lower_todense(&mc, m);
  if (rc == 0 && mc.globals->set.count != settled + mc.globals->made_active)
    rc = ad_fail(&mc, NULL,
                 "internal: a global became active while derivatives were "
                 "emitted, after discovery had finished");
  atomic_fetch_add(&e->rule_lookups, mc.rules->lookups);
  ad_rev_state_free(&mc);
  module_parts_free(&parts);
  LLVMDisposeTargetData(mc.td);
  return rc;
}

int ad_transform_module(ad_engine *e, LLVMModuleRef m, tanjit_error **err) {
  /* enough of a context for ad_fail's what/where/why */
  ad_module_ctx mc;
  module_ctx_begin(&mc, e, m, err);

  /* Enzyme's registration globals become attributes and metadata before
   * anything looks at calls (and never reach codegen). */
  if (ad_custom_read_registrations(m, 0, err))
    return -1;

  /* Requests first, so a module without any costs one pass over names
   * (__enzyme_todense is lowered even where nothing is differentiated). */
  size_t nreq = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (ad_is_request_function(f) || ad_is_todense_function(f))
      nreq++;
  }
  if (!nreq)
    return 0;
  if (ad_preprocess_module(m, err))
    return -1;
  atomic_fetch_add(&e->call_sites, count_call_sites(m));

  return transform(e, m, err);
}

int ad_prepare_module(ad_engine *e, LLVMModuleRef m, tanjit_error **err) {
  (void)e;
  if (ad_custom_read_registrations(m, 0, err))
    return -1;
  return ad_preprocess_module(m, err);
}
