/*
 * tanjit: a JIT runtime that differentiates LLVM IR, in forward and reverse
 * mode, as it loads.
 *
 * A frontend hands a session LLVM IR (text, bitcode or an in-process
 * LLVMModuleRef).  When a symbol of a module is first looked up, the module
 * is transformed (every __enzyme_fwddiff request is replaced by a call to a
 * generated derivative, every __enzyme_autodiff request by a call to a
 * generated gradient), verified, optimized and compiled on LLVM's ORC JIT.
 *
 * Ownership and errors, once for the whole API:
 *  - Every fallible call takes a `tanjit_error **err` (may be NULL).  On
 *    failure it returns -1 (or NULL) and, if err is non-NULL, stores a new
 *    error object that the caller frees with tanjit_error_free().
 *  - The library never aborts, exits or prints; the one exception is the
 *    default handler for a *call* to an unresolved symbol under lazy
 *    binding, which has no value to return (see tanjit_unresolved_handler).
 *  - Strings passed in are copied; strings returned are owned as documented
 *    at each function.
 *
 * Threading: one session may be used from several threads at once.
 */
#ifndef TANJIT_TANJIT_H
#define TANJIT_TANJIT_H

#include <stddef.h>

/* The version of this header; meson.build refuses to configure when these
 * differ from the project's version.  tanjit_version() is the library's. */
#define TANJIT_VERSION_MAJOR 0
#define TANJIT_VERSION_MINOR 1
#define TANJIT_VERSION_PATCH 0
#define TANJIT_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TANJIT_API __attribute__((visibility("default")))
#else
#define TANJIT_API
#endif

typedef struct tanjit_session tanjit_session;
typedef struct tanjit_error tanjit_error;

/* What went wrong, coarsely; the message says the rest. */
typedef enum tanjit_error_code {
  TANJIT_OK = 0,
  TANJIT_ERR_INVALID_ARGUMENT, /* NULL session, bad option, bad request    */
  TANJIT_ERR_IO,               /* a file could not be read                  */
  TANJIT_ERR_PARSE,            /* malformed IR text or bitcode              */
  TANJIT_ERR_VERIFY,           /* the module fails LLVM's verifier          */
  TANJIT_ERR_LIBRARY,          /* a library could not be loaded / allowed   */
  TANJIT_ERR_SYMBOL,           /* a symbol could not be resolved or found   */
  TANJIT_ERR_LINK,             /* duplicate definitions, codegen failure    */
  TANJIT_ERR_DIFFERENTIATE,    /* a derivative request cannot be honoured   */
  TANJIT_ERR_UNSUPPORTED,      /* e.g. reverse mode                         */
  TANJIT_ERR_NO_MEMORY,
  TANJIT_ERR_INTERNAL          /* an LLVM error with no better category     */
} tanjit_error_code;

TANJIT_API tanjit_error_code tanjit_error_get_code(const tanjit_error *err);
/* Borrowed; valid until tanjit_error_free(err). */
TANJIT_API const char *tanjit_error_message(const tanjit_error *err);
TANJIT_API void tanjit_error_free(tanjit_error *err); /* NULL-tolerant */
/*
 * Where the error arose, when known (a differentiation error always has its
 * function, usually its instruction; file, line and column come from the
 * IR's debug info): the function as the frontend named it, the IR text of
 * the instruction, the source file.  A tanjit_fwddiff or tanjit_autodiff
 * request refused as a whole is located at the function requested, with
 * no instruction.  NULL or 0 when unknown; strings are borrowed, valid
 * until tanjit_error_free(err).
 */
TANJIT_API const char *tanjit_error_function(const tanjit_error *err);
TANJIT_API const char *tanjit_error_instruction(const tanjit_error *err);
TANJIT_API const char *tanjit_error_file(const tanjit_error *err);
TANJIT_API unsigned tanjit_error_line(const tanjit_error *err);
TANJIT_API unsigned tanjit_error_column(const tanjit_error *err);

/* The version of the tanjit library loaded ("MAJOR.MINOR.PATCH"), which may
 * differ from the header's TANJIT_VERSION_STRING; and the version of the
 * LLVM library it runs on ("19.1.7").  Static strings. */
TANJIT_API const char *tanjit_version(void);
TANJIT_API const char *tanjit_llvm_version(void);

