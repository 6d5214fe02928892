/*
 * The JIT layer's private face: the session object and the cross-file
 * functions of src/jit.
 *
 *   session.c    tanjit_session: options, LLJIT, lookups, failed-module cleanup
 *   load.c       bytes/files/modules -> verified module in its own context
 *   transform.c  the ORC IR transform: differentiate, verify, optimize
 *   resolve.c    the definition generator: registered libraries, renamed
 *                ccalls (ejlstr$fn$lib, ejlptr$fn$addr), lazy stubs
 *   stub.c       lazy-binding stubs: IR that reports an unresolved call
 *   views.c      loaded modules' pristine copies as views of compiled code
 *   derivative.c tanjit_fwddiff, tanjit_autodiff: run-time requests over
 *                those views
 *   autodiff.c   the wrapper of a reverse request (its result's C ABI)
 *   validate.c   what LLVM would abort on or miscompile, refused at load
 *   diagnostics.c LLVM's diagnostics: errors fail the operation, warnings
 *                are kept for tanjit_session_warning
 *   big_stack.c  LLVM's recursive work on a thread with a large stack
 *   host.c       host symbols (tanjit_define_symbol), rules by address
 *   unload.c     tanjit_unload: a module, what was compiled against it
 *   debug.c      JIT code for gdb (GDB JIT interface) and perf (perf map)
 *   cache.c      the persistent object cache (cache.h)
 *   partition.c  a differentiated module's functions compiled apart
 *   lazy.c       lazy compilation: a module split into functions, each
 *                compiled at its first call through ORC's lazy re-exports
 *   request_groups.c which requests lazy compilation differentiates
 *                together, when one of their functions is first compiled
 *   parallel.c   a large module's partitions compiled on threads
 */
#ifndef TANJIT_JIT_JIT_H
#define TANJIT_JIT_JIT_H

#include <pthread.h>

#include <llvm-c/LLJIT.h>
#include <llvm-c/TargetMachine.h>

#include "ad/ad.h"
#include "common/error.h"
#include "common/strmap.h"
#include "jit/cache.h"
#include "jit/llvm_compat.h"

typedef struct jit_resolver jit_resolver;

/* One loaded module, from load to removal. */
typedef struct jit_module {
  unsigned long id;
  char *name;                 /* as given at load, for messages */
  LLVMOrcResourceTrackerRef tracker;
  /* its IR until transformed, NULL after; never an identity (ORC may free
   * a module it will not compile, and a later module take its address):
   * the transform finds a module's record by `id` (jit_module_id_of) */
  LLVMModuleRef pending;
  char **defined;             /* externally visible definitions */
  unsigned char *defined_is_function; /* per entry of `defined` */
  size_t n_defined;
  char **declared;            /* external functions it declares */
  size_t n_declared;
  LLVMMemoryBufferRef pristine; /* bitcode as loaded, before any transform;
                                 * NULL until needed when `source` is kept */
  LLVMMemoryBufferRef source; /* the bytes it was parsed from (a load), from
                               * which jit_module_pristine makes `pristine` */
  int failed;                 /* its transform failed: remove at next lookup */
  int generated;              /* made by tanjit_fwddiff: not the frontend's code */
  int compiled;               /* transformed: its code holds addresses */
  char **referenced;          /* names its compiled code binds to (unload.c) */
  size_t n_referenced;
  int references_unknown;     /* out of memory listing them: depends on all */
  /* its requests were differentiated through views of the modules with ids
   * up to this one (0: none), whose code its derivatives may hold */
  unsigned long views_upto;
  int cache_policy;           /* JIT_CACHE_* (cache.h) */
  int lazy;                   /* compiled function by function (lazy.c) */
  int partitionable;          /* jit_partitionable, at load */
  /* after its split: function name -> jit_lazy_body_state * (under lock) */
  strmap lazy_bodies;
} jit_module;

