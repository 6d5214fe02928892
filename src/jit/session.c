/*
 * tanjit_session: the LLJIT instance, its options, the table of loaded
 * modules, and lookups.
 *
 * A module's life: load.c parses and verifies it into its own context; it is
 * added here under a resource tracker of its own; the first lookup of one of
 * its symbols runs the transform (transform.c) and codegen.  If that lookup
 * fails, the module is removed again, so a corrected module can be loaded
 * under the same names and the session stays usable.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/Target.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

static pthread_once_t native_target_once = PTHREAD_ONCE_INIT;
static int native_target_status;

static void init_native_target(void) {
  jit_configure_llvm_once();
  native_target_status = LLVMInitializeNativeTarget() ||
                         LLVMInitializeNativeAsmPrinter() ||
                         LLVMInitializeNativeAsmParser();
}

/* Writes only the caller's `size` bytes: a caller built against an older
 * header has a shorter struct. */
void tanjit_options_init_sized(tanjit_options *opts, size_t size) {
  tanjit_options defaults;
  memset(&defaults, 0, sizeof defaults);
  defaults.opt_level = 2;
  defaults.binding = TANJIT_BIND_STRICT;
  if (!opts || size < sizeof defaults.struct_size)
    return;
  memset(opts, 0, size);
  memcpy(opts, &defaults, size < sizeof defaults ? size : sizeof defaults);
  opts->struct_size = size;
}

/*
 * The caller's options as this library's struct: fields past the caller's
 * struct_size keep their defaults.  A caller built against a newer header
 * may have set fields this library does not know; refuse those rather than
 * ignore a request (the bytes past our struct must be zero, as
 * tanjit_options_init_sized leaves them).
 */
static int read_options(const tanjit_options *opts, tanjit_options *out,
                        tanjit_error **err) {
  tanjit_options_init_sized(out, sizeof *out);
  if (!opts)
    return 0;
  size_t size = opts->struct_size;
  if (size < sizeof opts->struct_size)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_options.struct_size is %zu: fill the options with "
                   "tanjit_options_init first",
                   size);
  for (size_t i = sizeof *out; i < size; i++)
    if (((const unsigned char *)opts)[i])
      return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                     "tanjit_options has fields this tanjit %s does not know "
                     "(struct_size %zu, this library's %zu)",
                     tanjit_version(), size, sizeof *out);
  memcpy(out, opts, size < sizeof *out ? size : sizeof *out);
  out->struct_size = sizeof *out;
  return 0;
}

LLVMTargetMachineRef jit_host_target_machine(int opt_level,
                                             tanjit_error **err) {
  pthread_once(&native_target_once, init_native_target);
  if (native_target_status) {
    tj_fail(err, TANJIT_ERR_INTERNAL, "LLVM has no native target for this host");
    return NULL;
  }
  char *triple = LLVMGetDefaultTargetTriple();
  char *msg = NULL;
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
    tj_fail(err, TANJIT_ERR_INTERNAL, "no LLVM target for %s: %s", triple,
            msg ? msg : "");
    LLVMDisposeMessage(msg);
    LLVMDisposeMessage(triple);
    return NULL;
  }
  static const LLVMCodeGenOptLevel levels[] = {
      LLVMCodeGenLevelNone, LLVMCodeGenLevelLess, LLVMCodeGenLevelDefault,
      LLVMCodeGenLevelAggressive};
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
      target, triple, cpu, features, levels[opt_level], LLVMRelocDefault,
      LLVMCodeModelJITDefault);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  LLVMDisposeMessage(triple);
  if (!tm)
    tj_fail(err, TANJIT_ERR_INTERNAL, "cannot create a target machine");
  return tm;
}

int jit_session_lock(tanjit_session *s) { return pthread_mutex_lock(&s->lock); }
void jit_session_unlock(tanjit_session *s) { pthread_mutex_unlock(&s->lock); }

static void free_string_list(char **list) {
  if (!list)
    return;
  for (char **p = list; *p; p++)
    free(*p);
  free(list);
}

/* A NULL-terminated deep copy; *out stays NULL for a NULL list. */
static int copy_string_list(const char *const *list, char ***out) {
  *out = NULL;
  if (!list)
    return 0;
  size_t n = 0;
  while (list[n])
    n++;
  char **copy = tj_calloc(n + 1, sizeof *copy);
  if (!copy)
    return -1;
  for (size_t i = 0; i < n; i++)
    if (!(copy[i] = tj_strdup(list[i]))) {
      free_string_list(copy);
      return -1;
    }
  *out = copy;
  return 0;
}

/* ORC reports materialization failures here rather than to the lookup (which
 * only says "Failed to materialize symbols"); keep the text for the lookup. */
static void report_session_error(void *ctx, LLVMErrorRef e) {
  tanjit_session *s = ctx;
  char *msg = LLVMGetErrorMessage(e);
  char *copy = tj_strdup(msg);
  if (s->compile_lazy)
    jit_lazy_note_reported(s, msg);
  LLVMDisposeErrorMessage(msg);
  jit_session_lock(s);
  free(s->reported_error);
  s->reported_error = copy;
  jit_session_unlock(s);
}

