/*
 * Lazy compilation (TANJIT_COMPILE_LAZY): a module is split at its first
 * lookup instead of optimized:
 *
 *   the module          keeps its data (globals) and is compiled at once;
 *                       its functions become declarations
 *   each function F     becomes a body `tanjit.lazy.<id>.F`, a custom
 *                       materialization unit that, when first looked up,
 *                       cuts F out of the module's bitcode, optimizes and
 *                       compiles it alone and hands the object to the
 *                       object linking layer
 *   the name F          a lazy re-export of that body (LLVMOrcLazyReexports):
 *                       a stub whose first call looks the body up
 *
 * Derivative requests are differentiated when the function holding them
 * is first compiled, not at the split: the functions holding requests are
 * joined into groups (request_groups.c), each group's holders share one
 * body, and compiling it cuts the holders and what their requests reach
 * out of the module, differentiates their requests there, and compiles
 * the holders with the derivatives made for them.  So a request in a
 * function never called is never differentiated, and its error fails
 * only that function's first lookup or call.  A module whose requests
 * cannot be differentiated apart with the bits of a whole-module
 * transform (request_groups.c says when) is differentiated whole before
 * its split.
 *
 * So a function is compiled when first called (or looked up by
 * tanjit_lookup, which compiles the body so that its errors are returned),
 * and code calls every other function through its stub.  Module-private
 * functions and mutable globals were promoted to hidden names at load;
 * what the engine adds (derivatives, shadow globals) is promoted here, so
 * every function and every global has one definition the bodies share.
 *
 * Bodies compile under the session's jit_lock, with its pass target
 * machine: never inside another materialization (bodies are reached only
 * through stubs and tanjit_lookup), so a thread compiling a body waits for
 * no symbol while holding the lock.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/Comdat.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

#define BODY_PREFIX "tanjit.lazy."

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The differentiated module's bitcode, shared by its bodies. */
typedef struct lazy_source {
  atomic_uint refs;
  LLVMMemoryBufferRef bitcode;
  char *module_name; /* for messages */
  strmap attached;   /* private functions that go with a body (partition.c) */
  /* requests not yet differentiated (groups.n_groups > 0 or not): */
  int deferred;
  jit_request_groups groups;
} lazy_source;

/* One body: a function, or the holders of a group of requests. */
typedef struct lazy_body {
  tanjit_session *session;
  lazy_source *source;
  unsigned long module_id;
  size_t group;      /* its group of requests (1..), or 0: one function */
  size_t n;
  char **functions;  /* their names in the module */
  char **bodies;     /* the symbols they are compiled under */
} lazy_body;

static void source_release(lazy_source *src) {
  if (!src || atomic_fetch_sub(&src->refs, 1) != 1)
    return;
  if (src->bitcode)
    LLVMDisposeMemoryBuffer(src->bitcode);
  free(src->module_name);
  jit_partition_attached_free(&src->attached);
  jit_request_groups_free(&src->groups);
  free(src);
}

static void body_free(lazy_body *b) {
  if (!b)
    return;
  source_release(b->source);
  for (size_t i = 0; i < b->n; i++) {
    free(b->functions[i]);
    free(b->bodies[i]);
  }
  free(b->functions);
  free(b->bodies);
  free(b);
}

/* What a failed call through a stub reports (lazy_call_failed). */
static _Thread_local tanjit_session *failed_session;
static _Thread_local char failed_text[1024];
static _Thread_local char failed_function[256];

void jit_lazy_note_reported(tanjit_session *s, const char *msg) {
  /* the call-through's own "Failed to materialize" follows the reason */
  if (failed_session == s && failed_text[0] &&
      strncmp(msg, "Failed to materialize", 21) == 0)
    return;
  failed_session = s;
  snprintf(failed_text, sizeof failed_text, "%s", msg);
}

typedef struct zero_pair {
  long long i;
  double d;
} zero_pair;

/* The call-through manager's error handler: a call reached a function
 * whose body cannot be compiled.  The caller expects a value that does not
 * exist: the session's unresolved-call handler hears of it (the default
 * prints one line and aborts); if it returns, the caller reads zero (the
 * integer and float return registers, as stub.c's stubs do). */