struct tanjit_session {
  LLVMOrcLLJITRef jit;
  LLVMOrcJITDylibRef main_jd;
  int opt_level;
  tanjit_binding binding;
  tanjit_unresolved_handler on_unresolved;
  void *on_unresolved_user;
  char **library_dirs;       /* NULL-terminated copies */
  char **allowed_libraries;  /* NULL-terminated copies, or NULL: all allowed */
  jit_resolver *resolver;    /* owned by the JIT's generator */
  ad_engine *ad;

  /* LLVM-C cannot turn on LLJIT's concurrent compiler, so its one target
   * machine must not compile two modules at once: lookups, additions and
   * removals take this lock (recursive: a lookup may re-enter through
   * JIT-compiled code).  Taken before `lock`, never after it. */
  pthread_mutex_t jit_lock;
  LLVMTargetMachineRef pass_tm; /* for the IR pipeline; under jit_lock */
  pthread_mutex_t lock;      /* guards the fields below */
  jit_module *modules;
  size_t n_modules, cap_modules;
  unsigned long next_module_id;
  char *reported_error;      /* last text from the session's error reporter */
  tanjit_stats stats;        /* compile costs (under lock) */
  strmap derivatives;        /* tanjit_fwddiff cache: key -> address (jit_lock) */
  /* the modules compiled during the frontend lookup under way: if it
   * fails, those whose code did not link are among them (jit_lock) */
#define JIT_MAX_COMPILED_PER_LOOKUP 256
  unsigned long compiled_in_lookup[JIT_MAX_COMPILED_PER_LOOKUP];
  size_t n_compiled_in_lookup;
  unsigned long next_derivative_id; /* names wrappers uniquely (jit_lock) */
  /* Names loaded modules declare as an external function, with how many
   * modules do: resolve.c binds them only to code (under lock). */
  strmap declared_functions;
  size_t max_input_bytes;    /* tanjit_load_file's limit */
  /* LLVM's and tanjit's warnings, in order (under lock; see diagnostics.c) */
  char **warnings;
  size_t n_warnings, cap_warnings;
  unsigned long dropped_warnings;
  int trust_bitcode;         /* skip the sandboxed bitcode reader */
  char *bitcode_checker;     /* the helper's path, or NULL: searched */
  strmap host_symbols;       /* tanjit_define_symbol: name -> address (jit_lock) */
  int debug_info, perf_map;  /* the options of the same names */
  jit_cache *cache;          /* the object cache, or NULL (cache.c) */
  int compile_lazy;          /* TANJIT_COMPILE_LAZY (lazy.c) */
  LLVMOrcLazyCallThroughManagerRef lazy_call_through;
  LLVMOrcIndirectStubsManagerRef lazy_stubs;
  unsigned jobs;             /* compile threads (parallel.c), 1..JIT_MAX_PARTS */
};

/* session.c */
int jit_session_lock(tanjit_session *s);
/* Renames g <name>.tanjit.m<id> and makes it hidden external, so another
 * module of the session (a partition, a later derivative) can link to it;
 * -1 when out of memory (g unchanged). */
int jit_promote_private(LLVMValueRef g, unsigned long id);
void jit_session_unlock(tanjit_session *s);
/* Records the outcome of transforming module `m` (the transform calls this
 * on success, e NULL, and on failure): forgets `m`'s IR, which ORC frees
 * next, and on failure marks the module for removal by the lookup that
 * triggered it, which returns e.  Takes ownership of e. */
void jit_note_transform_result(tanjit_session *s, LLVMModuleRef m,
                               tanjit_error *e);
/* The record id add_module put on m's IR (0: m is no record's, e.g. a
 * lazy stub).  A module's address is no identity: ORC frees a module it
 * will never compile (one defining nothing, or whose weak definitions all
 * lost to earlier ones) without a transform, and a later module may be
 * allocated there; an id is never reused. */
unsigned long jit_module_id_of(LLVMModuleRef m);
/* The record with that id, NULL for none (or id 0); caller holds the
 * session lock, and the pointer is good until the table next changes. */
jit_module *jit_module_by_id(tanjit_session *s, unsigned long id);
/* The named metadata that carries it; loads refuse a module holding one. */
#define JIT_MODULE_ID_METADATA "tanjit.module_id"
/* Frees a module record's own memory and releases its tracker (after the
 * caller removed the tracker's code, if it had to). */
