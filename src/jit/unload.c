/*
 * tanjit_unload: removing a module, and everything compiled against it.
 *
 * JIT-linked code holds the addresses of what it calls, so code compiled
 * against an unloaded module would call freed memory.  The policy:
 *
 *   - the module itself: its code and names are removed (its resource
 *     tracker: Remove, Release, then the dead pool entries cleared);
 *   - frontend modules whose compiled code refers to a removed module's
 *     names (transitively), or whose own requests were differentiated
 *     through its IR (views.c), are RE-LINKED: their code is removed and their
 *     pristine IR is added again, to compile at their next lookup against
 *     whatever then defines those names (a REPL redefining `f` sees `g`,
 *     which calls it, call the new `f`).  Their state (globals) starts
 *     afresh, and a lookup made before the names are defined again fails
 *     and removes the module like any failed compile;
 *   - run-time derivatives (tanjit_fwddiff) made while an unloaded module
 *     was loaded (they are built from its IR), and those whose code refers
 *     to a removed or re-linked module, are removed with their cache
 *     entries; a repeat request makes them anew.
 *
 * Every address handed out for a removed or re-linked module becomes
 * invalid.  Modules not yet compiled hold no addresses and stay as they are.
 * Which code refers to which names is recorded when each module is
 * transformed: its remaining declarations are what it links against.
 */
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

_Thread_local unsigned long jit_thread_views_upto;

void jit_record_references(jit_module *rec, LLVMModuleRef m) {
  rec->compiled = 1;
  rec->views_upto = jit_thread_views_upto;
  jit_thread_views_upto = 0;
  size_t cap = 0;
  for (int kind = 0; kind < 2; kind++)
    for (LLVMValueRef v = kind ? LLVMGetFirstGlobal(m) : LLVMGetFirstFunction(m); v;
         v = kind ? LLVMGetNextGlobal(v) : LLVMGetNextFunction(v)) {
      size_t len;
      const char *name = LLVMGetValueName2(v, &len);
      if (!LLVMIsDeclaration(v) || !len ||
          (kind == 0 && LLVMGetIntrinsicID(v) != 0))
        continue;
      if (rec->n_referenced == cap) {
        cap = cap ? 2 * cap : 16;
        char **p = tj_realloc(rec->referenced, cap * sizeof *p);
        if (!p) {
          rec->references_unknown = 1;
          return;
        }
        rec->referenced = p;
      }
      if (!(rec->referenced[rec->n_referenced] = tj_strndup(name, len))) {
        rec->references_unknown = 1;
        return;
      }
      rec->n_referenced++;
    }
}

enum { KEEP = 0, REMOVE, RELINK };

/* Whether compiled module m refers to a name in `gone`. */
static int refers_to(const jit_module *m, const strmap *gone) {
  if (m->references_unknown)
    return 1;
  for (size_t i = 0; i < m->n_referenced; i++)
    if (strmap_get(gone, m->referenced[i]))
      return 1;
  return 0;
}

static int add_definitions(strmap *gone, const jit_module *m) {
  for (size_t i = 0; i < m->n_defined; i++)
    if (strmap_put(gone, m->defined[i], (void *)1))
      return -1;
  return 0;
}

/* Marks the modules named `name`, then what was compiled against them.
 * Under the session lock.  Returns how many modules carry the name, or -1
 * on out of memory. */
static int mark(tanjit_session *s, const char *name, int *fate) {
  strmap gone;
  strmap_init(&gone);
  int named = 0, failed = 0;
  for (size_t i = 0; i < s->n_modules; i++)
    if (!s->modules[i].generated && strcmp(s->modules[i].name, name) == 0) {
      fate[i] = REMOVE;
      named++;
      failed |= add_definitions(&gone, &s->modules[i]);
    }
  /* A run-time derivative is built from the IR of every module loaded when
   * it was made (views.c), so one made after an unloaded module was loaded
   * may hold that module's code, inlined or differentiated: it goes, even
   * where its own code refers to none of the module's names. */
  unsigned long first_named = 0;
  for (size_t i = 0; i < s->n_modules; i++)
    if (fate[i] == REMOVE && (!first_named || s->modules[i].id < first_named))
      first_named = s->modules[i].id;
  for (size_t i = 0; i < s->n_modules && named; i++) {
    jit_module *m = &s->modules[i];
    if (fate[i] != KEEP)
      continue;
    /* likewise a module whose own requests went through views of it */
    if (m->generated ? m->id > first_named
                     : m->compiled && m->views_upto >= first_named) {
      fate[i] = m->generated ? REMOVE : RELINK;
      failed |= add_definitions(&gone, m);
    }
  }
  for (int changed = named > 0; changed && !failed;) {
    changed = 0;
    for (size_t i = 0; i < s->n_modules; i++) {
      jit_module *m = &s->modules[i];
      if (fate[i] != KEEP || !m->compiled || !refers_to(m, &gone))
        continue;
      fate[i] = m->generated ? REMOVE : RELINK;
      failed |= add_definitions(&gone, m);
      changed = 1;
    }
  }
  strmap_free(&gone);
  return failed ? -1 : named;
}

/* The addresses of the derivatives the generated modules marked for
 * removal hand out: their wrappers are already compiled, so the lookups
 * compile nothing. */
static void **removed_derivatives(tanjit_session *s, const int *fate,
                                  size_t *n_out) {
  void **out = tj_calloc(s->n_modules + 1, sizeof *out);
  *n_out = 0;
  if (!out)
    return NULL;
  for (size_t i = 0; i < s->n_modules; i++) {
    if (fate[i] != REMOVE || !s->modules[i].generated)
      continue;
    for (size_t k = 0; k < s->modules[i].n_defined; k++) {
      LLVMOrcExecutorAddress a = 0;
      LLVMErrorRef e = LLVMOrcLLJITLookup(s->jit, &a, s->modules[i].defined[k]);
      if (e)
        LLVMConsumeError(e);
      else if (a)
        out[(*n_out)++] = (void *)(uintptr_t)a;
      if (!e)
        break;
    }
  }
  return out;
}

