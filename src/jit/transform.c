/*
 * The IR transform every module passes through before codegen:
 *
 *   ad_transform_module   replace derivative requests (src/ad)
 *   LLVMVerifyModule      the engine's output must be valid IR
 *   LLVMRunPasses         default<O{level}> for the session's level
 *
 * It also keeps the session's compile-cost totals (tanjit_session_stats):
 * the two phases above are timed here, and codegen is the time from the end
 * of this transform to the object layer's callback, which LLJIT runs on the
 * same thread right after the compile layer produced the object.
 *
 * ORC runs it when a symbol of the module is first looked up, on the looking
 * -up thread.  A failure disposes the module (ORC requires it) and records the
 * structured error for that lookup (session.c); ORC itself would only say
 * "Failed to materialize symbols".
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

_Thread_local int jit_thread_linked_views;

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* When this thread finished transforming the module it is now compiling;
 * 0 when none is in flight (an emit, or a failed transform). */
static _Thread_local double codegen_started;

static unsigned long count_requests(LLVMModuleRef m) {
  unsigned long n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (!ad_is_request_function(f))
      continue;
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsACallInst(user) && LLVMGetCalledValue(user) == f)
        n++;
    }
  }
  return n;
}

static void add_stats(tanjit_session *s, const tanjit_stats *d) {
  jit_session_lock(s);
  s->stats.modules += d->modules;
  s->stats.requests += d->requests;
  s->stats.differentiate_seconds += d->differentiate_seconds;
  s->stats.optimize_seconds += d->optimize_seconds;
  s->stats.codegen_seconds += d->codegen_seconds;
  s->stats.rule_lookups += d->rule_lookups;
  s->stats.call_sites += d->call_sites;
  jit_session_unlock(s);
}

void tanjit_session_stats_sized(tanjit_session *s, tanjit_stats *out,
                                size_t size) {
  if (!out)
    return;
  if (size > sizeof *out)
    size = sizeof *out;
  memset(out, 0, size);
  if (!s)
    return;
  jit_session_lock(s);
  memcpy(out, &s->stats, size);
  jit_session_unlock(s);
}

/* The entry point of callers built before the struct's size was passed:
 * they know the fields up to cache_errors. */
#undef tanjit_session_stats
void tanjit_session_stats(tanjit_session *s, tanjit_stats *out) {
  tanjit_session_stats_sized(s, out, offsetof(tanjit_stats, rule_lookups));
}

static int optimize_step(tanjit_session *s, LLVMModuleRef m, tanjit_error **err);

/* With `optimize` 0 (a module split into partitions, optimized one by
 * one in lazy.c or parallel.c): differentiate and verify only. */
static int transform_steps(tanjit_session *s, LLVMModuleRef m, int optimize,
                           tanjit_error **err) {
  codegen_started = 0;
  jit_cache_forget_expected(); /* a previous module's codegen failed */
  /* From here to the object layer's callback (codegen), an error
   * diagnostic on this thread is this module's. */
  jit_clear_diagnostic_errors();
  /* Transforms run under jit_lock (lookups, tanjit_emit_file), so one
   * target machine per session serves them all. */
  if (!s->pass_tm && !(s->pass_tm = jit_host_target_machine(s->opt_level, err)))
    return -1;
  LLVMTargetMachineRef tm = s->pass_tm;
  /* Before differentiation: the engine sizes shadow memory with the
   * module's data layout, which must be the one code is generated for. */
  if (!*LLVMGetDataLayoutStr(m)) {
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(m, dl);
    LLVMDisposeTargetData(dl);
  }
  unsigned long requests = count_requests(m);
  /* transforms run one at a time (above): the deltas are this module's */
  unsigned long lookups0 = ad_engine_rule_lookups(s->ad);
  unsigned long sites0 = ad_engine_call_sites(s->ad);
  double t0 = seconds_now();
  /* A request may differentiate through functions other modules define,
   * as a run-time request (tanjit_fwddiff) can. */
  strmap own;
  strmap_init(&own);
  int views = requests ? jit_link_views_for_requests(s, m, &own, err) : 0;
  /* its derivatives may now hold code of every module loaded so far */
  jit_session_lock(s);
  jit_thread_views_upto = views > 0 ? s->next_module_id : 0;
  jit_session_unlock(s);
  jit_thread_linked_views = views > 0;
  int rc = views < 0 ? -1 : ad_transform_module(s->ad, m, err);
  if (views > 0 && rc == 0)
    jit_unlink_views(m, &own);
  strmap_free(&own);
  unsigned long lookups = ad_engine_rule_lookups(s->ad) - lookups0;
  unsigned long sites = ad_engine_call_sites(s->ad) - sites0;
  if (rc)
    return -1;
  double t1 = seconds_now();
  if (jit_verify_differentiated(m, err))
    return -1;
  jit_lower_julia_gc_loaded(m);
  tanjit_stats cost = {.modules = 1,
                       .requests = requests,
                       .differentiate_seconds = t1 - t0,
                       .rule_lookups = lookups,
                       .call_sites = sites};
  add_stats(s, &cost);
  codegen_started = seconds_now();
  return optimize ? optimize_step(s, m, err) : 0;
}