void jit_module_record_free(jit_module *m);
/* Uncounts the function declarations of a module leaving (under lock). */
void jit_forget_function_declarations(tanjit_session *s, jit_module *rec);
/* What loading does to a module before the JIT sees it: a session-unique
 * id (*id_out, may be NULL), linkonce definitions kept, module-private
 * state promoted to hidden names unique to it.  tanjit_emit_* does the same
 * so that it prints what a run compiles.  0, or -1 on out of memory. */
int jit_prepare_for_session(tanjit_session *s, LLVMModuleRef m,
                            unsigned long *id_out);
/* Adds a parsed, verified module to the JIT; takes the module and context. */
int jit_session_add_module(tanjit_session *s, jit_context *c, LLVMModuleRef m,
                           const char *name, int generated, tanjit_error **err);
/* The same for a module parsed from `source` (copied): its pristine copy is
 * made from those bytes when first needed (views, tanjit_unload's
 * re-link), not at load, which a warm start from the object cache would
 * pay for nothing. */
int jit_session_add_loaded(tanjit_session *s, jit_context *c, LLVMModuleRef m,
                           const char *name, const void *source, size_t len,
                           tanjit_error **err);
/* Module `id`'s pristine copy, made now from its source if it has none
 * (parsed, validated and promoted as its load did, warnings not repeated);
 * NULL when out of memory or the module is gone.  The record keeps it.
 * Under jit_lock (so no unload runs), not the session's lock. */
LLVMMemoryBufferRef jit_module_pristine(tanjit_session *s, unsigned long id);
/* The symbol tanjit_lookup is looking up on this thread (resolve.c never
 * binds it to a lazy stub), or NULL. */
extern _Thread_local const char *jit_frontend_lookup;
/* The error of the last transform that failed on this thread (owned). */
extern _Thread_local tanjit_error *jit_thread_transform_error;

/* Why the resolver (resolve.c) could not bind a name, as the lookup that
 * asked reports it (session.c): a code and fields, not text to match. */
typedef enum jit_bind_failure_kind {
  JIT_BIND_FAILED_NONE = 0,
  /* a plain name nothing defines (no module, registered library or the
   * process); ORC then fails the lookup with its own "not found" */
  JIT_BIND_FAILED_UNDEFINED,
  /* a name that cannot be bound: a renamed ccall that is malformed, whose
   * library does not load (TANJIT_ERR_LIBRARY) or lacks the function
   * (TANJIT_ERR_SYMBOL), or data the IR calls as a function */
  JIT_BIND_FAILED_UNBINDABLE,
  /* lazy binding could not define the stub (its error's code) */
  JIT_BIND_FAILED_STUB
} jit_bind_failure_kind;
typedef struct jit_bind_failure {
  jit_bind_failure_kind kind;   /* of the first failure */
  tanjit_error_code code;
  char name[256];               /* the first name that failed */
  char more_undefined;          /* UNDEFINED: other names failed too */
  char why[768];                /* UNBINDABLE, STUB: what went wrong */
} jit_bind_failure;
/* The first bind failure of the frontend lookup under way on this thread
 * (tanjit_lookup clears it; resolve.c's generator fills it). */
extern _Thread_local jit_bind_failure jit_thread_bind_failure;
/* A target machine for the host at the session's opt level; caller disposes. */
LLVMTargetMachineRef jit_host_target_machine(int opt_level, tanjit_error **err);

/* load.c */
/* Parses text or bitcode (detected) into ctx and verifies it; debug info
 * LLVM would drop is dropped with a warning to s (may be NULL).  On a big
 * stack (jit_run_on_big_stack). */
int jit_parse_module(tanjit_session *s, LLVMContextRef ctx, const void *data, size_t len,
                     const char *name, LLVMModuleRef *out, tanjit_error **err);
/* 1 if the bytes start with a bitcode magic (raw or wrapper). */
int jit_is_bitcode(const void *data, size_t len);
/* Reads a whole regular file of at most max_bytes; caller frees *data. */
int jit_read_file(const char *path, size_t max_bytes, char **data, size_t *len,
                  tanjit_error **err);
