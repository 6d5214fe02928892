/*
 * Shadows of constants.  A constant global is inactive data, but a pointer
 * to it may land in active memory (a struct copied from a constant template
 * holds pointers to constant tables).  Its shadow is then a read-only global
 * `<name>_shadow` holding the shadow of the initializer: floats 0, integers
 * kept, pointers to constant globals replaced by their shadows.  Reads
 * through it see zero tangents, never primal data.
 *
 * A mutable global that receives active data (activity.c marks it in
 * mc->globals->set) gets a writable `<name>_shadow` (lane k > 0:
 * `<name>_shadow<k>`), zero-initialized, living as long as the module and
 * restored to its initial tangents before every request (as Enzyme's
 * per-call shadow of an unannotated global starts at zero; see
 * tangent/shadow_globals.c).  Other
 * mutable globals stand for themselves.  External globals (no initializer)
 * can have no shadow; storing an active value into one is an error.
 *
 * A constant table of pointers to active globals (`double *const t[] =
 * {&a, &b}`) is itself active: a pointer loaded from it needs a shadow, and
 * its shadow table holds the shadows of a and b (one table per lane).
 * Shadow globals are created lazily but only once the set of active
 * globals is final (engine.c), so every table sees the same set; that set
 * names the shadow globals that become active themselves (higher order)
 * by origin, and ad_note_made_shadow activates them as they are made.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"

#include "ad/analysis/globals.h"
#include "ad/core/context.h"
#include "ad/core/map.h"
#include "common/strbuf.h"

void ad_active_globals_init(ad_active_globals *g) {
  memset(g, 0, sizeof *g);
  ad_map_init(&g->set);
  ad_map_init(&g->index);
  ad_map_init(&g->made_from);
  ad_map_init(&g->made_lane);
  ad_map_init(&g->refs_memo);
  ad_map_init(&g->touches_memo);
}

void ad_active_globals_free(ad_active_globals *g) {
  ad_map_free(&g->set);
  ad_map_free(&g->index);
  ad_map_free(&g->made_from);
  ad_map_free(&g->made_lane);
  ad_map_free(&g->refs_memo);
  ad_map_free(&g->touches_memo);
}

int ad_global_can_shadow(LLVMValueRef g) {
  return LLVMIsAGlobalVariable(g) && LLVMGetInitializer(g) &&
         !LLVMIsThreadLocal(g);
}

/* Memo values of global_refs_memo. */
#define REFS_NO ((void *)1)
#define REFS_YES ((void *)2)

/* Whether constant `c` mentions an active mutable global, directly or
 * through the initializers of constant globals it mentions. */
static int constant_refers_active(ad_module_ctx *mc, LLVMValueRef c,
                                  int depth) {
  if (depth > 64 || !c)
    return 0;
  if (LLVMIsAGlobalVariable(c)) {
    if (!LLVMIsGlobalConstant(c))
      return ad_map_get(&mc->globals->set, c) != NULL;
    return ad_global_is_active(mc, c);
  }
  if (LLVMIsAGlobalValue(c) || LLVMIsAConstantDataSequential(c) ||
      LLVMIsAConstantFP(c) || LLVMIsAConstantInt(c))
    return 0;
  int n = LLVMGetNumOperands(c);
  for (int k = 0; k < n; k++)
    if (constant_refers_active(mc, LLVMGetOperand(c, (unsigned)k), depth + 1))
      return 1;
  return 0;
}

void ad_refresh_globals_memo(ad_module_ctx *mc, ad_map *memo,
                             size_t *generation) {
  if (*generation == mc->globals->set.count)
    return;
  ad_map_free(memo);
  ad_map_init(memo);
  *generation = mc->globals->set.count;
}

int ad_global_is_active(ad_module_ctx *mc, LLVMValueRef g) {
  if (!ad_global_can_shadow(g))
    return 0;
  if (!LLVMIsGlobalConstant(g))
    return ad_map_get(&mc->globals->set, g) != NULL;
  ad_refresh_globals_memo(mc, &mc->globals->refs_memo,
                          &mc->globals->refs_generation);
  void *memo = ad_map_get(&mc->globals->refs_memo, g);
  if (memo)
    return memo == REFS_YES;
  /* "no" while in progress: a self-referencing table terminates */
  if (ad_map_put(&mc->globals->refs_memo, g, REFS_NO) != 0)
    return 0;
  int yes = constant_refers_active(mc, LLVMGetInitializer(g), 0);
  ad_map_put(&mc->globals->refs_memo, g, yes ? REFS_YES : REFS_NO);
  return yes;
}