tanjit_session *tanjit_session_new(const tanjit_options *opts,
                                   tanjit_error **err) {
  tanjit_options given;
  if (read_options(opts, &given, err))
    return NULL;
  opts = &given;
  if (opts->binding != TANJIT_BIND_STRICT && opts->binding != TANJIT_BIND_LAZY) {
    tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
            "binding %d is neither TANJIT_BIND_STRICT nor TANJIT_BIND_LAZY",
            (int)opts->binding);
    return NULL;
  }
  if (opts->compile_mode != TANJIT_COMPILE_EAGER &&
      opts->compile_mode != TANJIT_COMPILE_LAZY) {
    tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
            "compile_mode %d is neither TANJIT_COMPILE_EAGER nor "
            "TANJIT_COMPILE_LAZY",
            (int)opts->compile_mode);
    return NULL;
  }
  if (opts->derivative_fp != TANJIT_DERIVATIVE_FP_FAST &&
      opts->derivative_fp != TANJIT_DERIVATIVE_FP_STRICT) {
    tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
            "derivative_fp %d is neither TANJIT_DERIVATIVE_FP_FAST nor "
            "TANJIT_DERIVATIVE_FP_STRICT",
            (int)opts->derivative_fp);
    return NULL;
  }
  if (opts->opt_level < 0 || opts->opt_level > 3) {
    tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
            "optimization level %d is not in 0..3", opts->opt_level);
    return NULL;
  }
  tanjit_session *s = tj_calloc(1, sizeof *s);
  if (!s) {
    tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory creating a session");
    return NULL;
  }
  pthread_mutex_init(&s->lock, NULL);
  strmap_init(&s->derivatives); /* string keys: not the zeroed state */
  pthread_mutexattr_t recursive;
  pthread_mutexattr_init(&recursive);
  pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&s->jit_lock, &recursive);
  pthread_mutexattr_destroy(&recursive);
  s->opt_level = opts->opt_level;
  s->binding = opts->binding;
  s->on_unresolved = opts->on_unresolved;
  s->on_unresolved_user = opts->on_unresolved_user;
  s->max_input_bytes = opts->max_input_bytes ? opts->max_input_bytes
                                             : TANJIT_DEFAULT_MAX_INPUT_BYTES;
  strmap_init(&s->declared_functions);
  strmap_init(&s->host_symbols);
  s->debug_info = opts->debug_info != 0;
  s->perf_map = opts->perf_map != 0;
  s->trust_bitcode = opts->trust_bitcode != 0;
  s->compile_lazy = opts->compile_mode == TANJIT_COMPILE_LAZY;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  s->jobs = opts->jobs ? opts->jobs : cores > 0 ? (unsigned)cores : 1;
  if (s->jobs > JIT_MAX_PARTS)
    s->jobs = JIT_MAX_PARTS;
  if ((opts->bitcode_checker &&
       !(s->bitcode_checker = tj_strdup(opts->bitcode_checker))) ||
      (opts->cache_dir && *opts->cache_dir &&
       !(s->cache = jit_cache_new(opts->cache_dir, opts->cache_max_bytes,
                                  s->opt_level, (int)s->binding,
                                  (int)opts->derivative_fp))) ||
      copy_string_list(opts->library_dirs, &s->library_dirs) ||
      copy_string_list(opts->allowed_libraries, &s->allowed_libraries) ||
      !(s->ad = ad_engine_new())) {
    tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory creating a session");
    tanjit_session_free(s);
    return NULL;
  }
  ad_engine_set_runtime_report(s->ad, jit_report_runtime_failure, s);
  ad_engine_set_fast_derivatives(
      s->ad, opts->derivative_fp == TANJIT_DERIVATIVE_FP_FAST);

  LLVMTargetMachineRef tm = jit_host_target_machine(s->opt_level, err);
  if (!tm) {
    tanjit_session_free(s);
    return NULL;
  }
  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
  /* The builder takes the target machine builder, which takes tm. */
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
      builder, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
  LLVMErrorRef e = LLVMOrcCreateLLJIT(&s->jit, builder); /* takes builder */
  if (e) {
    s->jit = NULL;
    tj_fail_llvm(err, TANJIT_ERR_INTERNAL, e, "cannot create the ORC JIT");
    tanjit_session_free(s);
    return NULL;
  }
  LLVMOrcExecutionSessionSetErrorReporter(LLVMOrcLLJITGetExecutionSession(s->jit),
                                          report_session_error, s);
  s->main_jd = LLVMOrcLLJITGetMainJITDylib(s->jit);
  if ((s->debug_info || s->perf_map) && jit_enable_debug_support(s, err)) {
    tanjit_session_free(s);
    return NULL;
  }
  jit_install_transform(s);
  if (jit_define_runtime_report(s, err) ||
      (s->compile_lazy && jit_lazy_init(s, err)) || jit_resolver_attach(s, err)) {
    tanjit_session_free(s);
    return NULL;
  }
  return s;
}

void jit_module_record_free(jit_module *m) {
  jit_lazy_record_free(m); /* (reads `defined`) */
  free(m->name);
  for (size_t i = 0; i < m->n_defined; i++)
    free(m->defined[i]);
  free(m->defined);
  free(m->defined_is_function);
  for (size_t i = 0; i < m->n_declared; i++)
    free(m->declared[i]);
  free(m->declared);
  for (size_t i = 0; i < m->n_referenced; i++)
    free(m->referenced[i]);
  free(m->referenced);
  if (m->pristine)
    LLVMDisposeMemoryBuffer(m->pristine);
  if (m->source)
    LLVMDisposeMemoryBuffer(m->source);
  if (m->tracker)
    LLVMOrcReleaseResourceTracker(m->tracker);
}