static zero_pair lazy_call_failed(void) {
  tanjit_session *s = failed_session;
  char why[1400];
  if (jit_thread_transform_error)
    snprintf(why, sizeof why, "%s", tanjit_error_message(jit_thread_transform_error));
  else if (jit_thread_bind_failure.kind == JIT_BIND_FAILED_UNDEFINED)
    snprintf(why, sizeof why, "cannot compile it: unresolved external %s",
             jit_thread_bind_failure.name);
  else if (jit_thread_bind_failure.kind != JIT_BIND_FAILED_NONE)
    snprintf(why, sizeof why, "cannot compile it: %s", jit_thread_bind_failure.why);
  else
    snprintf(why, sizeof why, "cannot compile it: %s",
             failed_text[0] ? failed_text : "unknown error");
  const char *what = failed_function[0] ? failed_function : "a lazily compiled function";
  failed_text[0] = '\0';
  if (s) {
    jit_report_runtime_failure(s, what, why);
  } else {
    fprintf(stderr, "tanjit: call to %s: %s\n", what, why);
    fflush(stderr);
    abort();
  }
  return (zero_pair){0, 0};
}

int jit_lazy_init(tanjit_session *s, tanjit_error **err) {
  const char *triple = LLVMOrcLLJITGetTripleString(s->jit);
  LLVMOrcExecutionSessionRef es = LLVMOrcLLJITGetExecutionSession(s->jit);
  LLVMErrorRef e = LLVMOrcCreateLocalLazyCallThroughManager(
      triple, es, (LLVMOrcJITTargetAddress)(uintptr_t)lazy_call_failed,
      &s->lazy_call_through);
  if (e) {
    s->lazy_call_through = NULL;
    return tj_fail_llvm(err, TANJIT_ERR_UNSUPPORTED, e,
                        "lazy compilation is not available for this target");
  }
  s->lazy_stubs = LLVMOrcCreateLocalIndirectStubsManager(triple);
  if (!s->lazy_stubs)
    return tj_fail(err, TANJIT_ERR_UNSUPPORTED,
                   "lazy compilation is not available for %s (no stubs manager)",
                   triple);
  return 0;
}

void jit_lazy_dispose_call_through(tanjit_session *s) {
  if (s->lazy_call_through)
    LLVMOrcDisposeLazyCallThroughManager(s->lazy_call_through);
  s->lazy_call_through = NULL;
}

void jit_lazy_dispose(tanjit_session *s) {
  jit_lazy_dispose_call_through(s);
  if (s->lazy_stubs)
    LLVMOrcDisposeIndirectStubsManager(s->lazy_stubs);
  s->lazy_stubs = NULL;
}

static void body_state_free(void *p) {
  jit_lazy_body_state *st = p;
  if (!st)
    return;
  free(st->body);
  free(st->failure);
  free(st);
}

void jit_lazy_record_free(jit_module *rec) {
  if (!rec->lazy)
    return;
  for (size_t i = 0; i < rec->n_defined; i++)
    body_state_free(strmap_get(&rec->lazy_bodies, rec->defined[i]));
  strmap_free(&rec->lazy_bodies);
}

jit_lazy_body_state *jit_lazy_body_of(tanjit_session *s, const char *symbol) {
  for (size_t i = 0; i < s->n_modules; i++) {
    jit_module *rec = &s->modules[i];
    if (!rec->lazy)
      continue;
    jit_lazy_body_state *st = strmap_get(&rec->lazy_bodies, symbol);
    if (st)
      return st;
  }
  return NULL;
}

/* Whether a function belongs to body b: for one function, it or a private
 * function that goes with it; for a group, its holders and what their
 * requests reach (the derivatives are made after the cut). */
static int in_body(void *p, const char *name, size_t len) {
  const lazy_body *b = p;
  char stack[256];
  char *key = len < sizeof stack ? stack : tj_malloc(len + 1);
  if (!key)
    return 0; /* (declared: the compile then fails for want of it) */
  memcpy(key, name, len);
  key[len] = '\0';
  int in;
  if (b->group) {
    in = (uintptr_t)strmap_get(&b->source->groups.member, key) == b->group;
  } else {
    const char *home = strmap_get(&b->source->attached, key);
    in = strcmp(key, b->functions[0]) == 0 || (home && strcmp(home, b->functions[0]) == 0);
  }
  if (key != stack)
    free(key);
  return in;
}