/* The deepest bracket nesting IR text may have (parsed recursively by LLVM). */
#define JIT_MAX_TEXT_NESTING 20000

/* diagnostics.c */
/* Gives ctx the diagnostic handler: error-severity diagnostics are kept
 * for this thread's current operation (jit_take_diagnostic_errors),
 * warnings become the session's (s may be NULL: then they are dropped).
 * Nothing is printed, and LLVM never exits the process on an error. */
void jit_install_diagnostics(LLVMContextRef ctx, tanjit_session *s);
/* Set while a module's load is repeated (jit_module_pristine): the
 * warnings it gave then are not given again. */
extern _Thread_local int jit_thread_quiet_warnings;
/* Forgets the errors kept on this thread. */
void jit_clear_diagnostic_errors(void);
/* The errors kept on this thread since the last clear or take, joined by
 * "; " (caller frees), or NULL when there were none. */
char *jit_take_diagnostic_errors(void);
/* Appends a warning to the session's list (copied; s may be NULL). */
void jit_add_warning(tanjit_session *s, const char *fmt, ...) TJ_PRINTF(2, 3);
/* Once per process: LLVM options that keep it from printing (the debug-info
 * auto-upgrade, which load.c does instead). */
void jit_configure_llvm_once(void);

/* validate.c */
/* Checks and adjusts a parsed, verified module for this host before
 * anything can hand it to code that aborts on what it cannot compile:
 * triple and data layout, per-function target-cpu/target-features,
 * intrinsics of other targets, scalable vectors, thread-locals, ifuncs.
 * Unknown CPU names and features are dropped with a warning; what cannot
 * run here fails with TANJIT_ERR_UNSUPPORTED. */
int jit_validate_module(tanjit_session *s, LLVMModuleRef m, const char *name,
                        tanjit_error **err);

/* big_stack.c */
/* 1 GiB of reserved stack: deep enough for the nesting tanjit_load_* lets
 * through (JIT_MAX_TEXT_NESTING), with room for the optimizer and codegen
 * recursing on the same structure. */
#define JIT_BIG_STACK_BYTES ((size_t)1 << 30)
#define JIT_BIG_STACK_MIN_BYTES ((size_t)64 << 20)
/* Runs fn(arg) to completion on a thread with a big stack (in place when
 * the caller is on one already). */
void jit_run_on_big_stack(void (*fn)(void *), void *arg);
/* Whether this thread is a big-stack worker. */
int jit_on_big_stack(void);

/* bitcode_sandbox.c */
/* 1 when `data` is bitcode that must go through the sandboxed reader (the
 * session does not trust its bitcode). */
static inline int jit_bitcode_untrusted(const tanjit_session *s,
                                        const void *data, size_t len) {
  return !s->trust_bitcode && jit_is_bitcode(data, len);
}
/* Parses, verifies and re-serializes untrusted bitcode in the
 * tanjit-bitcode-check helper process; *out (caller frees) is the helper's
 * output, bitcode from LLVM's writer.  A crash of the reader becomes a
 * TANJIT_ERR_PARSE error naming the signal. */
int jit_bitcode_sanitize(const tanjit_session *s, const void *data, size_t len,
                         const char *name, char **out, size_t *out_len,
                         tanjit_error **err);

/* transform.c */
/* Installs the transform on the session's JIT. */
void jit_install_transform(tanjit_session *s);
/* Differentiate, verify, optimize `m` in place. */
int jit_transform_module(tanjit_session *s, LLVMModuleRef m,
                         tanjit_error **err);
/* LLVM's verifier on a module the engine just differentiated: a failure
 * is tanjit's bug, reported as TANJIT_ERR_INTERNAL with LLVM's text. */
int jit_verify_differentiated(LLVMModuleRef m, tanjit_error **err);

/* autodiff.c */
/* Adds to m @wrapper calling __enzyme_autodiff on fn with the markers of
 * `act` (one per parameter of fn), its result the C ABI's of the adjoints'
 * struct.  0, or -1 with *err set (an activity its parameter's type does
 * not take; `function` names it). */