void tanjit_session_free(tanjit_session *s) {
  if (!s)
    return;
  for (size_t i = 0; i < s->n_modules; i++)
    jit_module_record_free(&s->modules[i]);
  free(s->modules);
  /* Disposing the JIT disposes the resolver's generator, which closes every
   * library handle the session opened. */
  /* The call-through manager holds names of the JIT's symbol pool: it
   * goes first (nothing runs JIT code any more). */
  jit_lazy_dispose_call_through(s);
  if (s->jit) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(s->jit);
    if (e)
      LLVMConsumeError(e); /* nothing left to report it to */
  }
  jit_lazy_dispose(s); /* the JIT's stubs are gone with it */
  if (s->pass_tm)
    LLVMDisposeTargetMachine(s->pass_tm);
  ad_engine_free(s->ad);
  free_string_list(s->library_dirs);
  free_string_list(s->allowed_libraries);
  free(s->reported_error);
  free(s->bitcode_checker);
  strmap_free(&s->derivatives);
  strmap_free(&s->declared_functions);
  jit_cache_free(s->cache);
  for (size_t i = 0; i < s->n_warnings; i++)
    free(s->warnings[i]);
  free(s->warnings);
  strmap_free(&s->host_symbols);
  pthread_mutex_destroy(&s->lock);
  pthread_mutex_destroy(&s->jit_lock);
  free(s);
}

int tanjit_add_library(tanjit_session *s, const char *path,
                       tanjit_error **err) {
  if (!s || !path)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_add_library: session and path are required");
  if (!*path) /* dlopen("") is the main program, not a library */
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_add_library: the library name is empty");
  return jit_resolver_add_library(s->resolver, path, err);
}

int tanjit_register_fwd_rule(tanjit_session *s, const char *function,
                             const char *derivative, unsigned flags,
                             tanjit_error **err) {
  if (!s || !function || !derivative || !*function || !*derivative)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_register_fwd_rule: session, function and derivative "
                   "are required");
  if (flags & ~(unsigned)TANJIT_RULE_RETURNS_PRIMAL)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_register_fwd_rule of %s: unknown flags 0x%x", function,
                   flags);
  if (ad_engine_register_rule(s->ad, function, derivative, flags, err))
    return -1;
  jit_session_lock(s);
  jit_cache_note_rule(s->cache, function, derivative, flags);
  jit_session_unlock(s);
  return 0;
}

int tanjit_register_rev_rule(tanjit_session *s, const char *function,
                             const char *augmented, const char *reverse,
                             unsigned flags, tanjit_error **err) {
  if (!s || !function || !*function || !reverse || !*reverse ||
      (augmented && !*augmented))
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_register_rev_rule: session, function and reverse "
                   "are required (augmented may be NULL, not empty)");
  if (flags)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_register_rev_rule of %s: unknown flags 0x%x (none "
                   "is defined)",
                   function, flags);
  if (ad_engine_register_rev_rule(s->ad, function, augmented, reverse, err))
    return -1;
  /* part of the object cache's key, as a forward rule is */
  strbuf pair;
  sb_init(&pair);
  sb_printf(&pair, "reverse:%s:%s", augmented ? augmented : "", reverse);
  jit_session_lock(s);
  jit_cache_note_rule(s->cache, function, pair.data ? pair.data : reverse,
                      flags);
  jit_session_unlock(s);
  sb_free(&pair);
  return 0;
}

/* The names a module defines for others: what a lookup can ask it for. */
static int collect_definitions(LLVMModuleRef m, jit_module *rec) {
  size_t cap = 0;
  LLVMValueRef (*const firsts[])(LLVMModuleRef) = {
      LLVMGetFirstFunction, LLVMGetFirstGlobal, LLVMGetFirstGlobalAlias};
  LLVMValueRef (*const nexts[])(LLVMValueRef) = {
      LLVMGetNextFunction, LLVMGetNextGlobal, LLVMGetNextGlobalAlias};
  for (int kind = 0; kind < 3; kind++)
    for (LLVMValueRef v = firsts[kind](m); v; v = nexts[kind](v)) {
      if (LLVMIsDeclaration(v))
        continue;
      LLVMLinkage l = LLVMGetLinkage(v);
      if (l == LLVMInternalLinkage || l == LLVMPrivateLinkage ||
          l == LLVMAvailableExternallyLinkage)
        continue;
      size_t len;
      const char *name = LLVMGetValueName2(v, &len);
      if (rec->n_defined == cap) {
        cap = cap ? 2 * cap : 16;
        char **p = tj_realloc(rec->defined, cap * sizeof *p);
        if (!p)
          return -1;
        rec->defined = p;
        unsigned char *k = tj_realloc(rec->defined_is_function, cap);
        if (!k)
          return -1;
        rec->defined_is_function = k;
      }
      if (!(rec->defined[rec->n_defined] = tj_strndup(name, len)))
        return -1;
      /* an alias has its aliasee's value type */
      rec->defined_is_function[rec->n_defined] =
          LLVMGetTypeKind(LLVMGlobalGetValueType(v)) == LLVMFunctionTypeKind;
      rec->n_defined++;
    }
  return 0;
}

/* Counts the external functions m declares, for resolve.c (a name the IR
 * calls must bind to code), and keeps them in rec to uncount at removal.
 * Under lock. */