static int is_private(LLVMValueRef g) {
  LLVMLinkage l = LLVMGetLinkage(g);
  return l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

static unsigned long count_requests(LLVMModuleRef m) {
  unsigned long n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (ad_is_request_function(f))
      for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u))
        n++;
  return n;
}

/* Appends .lazy<k> to the name of each private definition of m. */
static int rename_private(LLVMValueRef g, unsigned long k) {
  size_t len;
  const char *name = LLVMGetValueName2(g, &len);
  strbuf unique;
  sb_init(&unique);
  sb_printf(&unique, "%.*s.lazy%lu", (int)len, len ? name : "anon", k);
  if (unique.failed)
    return -1;
  LLVMSetValueName2(g, unique.data, unique.len);
  sb_free(&unique);
  return 0;
}

/*
 * Group b's requests, cut out of the module into m with the bodies they
 * reach, differentiated as the whole module's transform differentiates
 * them (request_groups.c); then the reached functions are declarations
 * again (their own bodies compile them) and what the engine made is
 * named and claimed as a split module's is (partition.c), under names of
 * this body's own.  Under jit_lock.  0, or -1 with *err.
 */
static int differentiate_group(const lazy_body *b, LLVMModuleRef m,
                               LLVMOrcMaterializationResponsibilityRef mr,
                               tanjit_error **err) {
  tanjit_session *s = b->session;
  unsigned long requests = count_requests(m);
  unsigned long lookups0 = ad_engine_rule_lookups(s->ad);
  unsigned long sites0 = ad_engine_call_sites(s->ad);
  double t0 = seconds_now();
  if (ad_transform_module(s->ad, m, err) || jit_verify_differentiated(m, err))
    return -1;
  double t1 = seconds_now();
  jit_session_lock(s);
  s->stats.requests += requests;
  s->stats.differentiate_seconds += t1 - t0;
  s->stats.rule_lookups += ad_engine_rule_lookups(s->ad) - lookups0;
  s->stats.call_sites += ad_engine_call_sites(s->ad) - sites0;
  jit_session_unlock(s);
  if (jit_partition_mark_boundaries(m))
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
  strmap own; /* the holders this body defines (a weak one may have lost) */
  strmap_init(&own);
  for (size_t i = 0; i < b->n; i++)
    if (strmap_put(&own, b->functions[i], (void *)1)) {
      strmap_free(&own);
      return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
    }
  unsigned long k = s->next_derivative_id++; /* (under jit_lock) */
  int failed = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !failed; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f))
      continue;
    if (is_private(f)) {
      failed = rename_private(f, k);
    } else if (!strmap_get(&own, LLVMGetValueName2(f, &(size_t){0}))) {
      jit_drop_body(f); /* reached, or another module's: compiled apart */
      LLVMSetLinkage(f, LLVMExternalLinkage);
      LLVMSetComdat(f, NULL);
    }
  }
  strmap_free(&own);
  if (failed)
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
  for (LLVMValueRef v = LLVMGetFirstGlobal(m); v; v = LLVMGetNextGlobal(v))
    if (!LLVMIsDeclaration(v) && is_private(v) && rename_private(v, k))
      return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
  strmap attached;
  strmap_init(&attached);
  int rc = jit_partition_prepare(s, m, b->module_id, mr, &attached, err);
  jit_partition_attached_free(&attached);
  return rc;
}

/* Body b's functions from the module's bitcode (a group's requests
 * differentiated), under their body names, optimized and compiled to an
 * object; NULL with *err.  Under jit_lock (the session's pass target
 * machine). */