int jit_add_autodiff_wrapper(LLVMModuleRef m, LLVMValueRef fn,
                             const char *wrapper, const char *function,
                             const tanjit_activity *act, tanjit_error **err);

/* views.c */
/* Every loaded module's pristine copy but `exclude`'s (and tanjit_fwddiff's
 * own), linked into one module in ctx as a view of the compiled code;
 * modules whose flags conflict are left out.  With `taken` non-NULL, the
 * names of the functions whose address the modules take are put there.
 * Caller owns the result; NULL on failure with *err set. */
LLVMModuleRef jit_gather_views(tanjit_session *s, LLVMContextRef ctx,
                               LLVMModuleRef exclude, strmap *taken,
                               tanjit_error **err);
/* When m (being transformed, holding requests) declares functions that
 * other loaded modules define, or calls through function pointers that may
 * lead there, links their views into m, so its requests differentiate
 * through code compiled in other modules.  The names m had are put in
 * `own`.  1 when views were linked, 0 when none were needed, -1 on error. */
int jit_link_views_for_requests(tanjit_session *s, LLVMModuleRef m,
                                strmap *own, tanjit_error **err);
/* Whether jit_link_views_for_requests would link views into m now. */
int jit_views_needed(tanjit_session *s, LLVMModuleRef m);
/* Whether the last transform on this thread linked views (transform.c). */
extern _Thread_local int jit_thread_linked_views;
/* After differentiation: the views' functions become declarations again
 * (calls go to the compiled originals); `own` as filled above. */
void jit_unlink_views(LLVMModuleRef m, const strmap *own);
/* Deletes f's body (f becomes a declaration), safely for cross-block
 * uses, and the attachments a declaration may not have (its definition's
 * !dbg subprogram, !prof).  Every definition tanjit turns back into a
 * declaration goes through here. */
void jit_drop_body(LLVMValueRef f);

/* stub.c */
/* The engine's run-time report (ad_runtime_report): derivative code that
 * reaches what could not be differentiated goes to the session's
 * unresolved-call handler (the default prints one line and aborts). */
void jit_report_runtime_failure(void *session, const char *what,
                                const char *why);
/* The same for a call through a pointer the code cannot follow
 * (AD_RUNTIME_TARGET_REPORT_SYMBOL): the target's symbol and object where
 * the loader knows them, else its address, in front of `what`. */
void jit_report_runtime_target(void *session, const void *target,
                               const char *what, const char *why);
/* host.c: defines the symbols that code names the report by (ad.h), and
 * the late release of BLAS cache copies. */
int jit_define_runtime_report(tanjit_session *s, tanjit_error **err);

/* markers.c */
/* Rewrites `metadata !"enzyme_*"` request operands to the marker globals,
 * which survive bitcode copies. */
void jit_canonicalize_markers(LLVMModuleRef m);
/* A module's own definitions of Enzyme's entry points (fallback stubs, see
 * ad_request_kind_of) become declarations, before anything links or copies
 * the module: calls to them are requests, whatever the stub does, and the
 * session never exports one module's stub to another. */
void jit_drop_request_stubs(LLVMModuleRef m);

/* julia_plt.c */
/* Binds Julia's jlplt_<fn>_<N>_got GOTs to ejlstr$<fn>$<lib> declarations
 * and turns the calls through them into direct calls. */
int jit_bind_julia_plt(LLVMModuleRef m, tanjit_error **err);
/* Drops Julia's GC.@preserve markers (llvm.julia.gc_preserve_begin/end),
 * which only Julia's GC lowering understands and which no code generator
 * can compile: with no Julia GC here, there is nothing for them to root. */
void jit_drop_julia_gc_preserve(LLVMModuleRef m);
/* After differentiation (whose rule needs the call): julia.gc_loaded(root,
 * p) becomes p cast to the call's address space, as Julia's late GC
 * lowering makes it, so element accesses stay plain loads and stores that
 * LLVM can vectorize. */