/* default<ON> on the whole module. */
int jit_verify_differentiated(LLVMModuleRef m, tanjit_error **err) {
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    tj_fail(err, TANJIT_ERR_INTERNAL,
            "the module fails LLVM's verifier after differentiation (a tanjit "
            "bug): %s",
            msg ? msg : "");
    LLVMDisposeMessage(msg);
    return -1;
  }
  LLVMDisposeMessage(msg);
  return 0;
}

static int optimize_step(tanjit_session *s, LLVMModuleRef m, tanjit_error **err) {
  LLVMTargetMachineRef tm = s->pass_tm;
  double t1 = seconds_now();
  char pipeline[32];
  snprintf(pipeline, sizeof pipeline, "default<O%d>", s->opt_level);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(m, pipeline, tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (e)
    return tj_fail_llvm(err, TANJIT_ERR_INTERNAL, e, "optimization failed");
  char *diagnosed = jit_take_diagnostic_errors();
  if (diagnosed) {
    tj_fail(err, TANJIT_ERR_LINK, "optimization failed: %s", diagnosed);
    free(diagnosed);
    return -1;
  }
  double t2 = seconds_now();
  tanjit_stats cost = {.optimize_seconds = t2 - t1};
  add_stats(s, &cost);
  codegen_started = t2;
  return 0;
}

int jit_transform_module(tanjit_session *s, LLVMModuleRef m,
                         tanjit_error **err) {
  return transform_steps(s, m, 1, err);
}

struct transform_job {
  tanjit_session *session;
  LLVMOrcMaterializationResponsibilityRef mr;
  tanjit_error *error;
};

/* The id of the loaded module m is when it compiles lazily (*lazy) or
 * may compile in partitions; else 0.  *name: its name (caller frees). */
static unsigned long partition_module_id(tanjit_session *s, LLVMModuleRef m,
                                         int *lazy, char **name) {
  unsigned long id = 0, own = jit_module_id_of(m);
  *lazy = 0;
  *name = NULL;
  jit_session_lock(s);
  jit_module *rec = jit_module_by_id(s, own);
  if (rec && rec->partitionable) {
    id = own;
    *lazy = rec->lazy;
    *name = tj_strdup(rec->name);
  }
  jit_session_unlock(s);
  return id;
}

/* After a split that failed: the record was told of success; it fails
 * the lookup with job->error. */
static LLVMErrorRef split_failed(struct transform_job *job, unsigned long id) {
  LLVMErrorRef failed = LLVMCreateStringError(tanjit_error_message(job->error));
  jit_session_lock(job->session);
  jit_module *rec = jit_module_by_id(job->session, id);
  if (rec)
    rec->failed = 1;
  jit_session_unlock(job->session);
  tanjit_error_free(jit_thread_transform_error);
  jit_thread_transform_error = job->error;
  return failed;
}

/* Eager, a module that may be cut: a large one compiles in partitions
 * (on threads with jobs > 1), a small one whole. */
static LLVMErrorRef transform_in_parallel(struct transform_job *job, LLVMModuleRef m,
                                          unsigned long id, const char *name) {
  tanjit_session *s = job->session;
  if (transform_steps(s, m, 0, &job->error) ||
      (jit_partition_mark_boundaries(m) &&
       tj_fail(&job->error, TANJIT_ERR_NO_MEMORY, "out of memory"))) {
    jit_note_transform_result(s, m, job->error);
    return LLVMCreateStringError(tanjit_error_message(job->error));
  }
  /* The partitions are optimized apart, each in its own thread's context
   * (parallel.c); what they inline and compute is what lazy compilation
   * and a whole-module compile do (partition.c's units). */
  if (!jit_parallel_wanted(s, m)) {
    if (optimize_step(s, m, &job->error)) {
      jit_note_transform_result(s, m, job->error);
      return LLVMCreateStringError(tanjit_error_message(job->error));
    }
    jit_cache_expect_object(s, m);
    jit_note_transform_result(s, m, NULL);
    return NULL;
  }
  jit_cache_expect_object(s, m); /* with the partitions' objects, below */
  jit_note_transform_result(s, m, NULL);
  int rc = jit_parallel_compile(s, m, id, name, job->mr, &job->error);
  codegen_started = seconds_now(); /* the data's own codegen follows */
  if (rc) {
    jit_cache_forget_expected();
    return split_failed(job, id);
  }
  return NULL;
}

/* Lazy, requests that can wait (request_groups.c): the module is split
 * undifferentiated, each group of its requests differentiated when one of
 * its holders is first compiled (lazy.c). */
static LLVMErrorRef split_deferred(struct transform_job *job, LLVMModuleRef m,
                                   unsigned long id, jit_request_groups *groups) {
  tanjit_session *s = job->session;
  codegen_started = 0;
  jit_cache_forget_expected();
  jit_clear_diagnostic_errors();
  if (!s->pass_tm && !(s->pass_tm = jit_host_target_machine(s->opt_level, &job->error))) {
    jit_request_groups_free(groups);
    jit_note_transform_result(s, m, job->error);
    return LLVMCreateStringError(tanjit_error_message(job->error));
  }
  /* the data layout the pieces are differentiated and compiled with */
  if (!*LLVMGetDataLayoutStr(m)) {
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(s->pass_tm);
    LLVMSetModuleDataLayout(m, dl);
    LLVMDisposeTargetData(dl);
  }
  jit_thread_views_upto = 0; /* its requests need no other module's code */
  jit_thread_linked_views = 0;
  tanjit_stats cost = {.modules = 1};
  add_stats(s, &cost);
  jit_note_transform_result(s, m, NULL);
  int rc = jit_lazy_split(s, m, id, groups, job->mr, &job->error); /* takes groups */
  codegen_started = seconds_now(); /* the data's own codegen follows */
  return rc ? split_failed(job, id) : NULL;
}

static LLVMErrorRef transform_in_context(void *ctx, LLVMModuleRef m) {
  struct transform_job *job = ctx;
  int lazy;
  char *name;
  unsigned long part_id = partition_module_id(job->session, m, &lazy, &name);
  if (part_id && !lazy) {
    LLVMErrorRef e = transform_in_parallel(job, m, part_id, name ? name : "<module>");
    free(name);
    return e;
  }
  free(name);
  unsigned long lazy_id = lazy ? part_id : 0;
  if (lazy_id) {
    /* the split module's data is not what a cache entry holds: lazily
     * compiled modules are not stored */
    jit_request_groups groups;
    int deferred = jit_request_groups_plan(job->session, m, &groups);
    if (deferred > 0)
      return split_deferred(job, m, lazy_id, &groups);
    if (deferred < 0) {
      tj_fail(&job->error, TANJIT_ERR_NO_MEMORY, "out of memory");
      jit_note_transform_result(job->session, m, job->error);
      return LLVMCreateStringError(tanjit_error_message(job->error));
    }
    if (transform_steps(job->session, m, 0, &job->error) == 0 &&
        (jit_partition_mark_boundaries(m) == 0 ||
         !tj_fail(&job->error, TANJIT_ERR_NO_MEMORY, "out of memory"))) {
      jit_note_transform_result(job->session, m, NULL);
      if (jit_lazy_split(job->session, m, lazy_id, NULL, job->mr, &job->error) == 0)
        return NULL;
      return split_failed(job, lazy_id);
    }
    jit_note_transform_result(job->session, m, job->error);
    return LLVMCreateStringError(tanjit_error_message(job->error));
  }
  if (jit_transform_module(job->session, m, &job->error) == 0) {
    jit_cache_expect_object(job->session, m); /* before the record forgets m */
    jit_note_transform_result(job->session, m, NULL);
    return NULL;
  }
  jit_note_transform_result(job->session, m, job->error);
  return LLVMCreateStringError(tanjit_error_message(job->error));
}

static LLVMErrorRef transform_module(void *ctx, LLVMOrcThreadSafeModuleRef *tsm,
                                     LLVMOrcMaterializationResponsibilityRef mr) {
  struct transform_job job = {ctx, mr, NULL};
  LLVMErrorRef e = LLVMOrcThreadSafeModuleWithModuleDo(*tsm,
                                                       transform_in_context, &job);
  if (e) {
    LLVMOrcDisposeThreadSafeModule(*tsm);
    *tsm = NULL;
  }
  return e;
}

/*
 * Passes the object through, reading the clock, unless code generation
 * reported an error diagnostic (an inline-asm assembler error: the object
 * lacks the instruction): then the object is refused, which fails the
 * lookup with the diagnostic's text.
 */
static LLVMErrorRef note_object(void *ctx, LLVMMemoryBufferRef *obj) {
  if (codegen_started > 0) {
    tanjit_stats cost = {.codegen_seconds = seconds_now() - codegen_started};
    add_stats(ctx, &cost);
    codegen_started = 0;
  }
  char *diagnosed = jit_take_diagnostic_errors();
  if (!diagnosed) {
    jit_cache_note_object(ctx, *obj);
    return NULL;
  }
  jit_cache_forget_expected();
  strbuf msg;
  sb_init(&msg);
  sb_printf(&msg, "code generation failed: %s", diagnosed);
  free(diagnosed);
  LLVMErrorRef e = LLVMCreateStringError(msg.data ? msg.data : "code generation failed");
  sb_free(&msg);
  LLVMDisposeMemoryBuffer(*obj);
  *obj = NULL;
  return e;
}

void jit_install_transform(tanjit_session *s) {
  LLVMOrcIRTransformLayerSetTransform(LLVMOrcLLJITGetIRTransformLayer(s->jit),
                                      transform_module, s);
  LLVMOrcObjectTransformLayerSetTransform(
      LLVMOrcLLJITGetObjTransformLayer(s->jit), note_object, s);
}

typedef struct emit_job {
  tanjit_session *session;
  const void *buf;
  size_t len;
  const char *name;
  tanjit_error **err;
  char *text;
} emit_job;

/* Parse, validate, transform and print, on a big stack (each recurses on
 * nesting). */
static void emit_on_big_stack(void *p) {
  emit_job *job = p;
  tanjit_session *s = job->session;
  tanjit_error **err = job->err;
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m;
  if (jit_parse_module(s, ctx, job->buf ? job->buf : "", job->len, job->name, &m,
                       err) == 0) {
    if (jit_validate_module(s, m, job->name, err) == 0) {
      /* What loading does before the JIT transforms a module (private
       * state promoted, linkonce kept): the text shows what `run`
       * compiles. */
      int rc = jit_prepare_for_session(s, m, NULL);
      if (rc)
        tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
      pthread_mutex_lock(&s->jit_lock);
      /* a module `run` may cut keeps its units' boundaries here too */
      if (rc == 0)
        rc = transform_steps(s, m, 0, err);
      if (rc == 0 && jit_partitionable(m) && jit_partition_mark_boundaries(m))
        rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
      if (rc == 0)
        rc = optimize_step(s, m, err);
      codegen_started = 0; /* nothing is compiled */
      pthread_mutex_unlock(&s->jit_lock);
      if (rc) {
        tj_error_prefix(err ? *err : NULL, "%s", job->name);
      } else {
        char *llvm_text = LLVMPrintModuleToString(m);
        job->text = tj_strdup(llvm_text); /* so tanjit_free (free) releases it */
        LLVMDisposeMessage(llvm_text);
        if (!job->text)
          tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory printing %s", job->name);
      }
    }
    LLVMDisposeModule(m);
  }
  LLVMContextDispose(ctx);
}

char *tanjit_emit_memory(tanjit_session *s, const void *buf, size_t len,
                         const char *name, tanjit_error **err) {
  if (!s || (!buf && len)) {
    tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
            "tanjit_emit_memory: session and buffer are required");
    return NULL;
  }
  if (!name)
    name = "<memory>";
  char *checked = NULL; /* untrusted bitcode: the helper's output */
  if (jit_bitcode_untrusted(s, buf, len)) {
    if (jit_bitcode_sanitize(s, buf, len, name, &checked, &len, err))
      return NULL;
    buf = checked;
  }
  emit_job job = {s, buf, len, name, err, NULL};
  jit_run_on_big_stack(emit_on_big_stack, &job);
  free(checked);
  return job.text;
}

char *tanjit_emit_file(tanjit_session *s, const char *path,
                       tanjit_error **err) {
  if (!s || !path) {
    tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
            "tanjit_emit_file: session and path are required");
    return NULL;
  }
  char *data;
  size_t len;
  if (jit_read_file(path, s->max_input_bytes, &data, &len, err))
    return NULL;
  char *text = tanjit_emit_memory(s, data, len, path, err);
  free(data);
  return text;
}