/*
 * Called when code calls a symbol that lazy binding could not resolve.
 * `library` is the library it was expected in (NULL if none was named) and
 * `reason` says why resolution failed (e.g. the dlerror() text).  If the
 * handler returns, the stub returns zero to its caller.
 */
typedef void (*tanjit_unresolved_handler)(void *user, const char *symbol,
                                          const char *library,
                                          const char *reason);

typedef enum tanjit_binding {
  TANJIT_BIND_STRICT = 0, /* an unresolved external fails the lookup     */
  TANJIT_BIND_LAZY = 1    /* it binds to a stub that reports when called */
} tanjit_binding;

typedef enum tanjit_compile_mode {
  TANJIT_COMPILE_EAGER = 0, /* a module whole, at its first lookup     */
  TANJIT_COMPILE_LAZY = 1   /* each function at its first call/lookup  */
} tanjit_compile_mode;
/* The floating-point flags of derivative arithmetic: the instructions
 * tanjit adds to compute tangents, never the primal's own (README
 * "Derivative arithmetic"). */
typedef enum tanjit_derivative_fp {
  /* Tangent arithmetic may be reassociated and contracted, and ignores the
   * sign of zero (reassoc nsz contract), as Enzyme's default
   * enzyme-fast-math: LLVM may factor and fuse it, so derivatives can
   * differ from strict evaluation in the last bits. */
  TANJIT_DERIVATIVE_FP_FAST = 0,
  /* Tangent arithmetic carries only the primal instruction's own flags,
   * evaluated in the order the rules write it. */
  TANJIT_DERIVATIVE_FP_STRICT = 1
} tanjit_derivative_fp;

/*
 * Session options.  The struct grows at its end from release to release;
 * `struct_size` keeps old callers working: tanjit_options_init sets it to
 * the sizeof the caller was compiled with, and the library reads only the
 * fields within that size, giving every later field its default.  Always
 * fill the struct with tanjit_options_init before setting fields; a
 * struct_size of 0 (an uninitialized struct) is an error.
 */
typedef struct tanjit_options {
  size_t struct_size; /* set by tanjit_options_init: sizeof(tanjit_options) */
  int opt_level; /* 0..3: IR pipeline default<ON> and codegen level; default 2 */
  /* Directories searched, in order, for a library named by a bare soname in
   * an `ejlstr$fn$lib` rename or in tanjit_add_library(); then the system's
   * own search.  NULL-terminated; may be NULL. */
  const char *const *library_dirs;
  /* If non-NULL, the only libraries renamed ccalls may load (NULL-terminated
   * list).  An entry without a '/' is a bare name: it allows exactly that
   * name written in the IR (found through library_dirs or the system's
   * search), never a path ending in it.  An entry with a '/' allows only
   * the file it names: a path in the IR is allowed when its canonical path
   * (realpath) is that entry's. */
  const char *const *allowed_libraries;
  tanjit_binding binding;
  tanjit_unresolved_handler on_unresolved; /* NULL: print one line, abort */
  void *on_unresolved_user;
  /* The largest file tanjit_load_file/tanjit_emit_file read, in bytes;
   * 0: TANJIT_DEFAULT_MAX_INPUT_BYTES.  Only regular files are read. */
  size_t max_input_bytes;
  /* Bitcode (tanjit_load_file/_memory, the emit functions) is untrusted by
   * default: it is parsed, verified and re-serialized first in the helper
   * process tanjit-bitcode-check, so a crash of LLVM's bitcode reader on a
   * malformed file is an error (TANJIT_ERR_PARSE), not the host's crash.
   * Nonzero: parse it in-process (about 30 ms less per load: the helper's
   * start; README.md).  Modules
   * passed to tanjit_load_module and IR text never use the helper. */
  int trust_bitcode;
  /* The helper's path; NULL: the TANJIT_BITCODE_CHECK environment variable,
   * else the libexec directory beside the library. */
  const char *bitcode_checker;
  /* Makes compiled code visible to debuggers through the GDB JIT interface
   * (gdb, lldb): backtraces name JIT functions, with file:line where the IR
   * carries debug info (clang -g).  Costs memory per compiled module. */
  int debug_info;
  /* Appends each compiled function to /tmp/perf-<pid>.map, which `perf
   * report` reads to name JIT code (implies the registration above). */
  int perf_map;
  /* The persistent object cache: compiled modules are kept as object files
   * in this directory (created when needed) and reused by later sessions
   * and processes; NULL: no cache.  A cache that fails (unwritable, full)
   * never fails a load: it is a session warning.  See README "Object
   * cache" for what is cached and what keys it. */
  const char *cache_dir;
  /* The cache directory's size bound, least recently used entries deleted
   * first; 0: TANJIT_DEFAULT_CACHE_BYTES. */
  size_t cache_max_bytes;
  /* Flags of derivative arithmetic; default TANJIT_DERIVATIVE_FP_FAST.
   * Part of the object cache's key. */
  tanjit_derivative_fp derivative_fp;
  /* When code is compiled (README "Compile latency"): TANJIT_COMPILE_EAGER
   * (the default) compiles a module whole at the first lookup of one of
   * its symbols; TANJIT_COMPILE_LAZY differentiates it then but compiles
   * each function on its first call (or tanjit_lookup), through ORC's lazy
   * re-exports, so a function never called is never compiled and its
   * errors fail only its own lookup or call. */
  tanjit_compile_mode compile_mode;
  /* Threads that optimize and compile a large module's partitions at once
   * (README "Compile latency"); 0: the number of cores, 1: one. */
  unsigned jobs;
} tanjit_options;