static int note_function_declarations(tanjit_session *s, LLVMModuleRef m,
                                      jit_module *rec) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f))
      continue;
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    char **p = tj_realloc(rec->declared, (rec->n_declared + 1) * sizeof *p);
    if (!p)
      return -1;
    rec->declared = p;
    uintptr_t count = (uintptr_t)strmap_get(&s->declared_functions, name);
    if (!(p[rec->n_declared] = tj_strdup(name)))
      return -1;
    if (strmap_put(&s->declared_functions, name, (void *)(count + 1))) {
      free(p[rec->n_declared]); /* not counted: not to be uncounted */
      return -1;
    }
    rec->n_declared++;
  }
  return 0;
}

/* Undoes note_function_declarations for a module leaving.  Under lock. */
void jit_forget_function_declarations(tanjit_session *s, jit_module *rec) {
  for (size_t i = 0; i < rec->n_declared; i++) {
    uintptr_t count = (uintptr_t)strmap_get(&s->declared_functions, rec->declared[i]);
    if (count)
      strmap_put(&s->declared_functions, rec->declared[i], (void *)(count - 1));
  }
}

/*
 * ORC promises, when a module is added, every definition the module has.  A
 * linkonce definition (a C++ template instantiation or inline function, an
 * inline variable) whose only user was a request is dead once the request
 * became a call to its derivative, the optimizer deletes it, and ORC then
 * fails the whole module with "Missing definitions".  Weak linkage keeps
 * the one-definition-wins meaning across modules and is never deleted.
 */
static void keep_linkonce_definitions(LLVMModuleRef m) {
  for (int pass = 0; pass < 2; pass++)
    for (LLVMValueRef g = pass ? LLVMGetFirstGlobal(m) : LLVMGetFirstFunction(m); g;
         g = pass ? LLVMGetNextGlobal(g) : LLVMGetNextFunction(g)) {
      if (LLVMIsDeclaration(g))
        continue;
      LLVMLinkage l = LLVMGetLinkage(g);
      if (l == LLVMLinkOnceAnyLinkage)
        LLVMSetLinkage(g, LLVMWeakAnyLinkage);
      else if (l == LLVMLinkOnceODRLinkage)
        LLVMSetLinkage(g, LLVMWeakODRLinkage);
    }
}

/*
 * Gives module-private functions, mutable globals and constants whose
 * address is significant hidden external names unique to the session, so a
 * derivative made later from the module's pristine copy (views.c) shares
 * the module's state, tables and callbacks instead of copies of them.
 */
int jit_promote_private(LLVMValueRef g, unsigned long id) {
  size_t len;
  const char *name = LLVMGetValueName2(g, &len);
  strbuf unique;
  sb_init(&unique);
  sb_printf(&unique, "%.*s" TANJIT_PRIVATE_SUFFIX "%lu", (int)len,
            len ? name : "anon", id);
  if (unique.failed)
    return -1;
  LLVMSetValueName2(g, unique.data, unique.len);
  sb_free(&unique);
  LLVMSetLinkage(g, LLVMExternalLinkage);
  LLVMSetVisibility(g, LLVMHiddenVisibility);
  return 0;
}

/* Whether f resolves an ifunc (which must stay defined where it is). */
static int resolves_ifunc(LLVMValueRef f) {
  for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u))
    if (LLVMIsAGlobalIFunc(LLVMGetUser(u)))
      return 1;
  return 0;
}

static int promote_private_state(LLVMModuleRef m, unsigned long id) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    LLVMLinkage l = LLVMGetLinkage(g);
    if (LLVMIsDeclaration(g) ||
        (l != LLVMInternalLinkage && l != LLVMPrivateLinkage))
      continue;
    /* a constant whose address nobody may compare (a string literal,
     * unnamed_addr) may be copied into views; one whose address is
     * significant (a sentinel, a table compared by pointer) may not */
    if (LLVMIsGlobalConstant(g) && LLVMGetUnnamedAddress(g) != LLVMNoUnnamedAddr)
      continue;
    if (jit_promote_private(g, id))
      return -1;
  }
  /* Module-private functions too: a view of this module (views.c) then
   * hands out and compares the compiled function itself, not a copy of it
   * (a callback installed by one module and tested by another).  The cost:
   * the optimizer cannot delete them once inlined.  (Promoting only those
   * whose address is used left the CUDA suite's in-process runs crashing
   * LeakSanitizer's tracer at exit, not understood yet; see the note.) */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    LLVMLinkage l = LLVMGetLinkage(f);
    if (LLVMIsDeclaration(f) ||
        (l != LLVMInternalLinkage && l != LLVMPrivateLinkage) ||
        resolves_ifunc(f))
      continue;
    if (jit_promote_private(f, id))
      return -1;
  }
  return 0;
}

/*
 * Adds a parsed, verified module (in context c, not yet wrapped) to the JIT.
 * Takes ownership of the module and the context, on success and failure.
 */
int jit_prepare_for_session(tanjit_session *s, LLVMModuleRef m,
                            unsigned long *id_out) {
  jit_session_lock(s);
  unsigned long id = ++s->next_module_id;
  jit_session_unlock(s);
  keep_linkonce_definitions(m);
  if (id_out)
    *id_out = id;
  return promote_private_state(m, id);
}

static int add_module(tanjit_session *s, jit_context *c, LLVMModuleRef m,
                      const char *name, int generated, const void *source,
                      size_t source_len, tanjit_error **err);

