/*
 * The state one module's transform shares across folders: what a
 * derivative computes (its signature, the cache key), the module being
 * transformed, and the body being built.  The vocabulary used everywhere:
 *  - primal: a value of the function being differentiated.  Inside a
 *    derivative body, `ad_primal()` (tangent/) maps it to its clone.
 *  - shadow / tangent: the derivative companion of a primal value.  For a
 *    float it is dv; for a pointer it is the pointer to the shadow memory;
 *    for an integer it is the "shadow integer" (only meaningful when the
 *    integer carries a pointer).  With vector (batched) width N > 1 the
 *    shadow of a value of type T has one lane per direction: <N x T> for
 *    a scalar float T, else [N x T] (tangent/, ad_lanes_type); requests
 *    keep Enzyme's N separate shadows.
 *  - active: a primal value that may carry a non-zero tangent
 *    (analysis/activity.c).  A mutable global that receives active data is
 *    active module-wide and has one shadow global per lane
 *    (analysis/globals.c decides, tangent/shadow_globals.c builds).
 *    An inactive float has tangent 0; an inactive int/pointer used where a
 *    shadow value is needed stands for itself (Enzyme does the same for
 *    constant pointers).
 */
#ifndef TANJIT_AD_CORE_CONTEXT_H
#define TANJIT_AD_CORE_CONTEXT_H

#include <stddef.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "ad/ad.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "common/error.h"

typedef struct ad_module_ctx ad_module_ctx;
typedef struct ad_fn_ctx ad_fn_ctx;
struct ad_types;              /* analysis/types.h */
struct ad_custom_registry;    /* rules/rules.h */
struct ad_derivative_cache;   /* fwd/fwd.h */
struct ad_active_globals;     /* analysis/globals.h */
struct ad_global_shadows;     /* tangent/tangent.h */
struct ad_rule_memo;          /* registry/registry.h */

typedef enum ad_arg_activity {
  AD_ARG_CONST = 0,
  AD_ARG_DUP = 1,
  AD_ARG_DUPNONEED = 2,
  /* duplicated by a caller whose shadow of this pointer may be the pointer
   * itself at run time (an enzyme_const pointer kept in shadowed memory):
   * accesses through it are checked as within the caller (run-time
   * activity) */
  AD_ARG_DUP_RUNTIME = 3
} ad_arg_activity;

typedef enum ad_ret_mode {
  AD_RET_VOID,    /* void: nothing returned                        */
  AD_RET_PRIMAL,  /* the primal result only (inactive return)      */
  AD_RET_TANGENT, /* the tangent only (Enzyme's default for fwddiff) */
  AD_RET_BOTH     /* { primal, tangent } (enzyme_primal_return)     */
} ad_ret_mode;

/* What one derivative function computes; the cache key. */
typedef struct ad_signature {
  LLVMValueRef fn;
  unsigned nparams;
  unsigned char *activity; /* ad_arg_activity per parameter (owned) */
  unsigned width;
  ad_ret_mode ret;
  /* error estimation (__enzyme_error_estimate): each shadow is a bound on
   * its value's rounding error, not a tangent (tangent/error_bound.c) */
  unsigned char error;
  /* the derivative a request calls itself (request.c), never one reached
   * by a call inside differentiated code: only there may an active value
   * go into an enzyme_const parameter's memory that the function never
   * reads back (rules/inst.c ad_fwd_into_unread_constant), since a caller
   * differentiated with it could read that memory after the call and its
   * loads from constant memory carry no tangent.  Part of the cache key. */
  unsigned char direct;
} ad_signature;

/*
 * One module's transform.  Its state is in named parts, each defined and
 * managed by the file whose concept it is; the context points to them
 * (engine.c holds their storage for the transform's lifetime, so a part's
 * header never needs to be seen here):
 *   derivatives  the derivatives made so far, the worklist (fwd/fwd.h,
 *                fwd/derivative.c)
 *   globals      the active globals, their origins and the memos over them
 *                (analysis/globals.h, analysis/globals.c; activity.c's
 *                memo of functions reaching them)
 *   shadows      the shadow globals made (tangent/tangent.h,
 *                tangent/shadow_globals.c)
 *   rules        the call -> rule memo and its lookup count
 *                (registry/registry.h, registry/registry.c)
 *   diag         the error state (core/diag.h, core/diag.c)
 *   rev          the reverse-mode pairs (rev/rev.h, rev/cache.c)
 */
struct ad_module_ctx {
  ad_engine *engine;
  LLVMModuleRef mod;
  LLVMContextRef llctx;
  LLVMTargetDataRef td; /* the module's data layout (owned) */
  struct ad_derivative_cache *derivatives;
  struct ad_active_globals *globals;
  struct ad_global_shadows *shadows;
  struct ad_rule_memo *rules;
  ad_diag diag;
  /* rev/cache.c: the reverse-mode pairs made so far (NULL until the first) */
  struct ad_rev_state *rev;
};

/* One derivative body being built (fwd/derivative.c sets it up). */
struct ad_fn_ctx {
  ad_module_ctx *mc;
  const ad_signature *sig;
  LLVMValueRef primal_fn, deriv_fn;
  LLVMBuilderRef b;
  unsigned width;
  ad_map vmap;   /* primal value / block -> clone */
  ad_map shadow; /* primal value -> shadow in the derivative */
  ad_map active; /* primal value -> (void*)1 when active */
  /* primal block -> the derivative block holding its terminator (a rule
   * may split the block, e.g. an indirect call's dispatch) */
  ad_map exit_block;
  /* PHIs whose incoming values are filled once every block is cloned */
  struct ad_pending_phi {
    LLVMValueRef primal, clone, shadow;
  } *phis;
  size_t nphis, capphis;
  /* primal loads from enzyme_dupnoneed memory and their clones, which must
   * be dead once the body is built (tangent/unneeded.c) */
  struct ad_unneeded_load {
    LLVMValueRef primal, clone;
  } *unneeded_loads;
  size_t nunneeded_loads, capunneeded_loads;
  /* the enzyme_dupnoneed parameters (ad_unneeded_parameters' bits) whose
   * memory had a primal write dropped here, or went to a callee that may
   * drop one: a load from it that stays would read a stale value */
  unsigned long long unneeded_written;
  /* type analysis of primal_fn, computed on first use by
   * ad_copy_layout_of (analysis/types.h) and freed with the context; NULL
   * until then */
  struct ad_types *types;
};

/* The session-wide engine (engine.c owns it), as every folder may read it:
 * the run-time report and its user data (NULL: none) and the custom
 * rules. */
ad_runtime_report ad_engine_runtime_report(const ad_engine *e, void **user);
struct ad_custom_registry *ad_engine_custom(const ad_engine *e);

#endif