/* Adds the mutable globals whose addresses constant c holds. */
static int demand_targets(ad_module_ctx *mc, LLVMValueRef c, int depth) {
  if (depth > 64 || !c)
    return 0;
  if (LLVMIsAGlobalVariable(c)) {
    if (!ad_global_can_shadow(c) || LLVMIsGlobalConstant(c) ||
        ad_map_get(&mc->globals->set, c))
      return 0;
    if (ad_map_put(&mc->globals->set, c, (void *)1) != 0)
      return -1;
    /* its shadow's initializer points to the shadows of its targets */
    int more = demand_targets(mc, LLVMGetInitializer(c), depth + 1);
    return more < 0 ? -1 : 1 + more;
  }
  if (LLVMIsAGlobalValue(c) || LLVMIsAConstantDataSequential(c) ||
      LLVMIsAConstantFP(c) || LLVMIsAConstantInt(c))
    return 0;
  int n = LLVMGetNumOperands(c), added = 0;
  for (int k = 0; k < n; k++) {
    int r = demand_targets(mc, LLVMGetOperand(c, (unsigned)k), depth + 1);
    if (r < 0)
      return -1;
    added += r;
  }
  return added;
}

int ad_demand_global_targets(ad_module_ctx *mc, LLVMValueRef g) {
  if (!ad_global_can_shadow(g))
    return 0;
  return demand_targets(mc, LLVMGetInitializer(g), 0);
}


int ad_origin_set_has(const ad_origin_set *set, const char *id) {
  for (size_t i = 0; set && i < set->n; i++)
    if (strcmp(set->ids[i], id) == 0)
      return 1;
  return 0;
}

int ad_origin_set_add(ad_origin_set *set, const char *id) {
  if (ad_origin_set_has(set, id))
    return 0;
  if (set->n == set->cap) {
    size_t cap = set->cap ? 2 * set->cap : 8;
    char **ids = tj_realloc(set->ids, cap * sizeof *ids);
    if (!ids)
      return -1;
    set->ids = ids;
    set->cap = cap;
  }
  size_t len = strlen(id) + 1;
  char *copy = tj_malloc(len);
  if (!copy)
    return -1;
  memcpy(copy, id, len);
  set->ids[set->n++] = copy;
  return 0;
}

void ad_origin_set_free(ad_origin_set *set) {
  for (size_t i = 0; i < set->n; i++)
    free(set->ids[i]);
  free(set->ids);
  memset(set, 0, sizeof *set);
}

static int append_origin(ad_module_ctx *mc, LLVMValueRef g, strbuf *sb,
                         int depth) {
  void *index = ad_map_get(&mc->globals->index, g);
  if (index) {
    sb_printf(sb, "%zu", (size_t)(uintptr_t)index - 1);
    return 0;
  }
  LLVMValueRef from = ad_map_get(&mc->globals->made_from, g);
  if (!from || depth > 64 || append_origin(mc, from, sb, depth + 1) != 0)
    return -1;
  sb_printf(sb, "/%zu", (size_t)(uintptr_t)ad_map_get(&mc->globals->made_lane, g) - 1);
  return 0;
}

char *ad_global_origin(ad_module_ctx *mc, LLVMValueRef g) {
  strbuf sb;
  sb_init(&sb);
  if (append_origin(mc, g, &sb, 0) != 0 || !sb.data) {
    sb_free(&sb);
    return NULL;
  }
  return sb_take(&sb);
}

int ad_note_made_shadow(ad_module_ctx *mc, LLVMValueRef s, LLVMValueRef g,
                        unsigned lane) {
  if (ad_map_put(&mc->globals->made_from, s, g) != 0 ||
      ad_map_put(&mc->globals->made_lane, s, (void *)((uintptr_t)lane + 1)) != 0)
    return -1;
  if (!mc->globals->made_seed || !mc->globals->made_seed->n || LLVMIsGlobalConstant(s))
    return 0;
  char *id = ad_global_origin(mc, s);
  if (!id)
    return 0; /* g has no origin: a global discovery cannot name */
  int seeded = ad_origin_set_has(mc->globals->made_seed, id);
  free(id);
  if (!seeded)
    return 0;
  if (ad_map_put(&mc->globals->set, s, (void *)1) != 0)
    return -1;
  mc->globals->seeded_made++;
  return 0;
}
