/*
 * The forward-mode engine, as the JIT sees it.
 *
 * Pipeline, per module (src/jit/transform.c calls ad_transform_module before
 * codegen and for `tanjit emit`); ARCHITECTURE.md has the folders:
 *   engine.c      find requests; settle global activity; rewrite inner first
 *   prep/         drop optnone, promote stack slots (SROA), as Enzyme does;
 *                 sign-bit masks on float bits become fabs/fneg
 *   request.c     decode one request: callee, activities, width, result
 *   fwd/          one derivative per (callee, activities, width, return
 *                 mode), cached; clone the body, tangent beside each primal
 *   analysis/     what memory holds; copy layouts; which values and globals
 *                 can carry a derivative
 *   registry/     which rule a call gets; rules/ the rules (instructions,
 *                 math, memory, vector, CUDA, complex, custom, copies)
 *   tangent/      shadows, lanes, tangent arithmetic, runtime activity
 *   ir/, core/    how IR is read; the shared state and diagnostics
 *
 * This header is the engine's face to the rest of tanjit; the engine's own
 * cross-folder internals live in the folders' headers.
 */
#ifndef TANJIT_AD_AD_H
#define TANJIT_AD_AD_H

#include <llvm-c/Core.h>

#include "common/error.h"

/* The most directions one derivative computes (its width, Enzyme's
 * enzyme_width).  request.c rejects wider requests and every derivative's
 * width comes from one, so per-lane arrays (LLVMValueRef
 * lanes[AD_MAX_WIDTH]) always fit. */
#define AD_MAX_WIDTH 64

typedef struct ad_engine ad_engine;

/* What derivative code calls at run time when it reaches something that
 * could not be differentiated (an indirect call's target): what, and why
 * (strings the module itself holds).  The code names the report and its
 * first argument by the two symbols below, never by address, so that an
 * object of it is valid in another process (the object cache): the JIT
 * defines them in each session. */
typedef void (*ad_runtime_report)(void *user, const char *what,
                                  const char *why);
#define AD_RUNTIME_REPORT_SYMBOL "tanjit.runtime_report"
#define AD_RUNTIME_REPORT_DATA_SYMBOL "tanjit.runtime_report_data"
/* The same for a call through a pointer that matches none of the targets
 * the code dispatches on: (user, target, what, why), the session
 * describing the target (its symbol and object, where the loader knows
 * them, else its address) in front of what. */
#define AD_RUNTIME_TARGET_REPORT_SYMBOL "tanjit.runtime_report_target"
/* void (ptr): releases a reverse-mode BLAS cache copy (rev/blas.c) one
 * release late: the copy freed now is the one given the time before.
 * Enzyme's ReverseMode/blas.cpp writes into a gradient's cache of x after
 * the gradient returned (its fake BLAS copies for real there), which
 * glibc's allocator survives after Enzyme's code only by chance; the one
 * block held keeps that write in live memory.  Defined by the JIT in each
 * session (by name, as the report is). */
#define AD_RUNTIME_RELEASE_COPY_SYMBOL "tanjit.runtime_release_copy"
/* ptr (i64): the malloc whose blocks AD_RUNTIME_RELEASE_COPY_SYMBOL frees,
 * the runtime's own, whatever the JIT code's `malloc` resolves to (a
 * --lib library's dependencies may bind it to libc's, under a sanitizer
 * that intercepts the runtime's). */
#define AD_RUNTIME_ALLOC_COPY_SYMBOL "tanjit.runtime_alloc_copy"

/* Per-session engine state (custom rules, caches).  NULL on out of memory. */
ad_engine *ad_engine_new(void);
void ad_engine_free(ad_engine *e); /* NULL-tolerant */
/* How many times this engine's transforms asked the rule families which
 * rule a call gets (at most once per call site of each transform: the
 * analyses and the rules share a memo).  For tests and measurements. */
unsigned long ad_engine_rule_lookups(const ad_engine *e);
/* Whether tangent arithmetic carries reassoc, nsz and contract
 * (tanjit_options.derivative_fp; a new engine's default: yes).  Set before
 * the engine's first transform. */
void ad_engine_set_fast_derivatives(ad_engine *e, int fast);
int ad_engine_fast_derivatives(const ad_engine *e);
/* The call sites (calls and invokes in function bodies) of the modules this
 * engine differentiated, counted as each transform starts: the measure the
 * lookups above are held to. */
unsigned long ad_engine_call_sites(const ad_engine *e);
/* Whether derivative code reports before it traps (fn non-NULL: the JIT
 * defines AD_RUNTIME_REPORT_SYMBOL as fn and AD_RUNTIME_REPORT_DATA_SYMBOL
 * at user); fn NULL: a plain trap. */
void ad_engine_set_runtime_report(ad_engine *e, ad_runtime_report fn,
                                  void *user);

/*
 * Registers `derivative` as the forward rule for calls to `function`
 * (tanjit_register_fwd_rule; flags as there).  Copies both names.  Safe to
 * call while other threads transform modules.  0, or -1 with *err set.
 */