void jit_lower_julia_gc_loaded(LLVMModuleRef m);

/* resolve.c */
/* Creates the resolver and attaches its generator to the main JITDylib; the
 * JIT owns it from then on (it is disposed with the JIT). */
int jit_resolver_attach(tanjit_session *s, tanjit_error **err);
int jit_resolver_add_library(jit_resolver *r, const char *path,
                             tanjit_error **err);
/* Whether address starts a data symbol (ELF object/TLS/common) of a loaded
 * object; 0 for code and for what no symbol table describes. */
int jit_address_is_data(const void *address);
/* Opens `name` (soname or path) as the session would: library_dirs first. */
void *jit_open_library(tanjit_session *s, const char *name, char **why);

/* runtime_fallbacks.c */
/* A definition of `name` for a runtime library that predates it (a no-op
 * where the older compiler made no call), or NULL: resolve.c binds a plain
 * name to it only when no module, library or the process defines it. */
void (*jit_runtime_fallback(const char *name))(void);

/* unload.c */
/* Marks rec compiled and records the names m's transformed code refers to
 * and the views it was differentiated through (on success of its
 * transform, under the session lock). */
void jit_record_references(jit_module *rec, LLVMModuleRef m);
/* Set by the transform on this thread: the views_upto of the module it
 * just transformed. */
extern _Thread_local unsigned long jit_thread_views_upto;

/* debug.c */
/* Registers every object the JIT links with the GDB JIT interface. */
int jit_enable_debug_support(tanjit_session *s, tanjit_error **err);
/* With the perf_map option: appends the functions of the objects linked
 * since the last call to /tmp/perf-<pid>.map.  Never fails. */
void jit_perf_map_update(tanjit_session *s);

/* stub.c */
/* Defines `name` in the main JITDylib as a stub that reports a call to
 * `symbol` (the function part of a renamed name) in `library` (may be NULL). */
int jit_define_lazy_stub(tanjit_session *s, jit_resolver *r, const char *name,
                         const char *symbol, const char *library,
                         const char *reason, tanjit_error **err);
/* Keeps a string alive as long as the resolver; returns the kept copy. */
const char *jit_resolver_keep_string(jit_resolver *r, const char *s);

/* partition.c: functions of a differentiated module compiled apart */
/* Whether m may be cut into partitions: no aliases, ifuncs, static
 * constructors or block addresses. */
int jit_partitionable(LLVMModuleRef m);
/* The flags of a claimed name: callable for a function. */
LLVMJITSymbolFlags jit_partition_flags(LLVMValueRef g, int exported);
/* Claims a name the module did not define when it was added. */
LLVMErrorRef jit_partition_claim(tanjit_session *s,
                                 LLVMOrcMaterializationResponsibilityRef mr,
                                 const char *name, LLVMJITSymbolFlags flags);
/* The engine's module-private functions used from one function only go
 * with it (`attached`: name -> that function's name, owned; free with
 * jit_partition_attached_free); the other
 * private definitions get hidden, session-unique names, claimed in mr.
 * 0, or -1 with *err. */
int jit_partition_prepare(tanjit_session *s, LLVMModuleRef m, unsigned long id,
                          LLVMOrcMaterializationResponsibilityRef mr,
                          strmap *attached, tanjit_error **err);
/* The functions `keep` accepts (by name) alone out of a module's bitcode
 * (taken), in ctx; NULL with *err. */
LLVMModuleRef jit_partition_extract(LLVMContextRef ctx, LLVMMemoryBufferRef bitcode,
                                    int (*keep)(void *, const char *, size_t),
                                    void *keep_arg, tanjit_error **err);
/* default<O{opt_level}> (none for a negative opt_level: a partition of a
 * module optimized whole) and codegen with tm: the object, or NULL with
 * *err; seconds[0] optimizing, seconds[1] generating code. */
LLVMMemoryBufferRef jit_partition_compile(LLVMTargetMachineRef tm, LLVMModuleRef m,
                                          int opt_level, double seconds[2],
                                          tanjit_error **err);