#define TANJIT_DEFAULT_MAX_INPUT_BYTES ((size_t)1 << 30) /* 1 GiB */
#define TANJIT_DEFAULT_CACHE_BYTES ((size_t)1 << 30)     /* 1 GiB */

/* Fills *opts with the defaults (O2, strict binding, no directories) and
 * sets struct_size.  A macro, so struct_size is the caller's sizeof. */
TANJIT_API void tanjit_options_init_sized(tanjit_options *opts, size_t size);
#define tanjit_options_init(opts) \
  tanjit_options_init_sized((opts), sizeof(tanjit_options))

/* opts may be NULL (defaults).  Returns NULL on failure. */
TANJIT_API tanjit_session *tanjit_session_new(const tanjit_options *opts,
                                   tanjit_error **err);
/* Releases the JIT, every compiled module and every library handle the
 * session opened.  Addresses it handed out become invalid.  NULL-tolerant. */
TANJIT_API void tanjit_session_free(tanjit_session *s);

/*
 * Registers a library whose symbols resolve externals of later lookups,
 * searched in registration order after the modules' own definitions.  It is
 * opened RTLD_LAZY|RTLD_LOCAL: never made global to the process.  A bare name
 * is searched in the options' library_dirs first.  An empty name is refused
 * (dlopen would give the main program).  0 or -1.
 */
TANJIT_API int tanjit_add_library(tanjit_session *s, const char *path, tanjit_error **err);

/*
 * Binds `name` to `address` in the embedding program (a host function or
 * variable) for every later compile: found before the registered libraries,
 * renamed ccalls and the process, so the program needs no -rdynamic.  The
 * address must stay valid as long as the session.  Defining a name again at
 * the same address is a no-op; a name already defined otherwise (by a
 * loaded module, another address, or an external an earlier compile
 * resolved) is a TANJIT_ERR_LINK error.  0 or -1.
 */
TANJIT_API int tanjit_define_symbol(tanjit_session *s, const char *name,
                                    void *address, tanjit_error **err);

/*
 * Loading.  Each verifies the module and adds it to the session; nothing is
 * compiled until one of its symbols is looked up.  0 or -1; after a failure
 * the session is unchanged and stays usable.
 *  - tanjit_load_file: `.ll` text or `.bc` bitcode, detected from content.
 *  - tanjit_load_memory: the same from a buffer (copied); `name` names it in
 *    messages and may be NULL.
 *  - tanjit_load_module: a module the frontend built in-process.  tanjit
 *    TAKES OWNERSHIP of `m` and disposes it before returning, on success and
 *    on failure; the module's LLVMContext stays the caller's (tanjit works on
 *    its own copy in its own context).
 */
TANJIT_API int tanjit_load_file(tanjit_session *s, const char *path, tanjit_error **err);
TANJIT_API int tanjit_load_memory(tanjit_session *s, const void *buf, size_t len,
                       const char *name, tanjit_error **err);