static LLVMMemoryBufferRef compile_body(const lazy_body *b,
                                        LLVMOrcMaterializationResponsibilityRef mr,
                                        tanjit_error **err) {
  tanjit_session *s = b->session;
  if (!s->pass_tm && !(s->pass_tm = jit_host_target_machine(s->opt_level, err)))
    return NULL;
  LLVMContextRef ctx = LLVMContextCreate();
  jit_install_diagnostics(ctx, s);
  jit_clear_diagnostic_errors();
  LLVMMemoryBufferRef view = LLVMCreateMemoryBufferWithMemoryRange(
      LLVMGetBufferStart(b->source->bitcode), LLVMGetBufferSize(b->source->bitcode),
      b->source->module_name, 0);
  LLVMMemoryBufferRef obj = NULL;
  LLVMModuleRef m = jit_partition_extract(ctx, view, in_body, (void *)b, err);
  int rc = m ? 0 : -1;
  if (rc == 0 && b->group)
    rc = differentiate_group(b, m, mr, err);
  else if (rc == 0 && b->source->deferred && b->source->groups.prepare)
    rc = ad_prepare_module(s->ad, m, err); /* as a transform would have */
  for (size_t i = 0; rc == 0 && i < b->n; i++) {
    LLVMValueRef self = LLVMGetNamedFunction(m, b->functions[i]);
    if (!self || LLVMIsDeclaration(self)) {
      rc = tj_fail(err, TANJIT_ERR_INTERNAL, "%s: no function %s to compile",
                   b->source->module_name, b->functions[i]);
      break;
    }
    LLVMSetValueName2(self, b->bodies[i], strlen(b->bodies[i]));
    LLVMSetLinkage(self, LLVMExternalLinkage);
    LLVMSetVisibility(self, LLVMDefaultVisibility);
    LLVMSetComdat(self, NULL);
  }
  if (rc == 0) {
    double seconds[2];
    obj = jit_partition_compile(s->pass_tm, m, s->opt_level, seconds, err);
    jit_session_lock(s);
    s->stats.optimize_seconds += seconds[0];
    s->stats.codegen_seconds += seconds[1];
    jit_session_unlock(s);
  }
  if (m)
    LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return obj;
}

static void note_body(tanjit_session *s, const lazy_body *b, const tanjit_error *e) {
  jit_session_lock(s);
  for (size_t i = 0; i < s->n_modules; i++) {
    if (s->modules[i].id != b->module_id || !s->modules[i].lazy)
      continue;
    for (size_t k = 0; k < b->n; k++) {
      jit_lazy_body_state *st = strmap_get(&s->modules[i].lazy_bodies, b->functions[k]);
      if (st && e && !st->failure) {
        st->failure = tj_strdup(tanjit_error_message(e));
        st->failure_code = tanjit_error_get_code(e);
      }
    }
    break;
  }
  jit_session_unlock(s);
}

static void materialize_body(void *ctx, LLVMOrcMaterializationResponsibilityRef mr) {
  lazy_body *b = ctx;
  tanjit_session *s = b->session;
  snprintf(failed_function, sizeof failed_function, "%s", b->functions[0]);
  if (!jit_frontend_lookup) /* a call through a stub: nothing cleared it */
    memset(&jit_thread_bind_failure, 0, sizeof jit_thread_bind_failure);
  pthread_mutex_lock(&s->jit_lock);
  tanjit_error *e = NULL;
  LLVMMemoryBufferRef obj = compile_body(b, mr, &e);
  if (!obj) {
    tj_error_prefix(e, "%s", b->source->module_name);
    note_body(s, b, e);
    LLVMOrcMaterializationResponsibilityFailMaterialization(mr);
    LLVMOrcDisposeMaterializationResponsibility(mr);
    tanjit_error_free(jit_thread_transform_error);
    jit_thread_transform_error = e;
  } else {
    /* takes mr and obj; a link failure (an unresolved external) reaches
     * the lookup, with the resolver's reason on this thread */
    LLVMOrcObjectLayerEmit(LLVMOrcLLJITGetObjLinkingLayer(s->jit), mr, obj);
  }
  pthread_mutex_unlock(&s->jit_lock);
  body_free(b);
}

static void discard_body(void *ctx, LLVMOrcJITDylibRef jd,
                         LLVMOrcSymbolStringPoolEntryRef symbol) {
  (void)ctx, (void)jd, (void)symbol; /* bodies have unique strong names */
}

static void destroy_body(void *ctx) { body_free(ctx); }

/* Adds function `name` compiled as `body` to b; 0, or -1 on out of memory. */
static int body_add(lazy_body *b, const char *name, size_t len, const char *body) {
  char **f = tj_realloc(b->functions, (b->n + 1) * sizeof *f);
  if (!f)
    return -1;
  b->functions = f;
  char **d = tj_realloc(b->bodies, (b->n + 1) * sizeof *d);
  if (!d)
    return -1;
  b->bodies = d;
  if (!(b->functions[b->n] = tj_strndup(name, len)))
    return -1;
  if (!(b->bodies[b->n] = tj_strdup(body))) {
    free(b->functions[b->n]);
    return -1;
  }
  b->n++;
  return 0;
}

