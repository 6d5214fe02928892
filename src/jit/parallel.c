/*
 * Parallel compilation (tanjit_options.jobs, `--jobs N`): a large module,
 * once differentiated, is cut into partitions of consecutive units (a
 * function and the private functions that go with it: partition.c),
 * balanced by instruction count, and each partition is optimized and
 * compiled to an object in a context of its own, by one of up to `jobs`
 * threads, each with a target machine of its own (LLVM contexts and
 * target machines are not shared across threads, and LLVM-C cannot switch
 * on LLJIT's concurrent compiler, so the threads are tanjit's).  Each
 * object is emitted to the object linking layer under the part of the
 * module's materialization responsibility its functions were delegated
 * to; the module itself keeps the data and goes on through the JIT's
 * compiler.  Partitions refer to each other's functions by name, as the
 * engine's module-private definitions got session-unique names first.
 *
 * The partitions depend on the module alone (jit_partition_count), never
 * on the number of jobs, and --jobs 1 compiles them too, one after the
 * other: every job count optimizes the same modules into the same code.
 * Threads only decide who compiles which partition (the next one not yet
 * taken).  Small modules (JIT_PARALLEL_MIN_FUNCTIONS) compile whole.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitWriter.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

typedef struct part_job {
  strmap members; /* its functions' names */
  char **names;
  size_t n_names;
  LLVMMemoryBufferRef object;
  tanjit_error *error;
  int done;
  double seconds[2];
} part_job;

/* What the threads share: the module's bitcode (read only) and the
 * partitions, taken in turn. */
typedef struct part_work {
  tanjit_session *session;
  LLVMMemoryBufferRef bitcode;
  const char *module_name;
  part_job *parts;
  unsigned n_parts;
  atomic_uint next;
} part_work;

static int is_member(void *p, const char *name, size_t len) {
  part_job *job = p;
  char stack[256];
  char *key = len < sizeof stack ? stack : tj_malloc(len + 1);
  if (!key)
    return 1; /* kept here too: a duplicate definition fails the link, not silently */
  memcpy(key, name, len);
  key[len] = '\0';
  int member = strmap_get(&job->members, key) != NULL;
  if (key != stack)
    free(key);
  return member;
}

static void compile_part(part_work *w, part_job *job, LLVMTargetMachineRef tm) {
  tanjit_session *s = w->session;
  LLVMContextRef ctx = LLVMContextCreate();
  jit_install_diagnostics(ctx, s);
  jit_clear_diagnostic_errors();
  LLVMMemoryBufferRef view = LLVMCreateMemoryBufferWithMemoryRange(
      LLVMGetBufferStart(w->bitcode), LLVMGetBufferSize(w->bitcode), w->module_name, 0);
  LLVMModuleRef m = jit_partition_extract(ctx, view, is_member, job, &job->error);
  if (m) {
    job->object = jit_partition_compile(tm, m, s->opt_level, job->seconds, &job->error);
    LLVMDisposeModule(m);
  }
  jit_clear_diagnostic_errors();
  LLVMContextDispose(ctx);
  job->done = 1;
}

/* Takes partitions until none is left. */
static void *compile_parts(void *p) {
  part_work *w = p;
  LLVMTargetMachineRef tm = NULL;
  for (unsigned k; (k = atomic_fetch_add(&w->next, 1)) < w->n_parts;) {
    part_job *job = &w->parts[k];
    if (!job->n_names)
      continue;
    if (!tm && !(tm = jit_host_target_machine(w->session->opt_level, &job->error))) {
      job->done = 1;
      break;
    }
    compile_part(w, job, tm);
  }
  if (tm)
    LLVMDisposeTargetMachine(tm);
  return NULL;
}

/* A thread with a big stack (big_stack.c's reasons), halving the request
 * where address space is short; 0 when none could be started. */
static int start_worker(pthread_t *t, void *(*fn)(void *), void *arg) {
  for (size_t size = JIT_BIG_STACK_BYTES; size >= JIT_BIG_STACK_MIN_BYTES; size /= 2) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr))
      return 0;
    int rc = pthread_attr_setstacksize(&attr, size);
    if (rc == 0)
      rc = pthread_create(t, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    if (rc == 0)
      return 1;
  }
  return 0;
}

static size_t instruction_count(LLVMValueRef f) {
  size_t n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      n++;
  return n;
}