struct LLVMOpaqueModule;
TANJIT_API int tanjit_load_module(tanjit_session *s, struct LLVMOpaqueModule *m,
                       tanjit_error **err);

/*
 * Removes the module loaded under `module_name` (the `name` given to
 * tanjit_load_memory, the path given to tanjit_load_file; every module
 * loaded under that name), with its code, so that a module defining the
 * same names can be loaded.  Code compiled against it is never left
 * calling freed code:
 *  - a loaded module whose compiled code refers to its names (directly or
 *    through other such modules), or whose own __enzyme_fwddiff requests
 *    were differentiated through its code, is RE-LINKED: its code is
 *    dropped and it compiles again at its next lookup, against whatever
 *    defines the names then; its global state starts afresh;
 *  - a derivative from tanjit_fwddiff made while it was loaded (it may be
 *    built from its IR), or whose code refers to a re-linked module, is
 *    removed with its cache entry (a repeat request makes it anew).
 * Every address handed out for the unloaded, re-linked or removed code
 * becomes invalid.  A name no module was loaded under is a
 * TANJIT_ERR_INVALID_ARGUMENT error.  0 or -1 (-1 after the unload itself
 * succeeded only if a dependent could not be added again: the error says
 * which).  Host symbols and registered libraries are not modules.
 */
TANJIT_API int tanjit_unload(tanjit_session *s, const char *module_name,
                             tanjit_error **err);

/*
 * Returns the address of `symbol` (compiling its module first if needed), or
 * NULL with an error: a missing symbol, an unresolved external, or a
 * transform (differentiation) error, whose own message is returned.  After a
 * failed compile the failing module is removed, so the session stays usable.
 */
TANJIT_API void *tanjit_lookup(tanjit_session *s, const char *symbol, tanjit_error **err);
/* The same, for a caller that will call the result: fails with
 * TANJIT_ERR_SYMBOL when `symbol` is a variable (data), not code. */
TANJIT_API void *tanjit_lookup_function(tanjit_session *s, const char *symbol,
                                        tanjit_error **err);

/*
 * Warnings: what LLVM or tanjit noticed and worked around without failing
 * (debug info dropped as invalid, a target-cpu or target-feature the host
 * does not know, dropped), in order, never printed by the library.  The
 * strings are borrowed and stay valid until tanjit_session_free.  A session
 * keeps the first 1000; past them the last entry says more were dropped.
 */
TANJIT_API size_t tanjit_session_warning_count(tanjit_session *s);
TANJIT_API const char *tanjit_session_warning(tanjit_session *s, size_t i);

/*
 * What the session's compilations cost so far, for a frontend that wants to
 * know what differentiating on load adds to its compile latency.  Times are
 * wall-clock seconds on the compiling threads, summed over every module
 * that went through the transform (lookups, tanjit_fwddiff, and the emit
 * functions, which compile nothing, so add no codegen time).
 */
typedef struct tanjit_stats {
  unsigned long modules;    /* modules transformed (lazy-binding stubs too) */
  unsigned long requests;   /* __enzyme_fwddiff calls replaced */
  double differentiate_seconds; /* the engine: requests, derivatives */
  double optimize_seconds;      /* the default<O{level}> pipeline */
  double codegen_seconds;       /* optimized IR to object code */
  /* The object cache (tanjit_options.cache_dir): modules added from it, */
  unsigned long cache_hits;
  /* cacheable modules compiled (and stored), */
  unsigned long cache_misses;
  /* entries deleted to keep the size bound, and failures (each also a
   * session warning: an entry ignored as invalid, a write that failed). */
  unsigned long cache_evictions;
  unsigned long cache_errors;
  /* The engine's rule lookups (which rule a call gets, asked of the rule
   * families) and the call sites of the modules it differentiated: one
   * lookup per call site at most, whatever asks (analyses, rules). */
  unsigned long rule_lookups;
  unsigned long call_sites;
  /* Eager compilation of large modules in partitions (tanjit_options.jobs):
   * the partitions optimized and compiled apart, and the most threads
   * that compiled one module's partitions at once. */
  unsigned long partitions;
  unsigned long partition_threads;
} tanjit_stats;

