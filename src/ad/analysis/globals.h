/* Which globals are active (hold tangents module-wide). */
#ifndef TANJIT_AD_ANALYSIS_GLOBALS_H
#define TANJIT_AD_ANALYSIS_GLOBALS_H

#include <stddef.h>

#include <llvm-c/Core.h>

#include "ad/core/context.h"
#include "ad/core/map.h"

typedef struct ad_origin_set ad_origin_set;

/*
 * The active globals of one transform (a part of the module context):
 * mutable globals that receive active data get shadow globals.  The set
 * is complete before the first derivative is emitted (engine.c discovers
 * it first), so a cached derivative never sees it change.
 */
typedef struct ad_active_globals {
  ad_map set; /* active mutable globals */
  /* Globals the transform makes (shadow globals) can become active too (a
   * second-order request stores tangents into a first-order shadow), so
   * discovery (engine.c) names them by origin, the same in every copy of
   * the module: "i" for the i-th global the module had, "<origin>/<lane>"
   * for a shadow made here.  index: first globals -> 1 + index;
   * made_from / made_lane: shadow made here -> its global / 1 + lane;
   * made_seed: origins of made globals active from their creation on,
   * seeded_made of which were made so far. */
  ad_map index, made_from, made_lane;
  const ad_origin_set *made_seed;
  size_t seeded_made;
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

/* Origins ("i", "i/lane", ...) of globals a transform made (context.h). */
struct ad_origin_set {
  char **ids;
  size_t n, cap;
};
int ad_origin_set_has(const ad_origin_set *set, const char *id);
/* Adds a copy of id unless present; -1 on out of memory. */
int ad_origin_set_add(ad_origin_set *set, const char *id);
void ad_origin_set_free(ad_origin_set *set);
/* The origin of global g (a first global or one made here), or NULL when
 * it has none or on out of memory; free() it. */
char *ad_global_origin(ad_module_ctx *mc, LLVMValueRef g);
/* Records shadow global s, just made for global g's lane, and makes it
 * active when mc->globals->made_seed names its origin.  -1 on out of memory. */
int ad_note_made_shadow(ad_module_ctx *mc, LLVMValueRef s, LLVMValueRef g,
                        unsigned lane);

#endif
