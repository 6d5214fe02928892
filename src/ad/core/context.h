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
 *    shadow of a value of type T has type [N x T], one lane per direction
 *    (Enzyme's convention).
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
#include "ad/core/map.h"
#include "common/error.h"

typedef struct ad_module_ctx ad_module_ctx;
typedef struct ad_fn_ctx ad_fn_ctx;
struct ad_types;           /* analysis/types.h */
struct ad_custom_registry; /* rules/rules.h */

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
} ad_signature;

typedef struct ad_cache_entry {
  ad_signature sig;
  LLVMValueRef derivative;
  size_t prev_same_fn; /* 1 + index of the previous entry for sig.fn, or 0 */
  int built;           /* its body exists (else it waits on the worklist) */
} ad_cache_entry;

struct ad_module_ctx {
  ad_engine *engine;
  LLVMModuleRef mod;
  LLVMContextRef llctx;
  LLVMTargetDataRef td; /* the module's data layout (owned) */
  /* fwd/derivative.c: the derivatives made so far */
  /* every derivative begun, in creation order; the ones not yet built
   * are the worklist (fwd/derivative.c), so that a chain of calls is
   * differentiated by a loop, not by one nested build per callee */
  ad_cache_entry *cache;
  size_t ncache, capcache;
  ad_map cache_index; /* primal fn -> 1 + index of its latest entry */
  size_t cache_built; /* entries below it are all built */
  /* analysis/globals.c: mutable globals that receive active data: they get
   * shadow globals.  Complete before the first derivative is emitted
   * (engine.c discovers the set first), so a cached derivative never sees
   * it change. */
  ad_map active_globals;
  /* tangent/shadow_globals.c: (global, lane) -> its shadow global; by
   * identity, not by name, since globals may be unnamed or named like a
   * shadow */
  ad_map global_shadows;
  /* Globals the transform makes (shadow globals) can become active too (a
   * second-order request stores tangents into a first-order shadow), so
   * discovery (engine.c) names them by origin, the same in every copy of
   * the module: "i" for the i-th global the module had, "<origin>/<lane>"
   * for a shadow made here.  global_index: first globals -> 1 + index;
   * made_from / made_lane: shadow made here -> its global / 1 + lane;
   * made_seed: origins of made globals active from their creation on,
   * seeded_made of which were made so far. */
  ad_map global_index, made_from, made_lane;
  const struct ad_origin_set *made_seed;
  size_t seeded_made;
  /* memos over active_globals, valid while its count equals *_generation:
   * constant globals holding pointers to active globals (globals.c), and
   * functions that reach active globals through direct calls (activity.c) */
  ad_map global_refs_memo, touches_memo;
  size_t global_refs_generation, touches_generation;
  /* registry/registry.c: call -> its rule (or "none"), and call -> the
   * callee it had then (a call erased and another made at its address is
   * looked up again); each lookup that missed the memo */
  ad_map rule_memo, rule_memo_callee;
  size_t rule_lookups;
  /* core/diag.c: the error state */
  tanjit_error **err;
  int failed; /* an error is already stored in *err */
  tanjit_error_code failed_code; /* its code, also when err is NULL */
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
  /* type analysis of primal_fn, computed on first use by
   * ad_copy_layout_of (analysis/types.h) and freed with the context; NULL
   * until then */
  struct ad_types *types;
};

/* The session-wide engine (engine.c owns it), as every folder may read it:
 * the run-time report and its user data (NULL: none), a copy of s kept as
 * long as the engine (NULL on out of memory), and the custom rules. */
ad_runtime_report ad_engine_runtime_report(const ad_engine *e, void **user);
const char *ad_engine_keep_string(ad_engine *e, const char *s);
struct ad_custom_registry *ad_engine_custom(const ad_engine *e);

#endif