/* Copies the session's totals into *out.  Safe from any thread.  The
 * struct grows at its end as tanjit_options does: the macro passes the
 * caller's sizeof, and the library writes only the fields within it
 * (tanjit_session_stats_sized); a caller built before the size was passed
 * gets the fields up to cache_errors. */
TANJIT_API void tanjit_session_stats_sized(tanjit_session *s, tanjit_stats *out,
                                           size_t size);
TANJIT_API void tanjit_session_stats(tanjit_session *s, tanjit_stats *out);
#define tanjit_session_stats(s, out) \
  tanjit_session_stats_sized((s), (out), sizeof(tanjit_stats))

/*
 * The text of the IR in file `path` (as tanjit_load_file reads it) after the
 * session's transform (differentiation) and optimization pipeline, without
 * compiling it.  Caller frees the result with tanjit_free().
 */
TANJIT_API char *tanjit_emit_file(tanjit_session *s, const char *path, tanjit_error **err);
/* The same for IR text or bitcode in a buffer (copied); `name` names it in
 * messages and may be NULL. */
TANJIT_API char *tanjit_emit_memory(tanjit_session *s, const void *buf, size_t len,
                                    const char *name, tanjit_error **err);

/*
 * Derivatives on request.
 *
 * tanjit_fwddiff returns the address of the forward-mode derivative of
 * `function`, a function defined by a module loaded earlier (compiled or
 * not), for the given activity of each of its `nargs` parameters and
 * `width` >= 1 directions.  The derivative has the calling convention an
 * `__enzyme_fwddiff(function, <markers>, args...)` call would have:
 *
 *   - parameters, in order: a TANJIT_CONST parameter passes its value; a
 *     TANJIT_DUP or TANJIT_DUPNONEED parameter passes its value, then its
 *     shadow (width 1) or `width` shadows, one per direction (width > 1);
 *     the types are the IR parameter types: a struct the C ABI passes by
 *     value in memory (clang's `byval`, e.g. 24 bytes or more on x86-64)
 *     is a pointer parameter here, and so is its shadow;
 *   - with width 1 it returns the tangent of the function's result (for a
 *     float, float vector, pointer, or aggregate-of-those result; nothing
 *     for other result types);
 *   - with width > 1 and such a result, it returns void and takes one more
 *     parameter FIRST: `T *out`, where it stores the `width` tangents
 *     (`T out[width]`), whatever the size of T.
 *
 * Example, for `double f(double x, const double *a, int n)`:
 *
 *   tanjit_activity act[] = {TANJIT_DUP, TANJIT_DUP, TANJIT_CONST};
 *   double (*df)(double, double, const double *, const double *, int) =
 *       (double (*)(double, double, const double *, const double *, int))
 *       tanjit_fwddiff(s, "f", act, 3, 1, &err);
 *   double dy = df(x, 1.0, a, da, n);   // d f / d x + d f / d a . da
 *
 * The session keeps a pristine copy of every loaded module's IR, so a
 * derivative can be made after its module was compiled and ran, and through
 * calls into other loaded modules.  Derivatives are cached per (function,
 * activities, width): a repeat request is a hash lookup.  The address lives
 * as long as the session, or until tanjit_unload of a module loaded before
 * it was made.  Returns NULL with an error for an unknown
 * function, a wrong activity count (found before any activity is read:
 * `activities` may be shorter than a wrong `nargs`) or value (TANJIT_ACTIVE
 * is reverse mode's), width 0, or a function that cannot be differentiated (the
 * engine's message).
 */
typedef enum tanjit_activity {
  TANJIT_CONST = 0,    /* no derivative flows through this parameter     */
  TANJIT_DUP = 1,      /* value and shadow                                */
  TANJIT_DUPNONEED = 2, /* value and shadow; the primal memory is not
                           needed: forward mode leaves out the primal
                           writes into it, so it may be (T *)0x1 */
  TANJIT_ACTIVE = 3     /* reverse mode (tanjit_autodiff) only: a float
                           scalar passed by value whose adjoint is returned */
} tanjit_activity;

TANJIT_API void *tanjit_fwddiff(tanjit_session *s, const char *function,
                                const tanjit_activity *activities, size_t nargs,
                                unsigned width, tanjit_error **err);