static lazy_body *body_new(tanjit_session *s, lazy_source *src, unsigned long id,
                           size_t group) {
  lazy_body *b = tj_calloc(1, sizeof *b);
  if (!b)
    return NULL;
  b->session = s;
  b->module_id = id;
  b->group = group;
  b->source = src;
  atomic_fetch_add(&src->refs, 1);
  return b;
}

/* The materialization unit of body b (taken), replacing those symbols in mr. */
static LLVMErrorRef body_unit(tanjit_session *s, lazy_body *b,
                              LLVMOrcMaterializationResponsibilityRef mr) {
  LLVMOrcExecutionSessionRef es = LLVMOrcLLJITGetExecutionSession(s->jit);
  LLVMJITSymbolFlags body_flags = {LLVMJITSymbolGenericFlagsExported |
                                       LLVMJITSymbolGenericFlagsCallable,
                                   0};
  LLVMOrcCSymbolFlagsMapPairs syms = tj_calloc(b->n, sizeof *syms);
  if (!syms) {
    body_free(b);
    return LLVMCreateStringError("out of memory");
  }
  for (size_t i = 0; i < b->n; i++)
    syms[i] = (LLVMOrcCSymbolFlagsMapPair){LLVMOrcExecutionSessionIntern(es, b->bodies[i]),
                                           body_flags};
  LLVMOrcMaterializationUnitRef mu = LLVMOrcCreateCustomMaterializationUnit(
      b->bodies[0], b, syms, b->n, NULL, materialize_body, discard_body, destroy_body);
  free(syms);
  return LLVMOrcMaterializationResponsibilityReplace(mr, mu);
}