int jit_session_add_module(tanjit_session *s, jit_context *c, LLVMModuleRef m,
                           const char *name, int generated, tanjit_error **err) {
  return add_module(s, c, m, name, generated, NULL, 0, err);
}

int jit_session_add_loaded(tanjit_session *s, jit_context *c, LLVMModuleRef m,
                           const char *name, const void *source, size_t len,
                           tanjit_error **err) {
  return add_module(s, c, m, name, 0, source ? source : "", len, err);
}

LLVMMemoryBufferRef jit_module_pristine(tanjit_session *s, unsigned long id) {
  LLVMMemoryBufferRef source = NULL, made = NULL;
  char *name = NULL;
  jit_session_lock(s);
  for (size_t i = 0; i < s->n_modules; i++) {
    jit_module *rec = &s->modules[i];
    if (rec->id != id)
      continue;
    if (rec->pristine || !rec->source) {
      made = rec->pristine;
      break;
    }
    source = LLVMCreateMemoryBufferWithMemoryRangeCopy(
        LLVMGetBufferStart(rec->source), LLVMGetBufferSize(rec->source), rec->name);
    name = tj_strdup(rec->name);
  }
  jit_session_unlock(s);
  if (!source || !name) {
    if (source)
      LLVMDisposeMemoryBuffer(source);
    free(name);
    return made;
  }
  /* the load again: the same bytes, checks and names give the same module */
  jit_thread_quiet_warnings++;
  jit_context c;
  jit_context_create(&c);
  LLVMModuleRef m = NULL;
  tanjit_error *e = NULL;
  if (jit_parse_module(s, c.ctx, LLVMGetBufferStart(source), LLVMGetBufferSize(source),
                       name, &m, &e) == 0 &&
      jit_validate_module(s, m, name, &e) == 0) {
    keep_linkonce_definitions(m);
    if (promote_private_state(m, id) == 0)
      made = LLVMWriteBitcodeToMemoryBuffer(m);
  }
  tanjit_error_free(e); /* (its load passed these checks) */
  if (m)
    LLVMDisposeModule(m);
  jit_context_abandon(&c);
  jit_thread_quiet_warnings--;
  LLVMDisposeMemoryBuffer(source);
  free(name);
  jit_session_lock(s);
  jit_module *rec = made ? jit_module_by_id(s, id) : NULL;
  if (rec && rec->pristine) { /* (cannot happen under jit_lock) */
    LLVMDisposeMemoryBuffer(made);
    made = rec->pristine;
  } else if (rec) {
    rec->pristine = made;
  }
  jit_session_unlock(s);
  return made;
}

/* Puts the record id on m's IR, after its pristine copy was written (a
 * view linked into another module must not bring its id along). */
static void stamp_module_id(LLVMModuleRef m, unsigned long id) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMMetadataRef value =
      LLVMValueAsMetadata(LLVMConstInt(LLVMInt64TypeInContext(ctx), id, 0));
  LLVMAddNamedMetadataOperand(
      m, JIT_MODULE_ID_METADATA,
      LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, &value, 1)));
}

jit_module *jit_module_by_id(tanjit_session *s, unsigned long id) {
  for (size_t i = 0; id && i < s->n_modules; i++)
    if (s->modules[i].id == id)
      return &s->modules[i];
  return NULL;
}

unsigned long jit_module_id_of(LLVMModuleRef m) {
  /* (loads refuse the name, views come from unstamped copies: one operand) */
  if (LLVMGetNamedMetadataNumOperands(m, JIT_MODULE_ID_METADATA) != 1)
    return 0;
  LLVMValueRef node, value;
  LLVMGetNamedMetadataOperands(m, JIT_MODULE_ID_METADATA, &node);
  if (LLVMGetMDNodeNumOperands(node) != 1)
    return 0;
  LLVMGetMDNodeOperands(node, &value);
  return value && LLVMIsAConstantInt(value) ? LLVMConstIntGetZExtValue(value) : 0;
}