/*
 * tanjit_fwddiff with flags.  TANJIT_FWDDIFF_RETURN_PRIMAL (Enzyme.jl's
 * ForwardWithPrimal, `enzyme_primal_return` in IR): the derivative computes
 * the primal result too.  For a result with a tangent it returns void and
 * takes `T *out` FIRST, where it stores the primal and then the `width`
 * tangents (`T out[1 + width]`), for every width; for a result with none
 * (an integer) it returns the primal.  Cached apart from the plain request.
 */
enum { TANJIT_FWDDIFF_RETURN_PRIMAL = 1 };
TANJIT_API void *tanjit_fwddiff_with_flags(tanjit_session *s, const char *function,
                                           const tanjit_activity *activities,
                                           size_t nargs, unsigned width,
                                           unsigned flags, tanjit_error **err);

/*
 * Gradients on request: tanjit_autodiff returns the address of the
 * reverse-mode derivative of `function` (defined by a module loaded
 * earlier, compiled or not) for the activity of each of its `nargs`
 * parameters, with the calling convention an
 * `__enzyme_autodiff(function, <markers>, args...)` call with the same
 * markers has (enzyme_const, enzyme_dup, enzyme_dupnoneed, enzyme_out):
 *
 *   - parameters, in order: a TANJIT_CONST or TANJIT_ACTIVE parameter
 *     passes its value; a TANJIT_DUP or TANJIT_DUPNONEED parameter (a
 *     pointer) passes its value, then its shadow, into which the gradient
 *     is ACCUMULATED (`+=`: zero it first for a plain gradient; the
 *     caller owns it, tanjit never keeps it); the types are the IR
 *     parameter types;
 *   - TANJIT_ACTIVE is for float scalars (float, double, long double,
 *     half, __float128); a float result is seeded with 1.0 (the
 *     derivative computes d result / d inputs); another result is not
 *     differentiated and not returned (a void or integer function's
 *     gradient is what it stores into the shadows);
 *   - it returns the adjoints of the TANJIT_ACTIVE parameters, in
 *     parameter order: nothing when there is none, the value itself for
 *     one, and for several `struct { T1 d1; T2 d2; ... }` under the C ABI
 *     of the host (x86-64: in registers up to 16 bytes, else through a
 *     hidden result pointer, exactly as a C function returning that
 *     struct; other hosts: LLVM's lowering of the literal struct, which is
 *     C's for up to four members of one type on AArch64).
 *
 * Example, for `double f(double x, const double *a, int n)`:
 *
 *   tanjit_activity act[] = {TANJIT_ACTIVE, TANJIT_DUP, TANJIT_CONST};
 *   double (*gf)(double, const double *, double *, int) =
 *       (double (*)(double, const double *, double *, int))
 *       tanjit_autodiff(s, "f", act, 3, 1, &err);
 *   double dx = gf(x, a, da, n);   // da[i] += d f / d a[i]
 *
 * `width` must be 1: vector reverse mode is a TANJIT_ERR_UNSUPPORTED
 * error.  Cached per (function, activities, width) as tanjit_fwddiff's
 * derivatives are (also in the object cache), with the same lifetime and
 * tanjit_unload behaviour.  Returns NULL with an error for an unknown
 * function (TANJIT_ERR_SYMBOL), a wrong activity count or value, a
 * TANJIT_ACTIVE parameter that is not a float scalar, a duplicated one
 * that is not a pointer (TANJIT_ERR_INVALID_ARGUMENT), or a function the
 * engine cannot differentiate in reverse mode (its message); the session
 * stays usable.
 */
TANJIT_API void *tanjit_autodiff(tanjit_session *s, const char *function,
                                 const tanjit_activity *activities, size_t nargs,
                                 unsigned width, tanjit_error **err);