int ad_engine_register_rule(ad_engine *e, const char *function,
                            const char *derivative, unsigned flags,
                            tanjit_error **err);

/*
 * Registers the reverse rule for calls to `function`
 * (tanjit_register_rev_rule): `augmented` (may be NULL) and `reverse`,
 * symbols with the signatures of rev/custom.c.  Copies the names.  Safe to
 * call while other threads transform modules.  0, or -1 with *err set.
 */
int ad_engine_register_rev_rule(ad_engine *e, const char *function,
                                const char *augmented, const char *reverse,
                                tanjit_error **err);

/* The metadata an in-IR gradient registration becomes on its function:
 * !{ptr @augmented, ptr @reverse} (rules/custom.c writes, rev/custom.c
 * reads). */
#define AD_GRADIENT_MD "enzyme_gradient"

/*
 * Reads Enzyme's registration globals (__enzyme_register_derivative*,
 * __enzyme_register_gradient*, __enzyme_inactivefn*,
 * __enzyme_function_like*) into function metadata and attributes, which
 * survive bitcode copies.  `at_load` (before the JIT owns
 * the module): the globals are erased; otherwise a non-local definition is
 * kept, emptied to zeros (the JIT expects it).  Idempotent.  0, or -1 with
 * *err naming the global.  (rules/custom.c)
 */
int ad_custom_read_registrations(LLVMModuleRef m, int at_load,
                                 tanjit_error **err);

/* The session renames module-private symbols at load to <name> this <N>
 * (src/jit/session.c); tanjit_fwddiff finds them by <name> and error
 * messages show them so. */
#define TANJIT_PRIVATE_SUFFIX ".tanjit.m"

/* Whether f's address is used other than as the callee of a call or
 * invoke (f(f) counts): a function that may be reached through a pointer.
 * (ir.c; also what src/jit's views and run-time requests go by.) */
int ad_function_address_taken(LLVMValueRef f);

/* A constant pointer to host memory p, for code that calls back into the
 * library or hands it data (lazy stubs, run-time reports). (ir.c) */
LLVMValueRef ad_address_constant(LLVMContextRef ctx, const void *p);

/*
 * What calls to `f` are, by its name alone (one predicate for the engine
 * and the JIT; engine.c).  A declaration is a request when its name
 * contains an entry point's name, as Enzyme decides (C++ mangles
 * templates: _Z16__enzyme_fwddiffIdJddEET_PvDpT0_; C's asm labels give
 * variants).  A definition is one only under the entry point's own name or
 * its C++ mangling: a fallback stub (code built without Enzyme carries
 * one), whose body is ignored, as Enzyme ignores it; a function of the
 * program merely containing the name (call__enzyme_fwddiff_cube) is
 * ordinary code.
 */
typedef enum ad_request_kind {
  AD_NOT_A_REQUEST = 0,
  AD_REQUEST_FORWARD, /* __enzyme_fwddiff */
  AD_REQUEST_ERROR,   /* __enzyme_error_estimate: forward mode whose
                         shadows bound rounding errors */
  AD_REQUEST_REVERSE, /* __enzyme_autodiff (rev/) */
  AD_REQUEST_BATCH,   /* __enzyme_batch: N primal evaluations (batch.c) */
  AD_REQUEST_SPLIT    /* __enzyme_augmentfwd, __enzyme_reverse,
                         __enzyme_augmentsize, __enzyme_virtualreverse:
                         split reverse mode (rev/split.c) */
} ad_request_kind;
ad_request_kind ad_request_kind_of(LLVMValueRef f);
/* A request tanjit rewrites: any kind but AD_NOT_A_REQUEST. */
int ad_is_request_function(LLVMValueRef f);

/*
 * Replaces every derivative request in `m` (calls to functions whose name
 * contains __enzyme_fwddiff) by a call to a generated forward-mode
 * derivative (forward mode), and every __enzyme_autodiff request by a
 * gradient (reverse mode, rev/); generated functions get internal linkage.
 * Split reverse mode (__enzyme_augmentfwd, __enzyme_reverse) becomes the
 * two halves of a gradient, the tape handed between them.
 * Returns 0, or -1 with *err set (code TANJIT_ERR_DIFFERENTIATE for a
 * request that cannot be honoured, message naming what, where, why); on
 * failure the module may be partly rewritten and the caller discards it.
 * Safe to call concurrently on different modules.
 */
int ad_transform_module(ad_engine *e, LLVMModuleRef m, tanjit_error **err);

/*
 * What ad_transform_module does to a module that requests derivatives
 * before it differentiates anything (registrations read, optnone dropped,
 * stack slots promoted, sign-bit masks rewritten), alone: for a function
 * compiled apart from the requests of its module (lazy compilation,
 * src/jit/lazy.c), so that it is the code an eager transform leaves.
 * 0, or -1 with *err set.
 */
int ad_prepare_module(ad_engine *e, LLVMModuleRef m, tanjit_error **err);

#endif
