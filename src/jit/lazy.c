/*
 * Lazy compilation (TANJIT_COMPILE_LAZY): a module is differentiated whole
 * at its first lookup, as in eager mode (its requests may reach any of its
 * functions), and then split instead of optimized:
 *
 *   the module          keeps its data (globals) and is compiled at once;
 *                       its functions become declarations
 *   each function F     becomes a body `tanjit.lazy.<id>.F`, a custom
 *                       materialization unit that, when first looked up,
 *                       cuts F out of the differentiated module's bitcode,
 *                       optimizes and compiles it alone and hands the object
 *                       to the object linking layer
 *   the name F          a lazy re-export of that body (LLVMOrcLazyReexports):
 *                       a stub whose first call looks the body up
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/Comdat.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

#define BODY_PREFIX "tanjit.lazy."

/* The differentiated module's bitcode, shared by its bodies. */
typedef struct lazy_source {
  atomic_uint refs;
  LLVMMemoryBufferRef bitcode;
  char *module_name; /* for messages */
  strmap attached;   /* private functions that go with a body (partition.c) */
} lazy_source;

typedef struct lazy_body {
  tanjit_session *session;
  lazy_source *source;
  unsigned long module_id;
  char *function; /* its name in the module */
  char *body;     /* the symbol it is compiled under */
} lazy_body;

static void source_release(lazy_source *src) {
  if (!src || atomic_fetch_sub(&src->refs, 1) != 1)
    return;
  if (src->bitcode)
    LLVMDisposeMemoryBuffer(src->bitcode);
  free(src->module_name);
  jit_partition_attached_free(&src->attached);
  free(src);
}

static void body_free(lazy_body *b) {
  if (!b)
    return;
  source_release(b->source);
  free(b->function);
  free(b->body);
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

/* Whether a function belongs to body b: b's function, or a private
 * function that goes with it. */
static int in_body(void *p, const char *name, size_t len) {
  const lazy_body *b = p;
  if (strlen(b->function) == len && memcmp(b->function, name, len) == 0)
    return 1;
  char stack[256];
  if (len >= sizeof stack)
    return 0; /* (engine-made names are short; a long one is declared) */
  memcpy(stack, name, len);
  stack[len] = '\0';
  const char *home = strmap_get(&b->source->attached, stack);
  return home && strcmp(home, b->function) == 0;
}

/* Function `b->function` alone, from the module's bitcode, as `b->body`,
 * optimized and compiled to an object; NULL with *err.  Under jit_lock
 * (the session's pass target machine). */
static LLVMMemoryBufferRef compile_body(const lazy_body *b, tanjit_error **err) {
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
  LLVMValueRef self = m ? LLVMGetNamedFunction(m, b->function) : NULL;
  if (m && (!self || LLVMIsDeclaration(self))) {
    tj_fail(err, TANJIT_ERR_INTERNAL, "%s: no function %s to compile",
            b->source->module_name, b->function);
  } else if (m) {
    LLVMSetValueName2(self, b->body, strlen(b->body));
    LLVMSetLinkage(self, LLVMExternalLinkage);
    LLVMSetVisibility(self, LLVMDefaultVisibility);
    LLVMSetComdat(self, NULL);
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
    jit_lazy_body_state *st = strmap_get(&s->modules[i].lazy_bodies, b->function);
    if (st && e && !st->failure) {
      st->failure = tj_strdup(tanjit_error_message(e));
      st->failure_code = tanjit_error_get_code(e);
    }
    break;
  }
  jit_session_unlock(s);
}

static void materialize_body(void *ctx, LLVMOrcMaterializationResponsibilityRef mr) {
  lazy_body *b = ctx;
  tanjit_session *s = b->session;
  snprintf(failed_function, sizeof failed_function, "%s", b->function);
  if (!jit_frontend_lookup) /* a call through a stub: nothing cleared it */
    memset(&jit_thread_bind_failure, 0, sizeof jit_thread_bind_failure);
  pthread_mutex_lock(&s->jit_lock);
  tanjit_error *e = NULL;
  LLVMMemoryBufferRef obj = compile_body(b, &e);
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

int jit_lazy_split(tanjit_session *s, LLVMModuleRef m, unsigned long id,
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
  size_t n_aliases = 0;
  if (!aliases || !src) {
    free(aliases);
    free(src);
    goto oom;
  }
  atomic_init(&src->refs, 1);
  strmap_init(&src->attached);
  if (jit_partition_prepare(s, m, id, mr, &src->attached, err)) {
    free(aliases);
    source_release(src);
    goto done;
  }
  LLVMErrorRef e = NULL;
  src->bitcode = LLVMWriteBitcodeToMemoryBuffer(m);
  jit_session_lock(s);
  jit_module *rec = NULL;
  for (size_t i = 0; i < s->n_modules; i++)
    if (s->modules[i].id == id)
      rec = &s->modules[i];
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
    strbuf body;
    sb_init(&body);
    sb_printf(&body, BODY_PREFIX "%lu.%.*s", id, (int)len, name);
    lazy_body *b = tj_calloc(1, sizeof *b);
    jit_lazy_body_state *st = tj_calloc(1, sizeof *st);
    if (body.failed || !b || !st || !(b->function = tj_strndup(name, len)) ||
        !(b->body = tj_strdup(body.data)) || !(st->body = tj_strdup(body.data))) {
      sb_free(&body);
      body_free(b);
      body_state_free(st);
      e = LLVMCreateStringError("out of memory");
      break;
    }
    sb_free(&body);
    b->session = s;
    b->module_id = id;
    b->source = src;
    atomic_fetch_add(&src->refs, 1);
    LLVMJITSymbolFlags body_flags = {LLVMJITSymbolGenericFlagsExported |
                                         LLVMJITSymbolGenericFlagsCallable,
                                     0};
    if ((e = jit_partition_claim(s, mr, b->body, body_flags))) {
      body_free(b);
      body_state_free(st);
      break;
    }
    LLVMOrcCSymbolFlagsMapPair sym = {LLVMOrcExecutionSessionIntern(es, b->body),
                                      body_flags};
    LLVMOrcMaterializationUnitRef mu = LLVMOrcCreateCustomMaterializationUnit(
        b->body, b, &sym, 1, NULL, materialize_body, discard_body, destroy_body);
    aliases[n_aliases++] = (LLVMOrcCSymbolAliasMapPair){
        LLVMOrcExecutionSessionIntern(es, b->function),
        {LLVMOrcExecutionSessionIntern(es, st->body), flags}};
    if (k) { /* the frontend's name: tanjit_lookup compiles its body */
      jit_session_lock(s);
      for (size_t i = 0; i < s->n_modules; i++)
        if (s->modules[i].id == id && s->modules[i].lazy) {
          body_state_free(strmap_get(&s->modules[i].lazy_bodies, b->function));
          if (strmap_put(&s->modules[i].lazy_bodies, b->function, st))
            e = LLVMCreateStringError("out of memory");
          else
            st = NULL;
        }
      jit_session_unlock(s);
    }
    body_state_free(st);
    if (e) {
      LLVMOrcDisposeMaterializationUnit(mu);
      break;
    }
    if ((e = LLVMOrcMaterializationResponsibilityReplace(mr, mu)))
      break;
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
  strmap_free(&known_flags);
  LLVMOrcDisposeCSymbolFlagsMap(known);
  return rc;
}