/*
 * Custom derivatives for symbols with no IR (a ccall into a closed library):
 * calls to `function` (by plain name, by `"enzyme_math"="function"`, or by
 * the rename `ejlstr$function$lib`) are differentiated by calling
 * `derivative`, a symbol resolved like any external (loaded modules,
 * registered libraries, renamed ccalls, the process).  A registered rule
 * wins over the built-in tables.
 *
 * For `R function(A1 a1, ..., An an)` the derivative is
 *
 *     R derivative(A1 a1, A1 da1, ..., An an, An dan)
 *
 * every float, float-vector or pointer parameter followed by its shadow
 * (the zero tangent, or for a pointer the shadow memory, when the argument
 * is inactive), other parameters passed alone.  It returns the tangent of
 * the result (nothing for a void function) and runs just before the primal
 * call, so it sees the inputs of a function that updates memory in place;
 * with TANJIT_RULE_RETURNS_PRIMAL it returns `struct { R primal, tangent; }`
 * instead, and the primal call is not made.  Registrations apply to modules
 * compiled after the call.  In-IR registrations (Enzyme's
 * `__enzyme_register_derivative_<name>` globals, `__enzyme_inactivefn`,
 * `__enzyme_function_like`, the `enzyme_inactive` attribute) need no API.
 */
enum { TANJIT_RULE_RETURNS_PRIMAL = 1 };
TANJIT_API int tanjit_register_fwd_rule(tanjit_session *s, const char *function,
                                        const char *derivative, unsigned flags,
                                        tanjit_error **err);
/* The same rule with the derivative given by its address in the embedding
 * program (with the signature above), so it needs no symbol name: the
 * usual companion of tanjit_define_symbol for a host function.  Messages
 * call it "derivative of <function> at <address>". */
TANJIT_API int tanjit_register_fwd_rule_address(tanjit_session *s,
                                                const char *function,
                                                void *derivative, unsigned flags,
                                                tanjit_error **err);

/*
 * Custom reverse-mode rules, for symbols with no IR (or to override one's
 * body): in a gradient, calls to `function` (matched as forward rules are:
 * its plain name or its "enzyme_math" name) call `augmented` in the
 * forward pass and `reverse` in the reverse pass, symbols resolved like
 * any external.  A separate registration from tanjit_register_fwd_rule
 * because the two modes' rules differ in shape (one tangent function
 * there; a pair sharing a tape here) and a frontend often has one without
 * the other.  For `R function(A1 a1, ..., An an)`:
 *
 *     void *augmented(A1 a1, [A1 da1,] ..., An an, [An dan])
 *     <adjoints> reverse(A1 a1, [A1 da1,] ..., An an, [An dan],
 *                        [R dresult,] [void *tape])
 *
 *  - a pointer parameter is followed by its shadow (the memory its
 *    gradient is accumulated into: the rule ADDS to it), NULL when the
 *    argument is inactive; other parameters are passed alone;
 *  - augmented runs just before the primal call, which is kept (it sees
 *    the inputs of a function that updates memory in place), and returns
 *    the tape: any pointer, handed to this call's reverse (each dynamic
 *    call gets its own back).  `augmented` may be NULL: nothing runs in
 *    the forward pass and reverse takes no tape;
 *  - reverse takes the adjoint of a float result (dresult; 0 when the
 *    result does not matter to the gradient) and returns the adjoints of
 *    the float scalar parameters, in order: nothing, the value alone, or
 *    for several the LLVM struct of them (C's `struct {double a, b;}` on
 *    x86-64; for floats return them in separate calls or as doubles).
 *    The adjoint of an argument that is inactive is ignored.
 *
 * Enzyme's in-IR registration needs no API:
 * `void *__enzyme_register_gradient_<x>[3] = {f, augmented, reverse}`, with
 * Enzyme's signatures (src/ad/rev/README.md).  flags must be 0.  Rules
 * apply to modules compiled after the call.  0 or -1.
 */
TANJIT_API int tanjit_register_rev_rule(tanjit_session *s, const char *function,
                                        const char *augmented,
                                        const char *reverse, unsigned flags,
                                        tanjit_error **err);
/* The same with the functions given by address in the embedding program
 * (augmented may be NULL).  Messages call them "augmented forward of
 * <function> at <address>" and "reverse of <function> at <address>". */
TANJIT_API int tanjit_register_rev_rule_address(tanjit_session *s,
                                                const char *function,
                                                void *augmented, void *reverse,
                                                unsigned flags,
                                                tanjit_error **err);

/* Frees a string returned by tanjit.  NULL-tolerant. */
TANJIT_API void tanjit_free(void *p);

#ifdef __cplusplus
}
#endif
#endif /* TANJIT_TANJIT_H */