int jit_parallel_wanted(tanjit_session *s, LLVMModuleRef m) {
  (void)s;
  size_t n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    n += !LLVMIsDeclaration(f);
  return n >= JIT_PARALLEL_MIN_FUNCTIONS;
}

int jit_parallel_compile(tanjit_session *s, LLVMModuleRef m, unsigned long id,
                         const char *module_name,
                         LLVMOrcMaterializationResponsibilityRef mr,
                         tanjit_error **err) {
  strmap attached; /* private function -> the one function using it */
  strmap_init(&attached);
  if (jit_partition_prepare(s, m, id, mr, &attached, err)) {
    jit_partition_attached_free(&attached);
    return -1;
  }
  size_t n_known = 0;
  LLVMOrcCSymbolFlagsMapPairs known =
      LLVMOrcMaterializationResponsibilityGetSymbols(mr, &n_known);
  strmap in_mr;
  strmap_init(&in_mr);
  int rc = -1;
  for (size_t i = 0; i < n_known; i++)
    if (strmap_put(&in_mr, LLVMOrcSymbolStringPoolEntryStr(known[i].Name), (void *)1)) {
      rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
      strmap_free(&in_mr);
      jit_partition_attached_free(&attached);
      LLVMOrcDisposeCSymbolFlagsMap(known);
      return rc;
    }
  LLVMOrcDisposeCSymbolFlagsMap(known);

  /* The functions this module defines for the JIT (a weak one another
   * module's won over is left out), with their sizes. */
  size_t n = 0, total = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    n += !LLVMIsDeclaration(f);
  LLVMValueRef *fns = tj_calloc(n ? n : 1, sizeof *fns);
  size_t *sizes = tj_calloc(n ? n : 1, sizeof *sizes);
  unsigned parts = JIT_MAX_PARTS; /* the count is known once n is below */
  part_job *jobs = tj_calloc(parts, sizeof *jobs);
  unsigned n_threads = s->jobs < parts ? s->jobs : parts;
  pthread_t *threads = tj_calloc(n_threads ? n_threads : 1, sizeof *threads);
  int *started = tj_calloc(n_threads ? n_threads : 1, sizeof *started);
  unsigned *part_of = tj_calloc(n ? n : 1, sizeof *part_of);
  strmap index; /* function name -> its index in fns + 1 */
  strmap_init(&index);
  LLVMMemoryBufferRef bitcode = NULL;
  if (!fns || !sizes || !jobs || !threads || !started || !part_of) {
    rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
    goto done;
  }
  n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f))
      continue;
    const char *name = LLVMGetValueName2(f, &(size_t){0});
    if (!strmap_get(&in_mr, name) && LLVMGetVisibility(f) != LLVMHiddenVisibility)
      continue;
    fns[n] = f;
    sizes[n] = instruction_count(f) + 8; /* a function's own fixed cost */
    total += sizes[n++];
    if (strmap_put(&index, name, (void *)(uintptr_t)n)) {
      rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
      goto done;
    }
  }
  /* what goes with a function weighs with it */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    const char *home = strmap_get(&attached, LLVMGetValueName2(f, &(size_t){0}));
    uintptr_t i = home ? (uintptr_t)strmap_get(&index, home) : 0;
    if (i) {
      sizes[i - 1] += instruction_count(f);
      total += instruction_count(f);
    }
  }
  if (!(bitcode = LLVMWriteBitcodeToMemoryBuffer(m))) {
    rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
    goto done;
  }
  for (unsigned k = 0; k < parts; k++)
    strmap_init(&jobs[k].members);
  /* Consecutive functions, each partition about total / parts. */
  parts = jit_partition_count(n);
  if (n_threads > parts)
    n_threads = parts;
  size_t at = 0, filled = 0;
  for (unsigned k = 0; k < parts; k++) {
    part_job *job = &jobs[k];
    size_t goal = total * (k + 1) / parts;
    while (at < n && (filled < goal || k + 1 == parts)) {
      size_t len;
      const char *name = LLVMGetValueName2(fns[at], &len);
      char **grown = tj_realloc(job->names, (job->n_names + 1) * sizeof *grown);
      char *copy = tj_strndup(name, len);
      if (!grown || !copy || strmap_put(&job->members, copy, (void *)1)) {
        if (grown)
          job->names = grown;
        free(copy);
        rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
        goto done;
      }
      job->names = grown;
      job->names[job->n_names++] = copy;
      part_of[at] = k;
      filled += sizes[at++];
    }
  }
  /* private functions are compiled with their one user */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    const char *name = LLVMGetValueName2(f, &(size_t){0});
    const char *home = strmap_get(&attached, name);
    uintptr_t i = home ? (uintptr_t)strmap_get(&index, home) : 0;
    if (i && strmap_put(&jobs[part_of[i - 1]].members, name, (void *)1)) {
      rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
      goto done;
    }
  }
  /* This thread takes partitions too, on the big stack already, beside
   * jobs - 1 threads of its own; what a thread that could not start or
   * could not make a target machine left is compiled here after. */
  part_work work = {s, bitcode, module_name, jobs, parts, 0};
  unsigned threads_used = 1;
  for (unsigned k = 1; k < n_threads; k++) {
    started[k] = start_worker(&threads[k], compile_parts, &work);
    threads_used += started[k] != 0;
  }
  compile_parts(&work);
  for (unsigned k = 1; k < n_threads; k++)
    if (started[k])
      pthread_join(threads[k], NULL);
  for (unsigned k = 0; k < parts; k++)
    if (jobs[k].n_names && !jobs[k].done) {
      LLVMTargetMachineRef tm = jit_host_target_machine(s->opt_level, &jobs[k].error);
      if (tm) {
        compile_part(&work, &jobs[k], tm);
        LLVMDisposeTargetMachine(tm);
      }
    }

  double seconds[2] = {0, 0};
  for (unsigned k = 0; k < parts; k++) {
    seconds[0] += jobs[k].seconds[0];
    seconds[1] += jobs[k].seconds[1];
    if (jobs[k].error) { /* the module fails as an eager compile would */
      if (err) {
        *err = jobs[k].error;
        jobs[k].error = NULL;
      }
      goto done;
    }
  }
  jit_session_lock(s);
  s->stats.optimize_seconds += seconds[0];
  s->stats.codegen_seconds += seconds[1];
  s->stats.partitions += parts;
  if (s->stats.partition_threads < threads_used)
    s->stats.partition_threads = threads_used;
  jit_session_unlock(s);
  {
    LLVMMemoryBufferRef objects[JIT_MAX_PARTS];
    size_t n_objects = 0;
    for (unsigned k = 0; k < parts && n_objects < JIT_MAX_PARTS; k++)
      if (jobs[k].object)
        objects[n_objects++] = jobs[k].object;
    jit_cache_expect_parts(objects, n_objects); /* copies them */
  }
  LLVMOrcExecutionSessionRef es = LLVMOrcLLJITGetExecutionSession(s->jit);
  LLVMOrcObjectLayerRef linker = LLVMOrcLLJITGetObjLinkingLayer(s->jit);
  for (unsigned k = 0; k < parts; k++) {
    part_job *job = &jobs[k];
    if (!job->object)
      continue;
    LLVMOrcSymbolStringPoolEntryRef *syms = tj_calloc(job->n_names, sizeof *syms);
    if (!syms) {
      rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
      goto done;
    }
    for (size_t i = 0; i < job->n_names; i++)
      syms[i] = LLVMOrcExecutionSessionIntern(es, job->names[i]);
    LLVMOrcMaterializationResponsibilityRef part_mr = NULL;
    LLVMErrorRef e = LLVMOrcMaterializationResponsibilityDelegate(mr, syms, job->n_names,
                                                                  &part_mr);
    free(syms);
    if (e) {
      rc = tj_fail_llvm(err, TANJIT_ERR_LINK, e, "cannot split the module");
      goto done;
    }
    /* takes part_mr and the object */
    LLVMOrcObjectLayerEmit(linker, part_mr, job->object);
    job->object = NULL;
  }
  jit_partition_keep_data(m);
  rc = 0;
done:
  if (jobs)
    for (unsigned k = 0; k < parts; k++) {
      strmap_free(&jobs[k].members);
      for (size_t i = 0; i < jobs[k].n_names; i++)
        free(jobs[k].names[i]);
      free(jobs[k].names);
      if (jobs[k].object)
        LLVMDisposeMemoryBuffer(jobs[k].object);
      tanjit_error_free(jobs[k].error);
    }
  if (bitcode)
    LLVMDisposeMemoryBuffer(bitcode);
  strmap_free(&in_mr);
  strmap_free(&index);
  jit_partition_attached_free(&attached);
  free(part_of);
  free(fns);
  free(sizes);
  free(jobs);
  free(threads);
  free(started);
  return rc;
}