int jit_lazy_split(tanjit_session *s, LLVMModuleRef m, unsigned long id,
                   jit_request_groups *groups,
                   LLVMOrcMaterializationResponsibilityRef mr,
                   tanjit_error **err) {
  LLVMOrcExecutionSessionRef es = LLVMOrcLLJITGetExecutionSession(s->jit);
  LLVMOrcJITDylibRef jd = LLVMOrcMaterializationResponsibilityGetTargetDylib(mr);
  size_t n_known = 0;
  LLVMOrcCSymbolFlagsMapPairs known =
      LLVMOrcMaterializationResponsibilityGetSymbols(mr, &n_known);
  strmap known_flags; /* name -> index + 1 into `known` */
  strmap_init(&known_flags);
  int rc = -1;
  lazy_body **group_bodies = NULL;
  size_t n_groups = groups ? groups->n_groups : 0;
  for (size_t i = 0; i < n_known; i++)
    if (strmap_put(&known_flags, LLVMOrcSymbolStringPoolEntryStr(known[i].Name),
                   (void *)(uintptr_t)(i + 1)))
      goto oom;

  size_t n_functions = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    n_functions++;
  LLVMOrcCSymbolAliasMapPairs aliases =
      tj_calloc(n_functions ? n_functions : 1, sizeof *aliases);
  lazy_source *src = tj_calloc(1, sizeof *src);
  group_bodies = tj_calloc(n_groups ? n_groups : 1, sizeof *group_bodies);
  size_t n_aliases = 0;
  if (!aliases || !src || !group_bodies) {
    free(aliases);
    free(src);
    goto oom;
  }
  atomic_init(&src->refs, 1);
  strmap_init(&src->attached);
  if (groups) { /* taken */
    src->deferred = 1;
    src->groups = *groups;
    memset(groups, 0, sizeof *groups);
  } else {
    strmap_init(&src->groups.holders);
    strmap_init(&src->groups.member);
  }
  if (jit_partition_prepare(s, m, id, mr, &src->attached, err)) {
    free(aliases);
    source_release(src);
    goto done;
  }
  LLVMErrorRef e = NULL;
  src->bitcode = LLVMWriteBitcodeToMemoryBuffer(m);
  jit_session_lock(s);
  jit_module *rec = jit_module_by_id(s, id);
  src->module_name = tj_strdup(rec ? rec->name : "<module>");
  jit_session_unlock(s);
  if (!src->bitcode || !src->module_name) {
    free(aliases);
    source_release(src);
    goto oom;
  }

  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f))
      continue;
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (strmap_get(&src->attached, name))
      continue; /* compiled with the body of its one user */
    uintptr_t k = (uintptr_t)strmap_get(&known_flags, name);
    LLVMJITSymbolFlags flags;
    if (k)
      flags = known[k - 1].Flags;
    else if (LLVMGetVisibility(f) == LLVMHiddenVisibility)
      flags = jit_partition_flags(f, 0); /* promoted just now, and claimed */
    else
      continue; /* a weak definition another module's won over */
    size_t group = (uintptr_t)strmap_get(&src->groups.holders, name);
    strbuf body;
    sb_init(&body);
    sb_printf(&body, BODY_PREFIX "%lu.%.*s", id, (int)len, name);
    lazy_body *b = group ? group_bodies[group - 1] : NULL;
    int fresh = !b;
    if (fresh && (b = body_new(s, src, id, group)) && group)
      group_bodies[group - 1] = b;
    jit_lazy_body_state *st = tj_calloc(1, sizeof *st);
    if (body.failed || !b || !st || body_add(b, name, len, body.data) ||
        !(st->body = tj_strdup(body.data))) {
      sb_free(&body);
      if (fresh && !group)
        body_free(b);
      body_state_free(st);
      e = LLVMCreateStringError("out of memory");
      break;
    }
    sb_free(&body);
    const char *body_name = b->bodies[b->n - 1];
    LLVMJITSymbolFlags body_flags = {LLVMJITSymbolGenericFlagsExported |
                                         LLVMJITSymbolGenericFlagsCallable,
                                     0};
    if ((e = jit_partition_claim(s, mr, body_name, body_flags))) {
      if (!group)
        body_free(b);
      body_state_free(st);
      break;
    }
    aliases[n_aliases++] = (LLVMOrcCSymbolAliasMapPair){
        LLVMOrcExecutionSessionIntern(es, b->functions[b->n - 1]),
        {LLVMOrcExecutionSessionIntern(es, st->body), flags}};
    if (k) { /* the frontend's name: tanjit_lookup compiles its body */
      jit_session_lock(s);
      jit_module *rec = jit_module_by_id(s, id);
      if (rec && rec->lazy) {
        body_state_free(strmap_get(&rec->lazy_bodies, name));
        if (strmap_put(&rec->lazy_bodies, name, st))
          e = LLVMCreateStringError("out of memory");
        else
          st = NULL;
      }
      jit_session_unlock(s);
    }
    body_state_free(st);
    if (e) {
      if (!group)
        body_free(b);
      break;
    }
    if (!group && (e = body_unit(s, b, mr)))
      break;
  }
  /* a group's body defines all of its holders */
  for (size_t g = 0; g < n_groups; g++) {
    lazy_body *b = group_bodies[g];
    if (b && e)
      body_free(b);
    else if (b && (e = body_unit(s, b, mr)))
      continue; /* (the rest are freed above) */
  }
  source_release(src); /* the bodies hold their own references */
  if (!e && n_aliases)
    e = LLVMOrcMaterializationResponsibilityReplace(
        mr, LLVMOrcLazyReexports(s->lazy_call_through, s->lazy_stubs, jd, aliases,
                                 n_aliases));
  else
    for (size_t i = 0; i < n_aliases; i++) { /* not taken by anything */
      LLVMOrcReleaseSymbolStringPoolEntry(aliases[i].Name);
      LLVMOrcReleaseSymbolStringPoolEntry(aliases[i].Entry.Name);
    }
  free(aliases);
  if (e) {
    rc = tj_fail_llvm(err, TANJIT_ERR_LINK, e, "cannot split the module for lazy compilation");
    goto done;
  }
  jit_partition_keep_data(m); /* what stays is the data */
  rc = 0;
  goto done;
oom:
  rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory splitting a module");
done:
  if (groups) /* (emptied when taken) */
    jit_request_groups_free(groups);
  free(group_bodies);
  strmap_free(&known_flags);
  LLVMOrcDisposeCSymbolFlagsMap(known);
  return rc;
}
