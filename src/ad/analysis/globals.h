/* Which globals are active (hold tangents module-wide). */
#ifndef TANJIT_AD_ANALYSIS_GLOBALS_H
#define TANJIT_AD_ANALYSIS_GLOBALS_H

#include <stddef.h>

#include <llvm-c/Core.h>

#include "ad/core/context.h"
#include "ad/core/map.h"

/*
 * The active globals of one transform (a part of the module context):
 * mutable globals that receive active data get shadow globals.  The set
 * is complete before the first derivative is emitted (global_discovery.c
 * computes it, with activity analysis alone), so a cached derivative never
 * sees it change.
 */
typedef struct ad_active_globals {
  ad_map set; /* active mutable globals */
  /* Globals the transform makes (shadow globals) can become active too (a
   * second-order request stores tangents into a first-order shadow).
   * Their code does not exist before emission, so where a request's code
   * reaches another request (global_reach.c), every writable shadow of an
   * active global is active from its creation (shadows_active); made_active
   * counts those made so far. */
  int shadows_active;
  size_t made_active;
  /* memos over `set`, valid while its count equals *_generation: constant
   * globals holding pointers to active globals (globals.c), and functions
   * that reach active globals through direct calls (activity.c) */
  ad_map refs_memo, touches_memo;
  size_t refs_generation, touches_generation;
} ad_active_globals;
void ad_active_globals_init(ad_active_globals *g);
void ad_active_globals_free(ad_active_globals *g);

/* Empties `memo` (one of the memos over the active globals, with
 * its `generation`) if active globals were added since it was filled: its
 * answers depend on that set, which only grows. */
void ad_refresh_globals_memo(ad_module_ctx *mc, ad_map *memo,
                             size_t *generation);
/* Whether a defined mutable global can be given a shadow global. */
int ad_global_can_shadow(LLVMValueRef g);
/* Why global g has no shadow, for a message: thread-local, or defined in
 * another module (a static of another loaded file, seen here as a
 * declaration), whose state a derivative built here cannot shadow. */
const char *ad_global_no_shadow_why(LLVMValueRef g);
/* Whether global g has a shadow holding tangents: an active mutable
 * global, or a constant one whose initializer points to active globals
 * (its shadow is a per-lane table of their shadows). */
int ad_global_is_active(ad_module_ctx *mc, LLVMValueRef g);
/* Makes active every mutable global whose address global `g`'s
 * initializer holds, transitively (a pointer loaded from g must have a
 * shadow).  Returns
 * how many became active, or -1 on out of memory. */
int ad_demand_global_targets(ad_module_ctx *mc, LLVMValueRef g);

/* Whether the code the request calls `requests` can differentiate (their
 * targets, what those reach, derivatives of those) names a mutable global
 * that could get a shadow (global_reach.c).  0 means no global can become
 * active; 1 that some may (or, out of memory, that it cannot tell). */
int ad_requests_reach_mutable_global(LLVMValueRef const *requests,
                                     size_t nrequests);

/* What the requests' code reaches (global_reach.c). */
typedef struct ad_reached {
  LLVMValueRef *fns; /* the functions with bodies it may differentiate (owned) */
  size_t n;
  int names_mutable_global; /* a global that could get a shadow is named */
  int nested; /* a reached function calls a request (higher order) */
} ad_reached;
/* Fills *out; 0, or -1 on out of memory (then *out is empty).  free()
 * out->fns. */
int ad_requests_reach(LLVMValueRef const *requests, size_t nrequests,
                      ad_reached *out);

/* Settles the active globals of `mc` before anything is emitted
 * (global_discovery.c): every function the requests reach is analysed with
 * every parameter and the result active, a superset of any signature
 * emission asks for, until the set stops growing.  `requests` are the
 * request calls (batch calls, which differentiate nothing, are skipped).
 * Returns how many analysis rounds ran (0 when the requests name no
 * mutable global), or -1 with mc's error set. */
int ad_discover_active_globals(ad_module_ctx *mc, LLVMValueRef const *requests,
                               size_t nrequests);

/* Records shadow global s, just made for global g, and makes it active
 * when mc->globals->shadows_active says so.  -1 on out of memory. */
int ad_note_made_shadow(ad_module_ctx *mc, LLVMValueRef s, LLVMValueRef g);

#endif