static int add_module(tanjit_session *s, jit_context *c, LLVMModuleRef m,
                      const char *name, int generated, const void *source,
                      size_t source_len, tanjit_error **err) {
  jit_module rec = {0};
  unsigned long id;
  if (jit_prepare_for_session(s, m, &id)) {
    jit_context_abandon(c);
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory loading %s", name);
  }
  rec.name = tj_strdup(name ? name : "<module>");
  if (source)
    rec.source = LLVMCreateMemoryBufferWithMemoryRangeCopy(source, source_len,
                                                           rec.name ? rec.name : "");
  else
    rec.pristine = LLVMWriteBitcodeToMemoryBuffer(m);
  if (!rec.name || !(rec.pristine || rec.source) || collect_definitions(m, &rec)) {
    jit_module_record_free(&rec);
    jit_context_abandon(c);
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory loading %s", name);
  }
  stamp_module_id(m, id);
  /* ORC drops a module with no definition at once, untransformed */
  rec.pending = rec.n_defined ? m : NULL;
  rec.generated = generated;
  rec.cache_policy = s->cache ? jit_cache_policy(m, generated) : JIT_CACHE_NEVER;
  /* a request module's own derivative wrapper gains nothing by a split */
  /* (--jobs 1 too: it compiles the partitions --jobs N does) */
  rec.partitionable = !generated && jit_partitionable(m);
  rec.lazy = s->compile_lazy && rec.partitionable;
  if (rec.lazy)
    strmap_init(&rec.lazy_bodies);

  LLVMOrcThreadSafeContextRef tsc = jit_context_wrap(c);
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc); /* the module keeps it alive */

  /* jit_lock keeps lookups (and so transforms) out until the record is in
   * place; `lock` is not held across the LLJIT call, which takes the
   * module's context lock (a transform holds that one and then takes
   * `lock`). */
  pthread_mutex_lock(&s->jit_lock);
  jit_session_lock(s);
  int full = s->n_modules == s->cap_modules;
  if (full) {
    size_t cap = s->cap_modules ? 2 * s->cap_modules : 8;
    jit_module *p = tj_realloc(s->modules, cap * sizeof *p);
    if (p) {
      s->modules = p;
      s->cap_modules = cap;
      full = 0;
    }
  }
  if (!full && note_function_declarations(s, m, &rec)) {
    jit_forget_function_declarations(s, &rec);
    full = 1;
  }
  jit_session_unlock(s);
  if (full) {
    pthread_mutex_unlock(&s->jit_lock);
    LLVMOrcDisposeThreadSafeModule(tsm);
    jit_module_record_free(&rec);
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory loading %s", name);
  }
  rec.id = id;
  rec.tracker = LLVMOrcJITDylibCreateResourceTracker(s->main_jd);
  LLVMErrorRef e = NULL;
  if (jit_cache_add_hit(s, &rec)) { /* its object is in: the IR is not needed */
    LLVMOrcDisposeThreadSafeModule(tsm);
    rec.pending = NULL;
  } else { /* Takes tsm, even on failure. */
    e = LLVMOrcLLJITAddLLVMIRModuleWithRT(s->jit, rec.tracker, tsm);
  }
  if (e) {
    jit_session_lock(s);
    jit_forget_function_declarations(s, &rec);
    jit_session_unlock(s);
    pthread_mutex_unlock(&s->jit_lock);
    jit_module_record_free(&rec);
    strbuf what;
    sb_init(&what);
    sb_printf(&what, "cannot add %s", name ? name : "module");
    int rc = tj_fail_llvm(err, TANJIT_ERR_LINK, e, what.data ? what.data : "cannot add");
    sb_free(&what);
    return rc;
  }
  jit_session_lock(s);
  s->modules[s->n_modules++] = rec;
  jit_session_unlock(s);
  pthread_mutex_unlock(&s->jit_lock);
  return 0;
}


void jit_note_transform_result(tanjit_session *s, LLVMModuleRef m,
                               tanjit_error *e) {
  unsigned long id = jit_module_id_of(m);
  jit_session_lock(s);
  jit_module *rec = jit_module_by_id(s, id);
  if (rec) {
    /* (under jit_lock, as the frontend lookup that compiles it) */
    if (!e && jit_frontend_lookup &&
        s->n_compiled_in_lookup < JIT_MAX_COMPILED_PER_LOOKUP)
      s->compiled_in_lookup[s->n_compiled_in_lookup++] = rec->id;
    /* ORC frees the module after this */
    rec->pending = NULL;
    if (!e)
      jit_record_references(rec, m);
    if (e) {
      tj_error_prefix(e, "%s", rec->name);
      rec->failed = 1;
    }
  }
  if (e) {
    /* Also as text, for a lookup on another thread that waited on this
     * module and so only sees "Failed to materialize". */
    free(s->reported_error);
    s->reported_error = tj_strdup(tanjit_error_message(e));
  }
  jit_session_unlock(s);
  if (e) {
    /* The lookup that triggered the transform returns the error with its
     * own code. */
    tanjit_error_free(jit_thread_transform_error);
    jit_thread_transform_error = e;
  }
}

_Thread_local tanjit_error *jit_thread_transform_error;

static int module_defines(const jit_module *m, const char *symbol) {
  for (size_t i = 0; i < m->n_defined; i++)
    if (strcmp(m->defined[i], symbol) == 0)
      return 1;
  return 0;
}

/* After a failed lookup of `symbol`, removes the modules that cannot be
 * compiled any more: the one defining the symbol and any whose transform
 * failed.  Under the lock. */
static void remove_failed_modules(tanjit_session *s, const char *symbol) {
  int removed = 0, removed_frontend_code = 0;
  for (size_t i = 0; i < s->n_modules;) {
    if (!s->modules[i].failed && !module_defines(&s->modules[i], symbol)) {
      i++;
      continue;
    }
    LLVMErrorRef e = LLVMOrcResourceTrackerRemove(s->modules[i].tracker);
    if (e)
      LLVMConsumeError(e);
    removed_frontend_code |= !s->modules[i].generated;
    jit_forget_function_declarations(s, &s->modules[i]);
    jit_module_record_free(&s->modules[i]);
    s->modules[i] = s->modules[--s->n_modules];
    removed = 1;
  }
  /* A cached derivative may have been made from a removed module's code; a
   * module loaded later under the same names must not be shadowed by it.
   * A failed run-time request's own module held no code of the frontend's:
   * the cache stays.  (The derivatives stay compiled: addresses handed out
   * stay valid.) */
  if (removed_frontend_code) {
    strmap_free(&s->derivatives);
    strmap_init(&s->derivatives);
  }
  /* The removed module's names are dead in the symbol pool now. */
  if (removed)
    LLVMOrcSymbolStringPoolClearDeadEntries(
        LLVMOrcExecutionSessionGetSymbolStringPool(
            LLVMOrcLLJITGetExecutionSession(s->jit)));
}