/* The cache without the entries whose address is among `dead`. */
static void drop_cached(strmap *cache, void **dead, size_t n_dead) {
  strmap kept;
  strmap_init(&kept);
  for (size_t i = 0; i < cache->cap; i++) {
    if (!cache->keys[i])
      continue;
    int is_dead = 0;
    for (size_t k = 0; k < n_dead && !is_dead; k++)
      is_dead = cache->vals[i] == dead[k];
    /* out of memory drops the entry too: a cache miss is safe */
    if (!is_dead)
      (void)strmap_put(&kept, cache->keys[i], cache->vals[i]);
  }
  strmap_free(cache);
  *cache = kept;
}

typedef struct relink {
  char *name;
  LLVMMemoryBufferRef bytes; /* its source (loaded again) or pristine copy */
  int is_source;
} relink;

/* tanjit_unload's work, on a big stack: re-linking parses and validates. */
static int unload_here(tanjit_session *s, const char *module_name,
                       tanjit_error **err) {
  pthread_mutex_lock(&s->jit_lock);
  /* jit_lock keeps the module table as it is: additions and lookups (so
   * transforms) take it too. */
  size_t n = s->n_modules;
  int *fate = tj_calloc(n + 1, sizeof *fate);
  relink *again = tj_calloc(n + 1, sizeof *again);
  jit_session_lock(s);
  int named = fate && again ? mark(s, module_name, fate) : -1;
  jit_session_unlock(s);
  if (named <= 0) {
    pthread_mutex_unlock(&s->jit_lock);
    free(fate), free(again);
    return named < 0 ? tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory unloading %s",
                               module_name)
                     : tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                               "tanjit_unload: no module is loaded as '%s'",
                               module_name);
  }
  size_t n_dead = 0;
  void **dead = removed_derivatives(s, fate, &n_dead);

  jit_session_lock(s);
  size_t n_again = 0, kept = 0;
  for (size_t i = 0; i < n; i++) {
    jit_module *m = &s->modules[i];
    if (fate[i] == KEEP) {
      s->modules[kept++] = *m;
      continue;
    }
    LLVMErrorRef e = LLVMOrcResourceTrackerRemove(m->tracker);
    if (e)
      LLVMConsumeError(e); /* the code is gone or was never made */
    if (fate[i] == RELINK) {
      again[n_again].name = m->name;
      again[n_again].is_source = m->source != NULL;
      again[n_again++].bytes = m->source ? m->source : m->pristine;
      m->name = NULL;
      if (m->source)
        m->source = NULL;
      else
        m->pristine = NULL;
    }
    jit_forget_function_declarations(s, m); /* a re-link counts them again */
    jit_module_record_free(m);
  }
  s->n_modules = kept;
  if (dead)
    drop_cached(&s->derivatives, dead, n_dead);
  else { /* out of memory: forget every derivative rather than keep a dead one */
    strmap_free(&s->derivatives);
    strmap_init(&s->derivatives);
  }
  jit_session_unlock(s);
  LLVMOrcSymbolStringPoolClearDeadEntries(LLVMOrcExecutionSessionGetSymbolStringPool(
      LLVMOrcLLJITGetExecutionSession(s->jit)));

  int rc = 0;
  for (size_t k = 0; k < n_again; k++) {
    tanjit_error *e = NULL;
    jit_context c;
    jit_context_create(&c);
    LLVMModuleRef m = NULL;
    const void *bytes = LLVMGetBufferStart(again[k].bytes);
    size_t len = LLVMGetBufferSize(again[k].bytes);
    /* (its load's warnings are not given again) */
    jit_thread_quiet_warnings += again[k].is_source;
    int parsed = jit_parse_module(s, c.ctx, bytes, len, again[k].name, &m, &e) == 0 &&
                 jit_validate_module(s, m, again[k].name, &e) == 0;
    jit_thread_quiet_warnings -= again[k].is_source;
    if (parsed) {
      if (again[k].is_source)
        jit_session_add_loaded(s, &c, m, again[k].name, bytes, len, &e);
      else
        jit_session_add_module(s, &c, m, again[k].name, 0, &e);
    } else {
      if (m)
        LLVMDisposeModule(m);
      jit_context_abandon(&c);
    }
    if (e && rc == 0) {
      tj_error_prefix(e, "tanjit_unload of %s: cannot re-link %s, which was "
                         "compiled against it", module_name, again[k].name);
      if (err)
        *err = e;
      else
        tanjit_error_free(e);
      rc = -1;
    } else {
      tanjit_error_free(e);
    }
    free(again[k].name);
    LLVMDisposeMemoryBuffer(again[k].bytes);
  }
  jit_perf_map_update(s); /* forgets the freed objects */
  pthread_mutex_unlock(&s->jit_lock);
  free(fate), free(again), free(dead);
  return rc;
}

typedef struct unload_job {
  tanjit_session *session;
  const char *name;
  tanjit_error **err;
  int rc;
} unload_job;

static void unload_on_big_stack(void *p) {
  unload_job *j = p;
  j->rc = unload_here(j->session, j->name, j->err);
}

int tanjit_unload(tanjit_session *s, const char *module_name,
                  tanjit_error **err) {
  if (!s || !module_name)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_unload: session and module name are required");
  unload_job job = {s, module_name, err, -1};
  if (jit_on_big_stack())
    unload_on_big_stack(&job);
  else
    jit_run_on_big_stack(unload_on_big_stack, &job);
  return job.rc;
}