void jit_partition_attached_free(strmap *attached);
/* Every function definition of m becomes a declaration: m keeps the data. */
void jit_partition_keep_data(LLVMModuleRef m);

/* Marks the calls of m (differentiated) that cross units where either
 * side has fast-math flags noinline; 0, or -1 out of memory. */
int jit_partition_mark_boundaries(LLVMModuleRef m);
/* Modules with fewer function definitions compile whole; larger ones in
 * about one partition per JIT_PARTITION_UNITS functions (4 at least,
 * JIT_MAX_PARTS at most), whatever the number of jobs. */
#define JIT_PARALLEL_MIN_FUNCTIONS 64
#define JIT_PARTITION_UNITS 48
#define JIT_MAX_PARTS 64
unsigned jit_partition_count(size_t units);

/* parallel.c */
/* Whether m (differentiated) is compiled in partitions: jobs do not
 * matter, so that --jobs 1 and --jobs N compile the same partitions. */
int jit_parallel_wanted(tanjit_session *s, LLVMModuleRef m);
/* Cuts m (differentiated, partitionable) into jit_partition_count
 * partitions, each optimized and compiled in a context of its own on up to
 * s->jobs threads and emitted under parts of mr; m keeps the data.  0, or
 * -1 with *err. */
int jit_parallel_compile(tanjit_session *s, LLVMModuleRef m, unsigned long id,
                         const char *module_name,
                         LLVMOrcMaterializationResponsibilityRef mr,
                         tanjit_error **err);

/* lazy.c */
/* A lazily compiled function's body, as its module's record keeps it. */
typedef struct jit_lazy_body_state {
  char *body;     /* the symbol its code is defined under */
  int compiled;   /* its code is linked */
  char *failure;  /* why its compile failed, or NULL */
  tanjit_error_code failure_code;
} jit_lazy_body_state;
/* The lazy call-through and stub managers (TANJIT_COMPILE_LAZY). */
int jit_lazy_init(tanjit_session *s, tanjit_error **err);
/* The call-through manager before the JIT is disposed (it holds names of
 * the JIT's symbol pool), the rest after. */
void jit_lazy_dispose_call_through(tanjit_session *s);
void jit_lazy_dispose(tanjit_session *s);
/* request_groups.c: which requests of a lazily compiled module are
 * differentiated together, when the first of their functions compiles. */
typedef struct jit_request_groups {
  strmap holders;     /* function holding requests -> its group (1..n) */
  strmap member;      /* holders and what their requests reach -> group */
  size_t n_groups;
  size_t n_requests;
  int prepare;        /* m names a request function: a transform would
                       * prepare every function (ad_prepare_module) */
} jit_request_groups;
/* 1: m's requests can be differentiated group by group, each when one of
 * its holders is first compiled, with the bits of a whole-module transform
 * (g filled; free it with jit_request_groups_free); 0: only whole (g
 * empty); -1: out of memory. */
int jit_request_groups_plan(tanjit_session *s, LLVMModuleRef m,
                            jit_request_groups *g);
void jit_request_groups_free(jit_request_groups *g);

/* Called by the IR transform on module `id` (record rec->lazy): every
 * function definition leaves m for a body of its own, compiled when first
 * called, its name a lazy re-export of that body; m keeps the data.  With
 * `groups` NULL, m was differentiated whole; else its requests are not
 * differentiated yet, and each group's holders share one body that
 * differentiates them (groups is taken).  0, or -1 with *err. */
int jit_lazy_split(tanjit_session *s, LLVMModuleRef m, unsigned long id,
                   jit_request_groups *groups,
                   LLVMOrcMaterializationResponsibilityRef mr,
                   tanjit_error **err);
/* Frees a record's lazy_bodies. */
void jit_lazy_record_free(jit_module *rec);
/* Under lock: the body state of `symbol` if a split module defines it. */
jit_lazy_body_state *jit_lazy_body_of(tanjit_session *s, const char *symbol);
/* The session's error reporter saw e's text on this thread (session.c):
 * a failed call through a lazy stub reports it. */
void jit_lazy_note_reported(tanjit_session *s, const char *msg);

#endif