static int any_module_defines(tanjit_session *s, const char *symbol) {
  for (size_t i = 0; i < s->n_modules; i++)
    if (module_defines(&s->modules[i], symbol))
      return 1;
  return 0;
}

/*
 * After a failed lookup: a module compiled during it whose own code did not
 * link (a dependency calling something missing) keeps its names in an error
 * state in ORC, and a corrected module under those names would be a
 * duplicate.  Its symbols answer a lookup at once (no compile: it was
 * compiled), with an error: it is marked for removal with the others.
 */
static void mark_unlinked_modules(tanjit_session *s) {
  for (size_t k = 0; k < s->n_compiled_in_lookup; k++) {
    char *name = NULL;
    jit_session_lock(s);
    for (size_t i = 0; i < s->n_modules; i++)
      if (s->modules[i].id == s->compiled_in_lookup[k] && s->modules[i].n_defined &&
          !s->modules[i].failed)
        name = tj_strdup(s->modules[i].defined[0]);
    jit_session_unlock(s);
    if (!name)
      continue;
    LLVMOrcExecutorAddress a = 0;
    LLVMErrorRef e = LLVMOrcLLJITLookup(s->jit, &a, name);
    free(name);
    if (!e)
      continue;
    LLVMConsumeError(e);
    jit_session_lock(s);
    for (size_t i = 0; i < s->n_modules; i++)
      if (s->modules[i].id == s->compiled_in_lookup[k])
        s->modules[i].failed = 1;
    jit_session_unlock(s);
  }
  s->n_compiled_in_lookup = 0;
}

/* Why a lookup of `symbol` failed, from what this thread's transform, the
 * resolver and the session's error reporter recorded.  Under lock. */
static tanjit_error *lookup_failure(tanjit_session *s, const char *symbol,
                                    const char *llvm_msg) {
  tanjit_error *result = jit_thread_transform_error;
  jit_thread_transform_error = NULL;
  int defined = any_module_defines(s, symbol);
  if (!result) {
    const jit_bind_failure *bind = &jit_thread_bind_failure;
    if (bind->kind == JIT_BIND_FAILED_UNDEFINED && !defined)
      result = tj_error_new(TANJIT_ERR_SYMBOL,
                            "no symbol '%s': no loaded module defines it", symbol);
    else if (bind->kind == JIT_BIND_FAILED_UNDEFINED)
      result = tj_error_new(
          TANJIT_ERR_SYMBOL,
          "cannot compile '%s': unresolved external %s%s (searched the "
          "loaded modules, host symbols, the registered libraries, renamed "
          "ccalls and the process; a function of the embedding program needs "
          "tanjit_define_symbol, or the program linked with -rdynamic)",
          symbol, bind->name, bind->more_undefined ? " and others" : "");
    else if (bind->kind != JIT_BIND_FAILED_NONE)
      result = tj_error_new(bind->code, "cannot compile '%s': %s", symbol,
                            bind->why);
    else
      /* A module another thread was compiling failed; ORC's text for this
       * lookup only says it failed to materialize, the reporter has why. */
      result = tj_error_new(TANJIT_ERR_LINK, "cannot compile '%s': %s", symbol,
                            s->reported_error ? s->reported_error : llvm_msg);
  } else {
    tj_error_prefix(result, "cannot compile '%s'", symbol);
  }
  return result;
}

/*
 * Lazy compilation: the lookup of a function of a split module found its
 * stub; its body is compiled now, so that the lookup returns its errors
 * (a call would only reach the unresolved-call handler).  Outside
 * jit_lock: a body compiles under it (lazy.c), and another thread may be
 * compiling this very body from a call.  A failed body leaves the module
 * in place (its other functions run); looking it up again fails the same
 * way.  0, or -1 with *err.
 */
static int compile_lazy_body(tanjit_session *s, const char *symbol,
                             tanjit_error **err) {
  jit_session_lock(s);
  jit_lazy_body_state *st = jit_lazy_body_of(s, symbol);
  int needed = st && !st->compiled;
  char *body = needed ? tj_strdup(st->body) : NULL;
  char *failure = body && st->failure ? tj_strdup(st->failure) : NULL;
  tanjit_error_code code = needed ? st->failure_code : TANJIT_ERR_LINK;
  jit_session_unlock(s);
  if (!body)
    return needed ? tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory") : 0;
  if (failure) {
    tj_fail(err, code, "cannot compile '%s': %s", symbol, failure);
    free(failure);
    free(body);
    return -1;
  }
  tanjit_error_free(jit_thread_transform_error);
  jit_thread_transform_error = NULL;
  memset(&jit_thread_bind_failure, 0, sizeof jit_thread_bind_failure);
  const char *outer = jit_frontend_lookup;
  jit_frontend_lookup = symbol;
  LLVMOrcExecutorAddress addr = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(s->jit, &addr, body);
  jit_frontend_lookup = outer;
  free(body);
  tanjit_error *result = NULL;
  char *llvm_msg = e ? LLVMGetErrorMessage(e) : NULL;
  jit_session_lock(s);
  if (e)
    result = lookup_failure(s, symbol, llvm_msg);
  free(s->reported_error);
  s->reported_error = NULL;
  if ((st = jit_lazy_body_of(s, symbol))) {
    if (!result)
      st->compiled = 1;
    else if (!st->failure) {
      /* (what follows "cannot compile 'f': " is kept for the next time) */
      const char *msg = tanjit_error_message(result);
      size_t skip = strlen("cannot compile '") + strlen(symbol) + strlen("': ");
      st->failure = tj_strdup(strlen(msg) > skip ? msg + skip : msg);
      st->failure_code = tanjit_error_get_code(result);
    }
  }
  jit_session_unlock(s);
  if (llvm_msg)
    LLVMDisposeErrorMessage(llvm_msg);
  if (!result) {
    pthread_mutex_lock(&s->jit_lock);
    jit_perf_map_update(s);
    pthread_mutex_unlock(&s->jit_lock);
    return 0;
  }
  if (err)
    *err = result;
  else
    tanjit_error_free(result);
  return -1;
}

