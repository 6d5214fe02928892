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
 * globals is final (global_discovery.c), so every table sees the same set;
 * where requests nest (higher order), ad_note_made_shadow activates the
 * writable shadows of active globals as they are made.
 */
#include <string.h>

#include "ad/ad.h"
#include "ad/analysis/globals.h"
#include "ad/core/context.h"
#include "ad/core/map.h"

void ad_active_globals_init(ad_active_globals *g) {
  memset(g, 0, sizeof *g);
  ad_map_init(&g->set);
  ad_map_init(&g->refs_memo);
  ad_map_init(&g->touches_memo);
}

void ad_active_globals_free(ad_active_globals *g) {
  ad_map_free(&g->set);
  ad_map_free(&g->refs_memo);
  ad_map_free(&g->touches_memo);
}

/* The tape's size hints (rev/tape.c): an allocation size the gradient
 * keeps for its next call, made while derivatives are emitted, after
 * discovery; a derivative of a gradient (a Hessian) reads and writes it as
 * the gradient does, with no tangent. */
static int is_tape_hint(LLVMValueRef g) {
  static const char prefix[] = "tanjit.tape.hint.";
  size_t n;
  const char *name = LLVMGetValueName2(g, &n);
  return n >= sizeof prefix - 1 && memcmp(name, prefix, sizeof prefix - 1) == 0;
}

int ad_global_can_shadow(LLVMValueRef g) {
  return LLVMIsAGlobalVariable(g) && LLVMGetInitializer(g) &&
         !LLVMIsThreadLocal(g) && !is_tape_hint(g);
}

const char *ad_global_no_shadow_why(LLVMValueRef g) {
  if (LLVMIsThreadLocal(g))
    return "it is thread-local";
  size_t len;
  const char *name = LLVMGetValueName2(g, &len);
  /* session.c renames a module's statics with this suffix at load */
  if (name && strstr(name, TANJIT_PRIVATE_SUFFIX))
    return "it is a static defined in another loaded module, which a "
           "derivative made here cannot give a shadow: put the code that "
           "writes it in the same file or module";
  return "it is defined outside this module (in another loaded module or a "
         "library), which a derivative made here cannot give a shadow: put "
         "the code that writes it in the same file or module";
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


int ad_note_made_shadow(ad_module_ctx *mc, LLVMValueRef s, LLVMValueRef g) {
  if (!mc->globals->shadows_active || !ad_map_get(&mc->globals->set, g))
    return 0;
  if (ad_map_put(&mc->globals->set, s, (void *)1) != 0)
    return -1;
  mc->globals->made_active++;
  return 0;
}