/* tanjit_lookup's work, on a big stack: it may compile. */
static void *lookup_here(tanjit_session *s, const char *symbol, tanjit_error **err) {
  tanjit_error_free(jit_thread_transform_error);
  jit_thread_transform_error = NULL;
  LLVMOrcExecutorAddress addr = 0;
  pthread_mutex_lock(&s->jit_lock);
  const char *outer = jit_frontend_lookup; /* JIT code may look up again */
  jit_frontend_lookup = symbol;
  if (!outer) {
    s->n_compiled_in_lookup = 0;
    jit_cache_swap_for_lookup(s, symbol);
    memset(&jit_thread_bind_failure, 0, sizeof jit_thread_bind_failure);
  }
  LLVMErrorRef e = LLVMOrcLLJITLookup(s->jit, &addr, symbol);
  jit_frontend_lookup = outer;
  if (!e) {
    jit_perf_map_update(s);
    pthread_mutex_unlock(&s->jit_lock);
    if (s->compile_lazy && compile_lazy_body(s, symbol, err))
      return NULL;
    return (void *)(uintptr_t)addr;
  }
  if (!outer)
    mark_unlinked_modules(s);

  char *llvm_msg = LLVMGetErrorMessage(e);
  jit_session_lock(s);
  tanjit_error *result = lookup_failure(s, symbol, llvm_msg);
  free(s->reported_error);
  s->reported_error = NULL;
  remove_failed_modules(s, symbol);
  jit_session_unlock(s);
  pthread_mutex_unlock(&s->jit_lock);
  LLVMDisposeErrorMessage(llvm_msg);
  if (err)
    *err = result;
  else
    tanjit_error_free(result);
  return NULL;
}

typedef struct lookup_job {
  tanjit_session *session;
  const char *symbol;
  tanjit_error **err;
  void *address;
} lookup_job;

static void lookup_on_big_stack(void *p) {
  lookup_job *job = p;
  job->address = lookup_here(job->session, job->symbol, job->err);
}

/* Whether looking `symbol` up compiles nothing: its module was compiled
 * (and with it, at link time, everything it depends on). */
static int already_compiled(tanjit_session *s, const char *symbol) {
  int compiled = 0;
  jit_session_lock(s);
  for (size_t i = 0; i < s->n_modules; i++)
    if (module_defines(&s->modules[i], symbol)) {
      compiled = !s->modules[i].pending && !s->modules[i].failed;
      if (compiled && s->modules[i].lazy) {
        jit_lazy_body_state *st = strmap_get(&s->modules[i].lazy_bodies, symbol);
        compiled = !st || st->compiled;
      }
      break;
    }
  jit_session_unlock(s);
  return compiled;
}

void *tanjit_lookup(tanjit_session *s, const char *symbol, tanjit_error **err) {
  if (!s || !symbol) {
    tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
            "tanjit_lookup: session and symbol are required");
    return NULL;
  }
  if (jit_on_big_stack() || already_compiled(s, symbol))
    return lookup_here(s, symbol, err);
  lookup_job job = {s, symbol, err, NULL};
  jit_run_on_big_stack(lookup_on_big_stack, &job);
  return job.address;
}

/* -1: a module defines `symbol` as data; 1: as a function; 0: none does. */
static int defined_kind(tanjit_session *s, const char *symbol) {
  int kind = 0;
  jit_session_lock(s);
  for (size_t i = 0; i < s->n_modules && !kind; i++)
    for (size_t k = 0; k < s->modules[i].n_defined; k++)
      if (strcmp(s->modules[i].defined[k], symbol) == 0) {
        kind = s->modules[i].defined_is_function[k] ? 1 : -1;
        break;
      }
  jit_session_unlock(s);
  return kind;
}

void *tanjit_lookup_function(tanjit_session *s, const char *symbol,
                             tanjit_error **err) {
  if (!s || !symbol) {
    tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
            "tanjit_lookup_function: session and symbol are required");
    return NULL;
  }
  int kind = defined_kind(s, symbol);
  if (kind < 0) {
    tj_fail(err, TANJIT_ERR_SYMBOL,
            "'%s' is a global variable, not a function: it cannot be called",
            symbol);
    return NULL;
  }
  void *address = tanjit_lookup(s, symbol, err);
  /* not a module's: the process's or a library's, whose ELF symbol says */
  if (address && kind == 0 && jit_address_is_data(address)) {
    tj_fail(err, TANJIT_ERR_SYMBOL,
            "'%s' is data (%s), not a function: it cannot be called", symbol,
            "an object in a library or the process");
    return NULL;
  }
  return address;
}

void tanjit_free(void *p) { free(p); }
