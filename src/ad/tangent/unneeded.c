/*
 * enzyme_dupnoneed memory in forward mode: the caller passes a shadow and
 * no primal memory ((T*)0x1 in Enzyme's Sparse programs), so the
 * derivative must leave the primal memory alone.  A primal store, copy or
 * set into it is emitted for its tangent work (which clones it onto the
 * shadow) and then deleted.  A primal load from it is emitted too, and
 * once the body is built it must be dead: what is computed from it alone
 * may feed only code that is gone (the primal `dinput[k] += v` of a
 * gradient, whose store was dropped).  Anything else that uses it (a
 * tangent that multiplies by it, a branch, a call, a store of it
 * elsewhere) needs the primal value.  Enzyme drops the same stores (its
 * unnecessary instructions, for a DUP_NONEED argument's base object) and
 * emits a needed load as it is: its own sumsquare.cpp
 * (ForwardModeVector) passes a read-only input enzyme_dupnoneed, whose
 * memory exists.  So a needed load stays, unless the derivative dropped a
 * primal write into that memory (or gave the memory to a callee, which
 * may): then what it reads is not what the primal would, and it is an
 * error naming the load.
 */
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

void ad_drop_unneeded_clone(ad_fn_ctx *fc, LLVMValueRef inst,
                            LLVMValueRef clone) {
  /* a copy or set returns its destination (memcpy's result); a store has
   * no value.  The key is there: replacing its value allocates nothing. */
  int has_value = LLVMGetTypeKind(LLVMTypeOf(clone)) != LLVMVoidTypeKind;
  if (ad_map_get(&fc->vmap, inst) == clone)
    ad_map_put(&fc->vmap, inst, has_value ? LLVMGetOperand(clone, 0) : NULL);
  if (has_value)
    LLVMReplaceAllUsesWith(clone, LLVMGetOperand(clone, 0));
  LLVMInstructionEraseFromParent(clone);
  /* a store's address; a copy's or set's destination */
  fc->unneeded_written |= ad_unneeded_parameters(
      fc, LLVMGetOperand(inst, LLVMIsAStoreInst(inst) ? 1 : 0));
}

int ad_note_unneeded_load(ad_fn_ctx *fc, LLVMValueRef inst,
                          LLVMValueRef clone) {
  void *g = tj_grow(fc->unneeded_loads, &fc->capunneeded_loads,
                    fc->nunneeded_loads + 1, sizeof *fc->unneeded_loads, 8);
  if (!g)
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, inst, "out of memory");
  fc->unneeded_loads = g;
  fc->unneeded_loads[fc->nunneeded_loads].primal = inst;
  fc->unneeded_loads[fc->nunneeded_loads].clone = clone;
  fc->nunneeded_loads++;
  return 0;
}

/* Instructions that only compute: deleting one changes nothing but its
 * value.  Loads, stores, calls and terminators are not among them. */
static int only_computes(LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (op >= LLVMAdd && op <= LLVMXor)
    return 1;
  if (op >= LLVMTrunc && op <= LLVMAddrSpaceCast)
    return 1;
  switch (op) {
  case LLVMFNeg:
  case LLVMICmp:
  case LLVMFCmp:
  case LLVMPHI:
  case LLVMSelect:
  case LLVMGetElementPtr:
  case LLVMExtractValue:
  case LLVMInsertValue:
  case LLVMExtractElement:
  case LLVMInsertElement:
  case LLVMShuffleVector:
  case LLVMFreeze:
    return 1;
  default:
    return 0;
  }
}

/* The rules whose primal effect is a copy or a set: into unneeded memory
 * it is dropped (from unneeded memory into it too); any other rule given
 * a pointer into unneeded memory would touch the primal there. */
static const struct unneeded_transfer {
  const char *rule;
  int destination, source; /* operand indices; -1: none */
} unneeded_transfers[] = {
    {"memcpy", 0, 1},      {"llvm.memcpy", 0, 1},
    {"llvm.memcpy.inline", 0, 1}, {"memmove", 0, 1},
    {"llvm.memmove", 0, 1},      {"memset", 0, -1},
    {"llvm.memset", 0, -1},      {"llvm.memset.inline", 0, -1},
};

static const struct unneeded_transfer *transfer_of(const ad_call_rule *rule) {
  for (size_t i = 0; i < sizeof unneeded_transfers / sizeof *unneeded_transfers;
       i++)
    if (strcmp(rule->name, unneeded_transfers[i].rule) == 0)
      return &unneeded_transfers[i];
  return NULL;
}

int ad_unneeded_call_effect(ad_fn_ctx *fc, const ad_call_rule *rule,
                            LLVMValueRef call) {
  unsigned na = LLVMGetNumArgOperands(call);
  const struct unneeded_transfer *t = transfer_of(rule);
  int into = t && (unsigned)t->destination < na &&
             ad_points_only_into_unneeded(
                 fc, LLVMGetOperand(call, (unsigned)t->destination));
  for (unsigned k = 0; k < na; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (!ad_points_only_into_unneeded(fc, a))
      continue;
    if (t && (int)k == t->destination)
      continue;
    if (t && (int)k == t->source && into)
      continue;
    return ad_fail(fc->mc, call,
                   "%s in the derivative of %s is given enzyme_dupnoneed "
                   "memory (argument %u): it would %s the primal memory, "
                   "which the caller did not pass (dupnoneed: only the "
                   "shadow exists); pass the argument as enzyme_dup",
                   rule->name, ad_value_name(fc->primal_fn), k + 1,
                   t ? "read" : "read or write");
  }
  return into;
}

typedef struct dead_set {
  ad_map in;
  LLVMValueRef *v;
  size_t n, cap;
} dead_set;

static int dead_set_add(dead_set *d, LLVMValueRef v) {
  if (ad_map_get(&d->in, v))
    return 0;
  LLVMValueRef *g = tj_grow(d->v, &d->cap, d->n + 1, sizeof *g, 16);
  if (!g)
    return -1;
  d->v = g;
  if (ad_map_put(&d->in, v, (void *)1) != 0)
    return -1;
  d->v[d->n++] = v;
  return 0;
}

/* The load's clone and what is computed from it alone, into d; NULL, or
 * the first use outside (which needs the primal value). */
static LLVMValueRef collect_dead(dead_set *d, LLVMValueRef clone, int *oom) {
  if (dead_set_add(d, clone) != 0) {
    *oom = 1;
    return NULL;
  }
  for (size_t i = 0; i < d->n; i++)
    for (LLVMUseRef u = LLVMGetFirstUse(d->v[i]); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (!LLVMIsAInstruction(user) || !only_computes(user))
        return user;
      if (dead_set_add(d, user) != 0) {
        *oom = 1;
        return NULL;
      }
    }
  return NULL;
}

static int check_one(ad_fn_ctx *fc, const struct ad_unneeded_load *l) {
  dead_set d = {0};
  ad_map_init(&d.in);
  int oom = 0, rc = 0;
  LLVMValueRef needed = collect_dead(&d, l->clone, &oom);
  if (oom) {
    rc = ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, l->primal, "out of memory");
  } else if (needed &&
             !(fc->unneeded_written &
               ad_unneeded_parameters(fc, LLVMGetOperand(l->primal, 0)))) {
    /* read-only dupnoneed memory: the load stays, as Enzyme emits it */
  } else if (needed) {
    char *load = ad_value_text(l->primal), *use = ad_value_text(needed);
    rc = ad_fail(fc->mc, l->primal,
                 "load from enzyme_dupnoneed memory in the derivative of %s: "
                 "the derivative needs the primal value of `%s` in `%s`, "
                 "but the primal writes into that memory are left out "
                 "(dupnoneed: only the shadow is kept), so the load would "
                 "not read what the primal does; pass the argument as "
                 "enzyme_dup",
                 ad_value_name(fc->primal_fn), load ? load : "?",
                 use ? use : "?");
    free(load);
    free(use);
  } else {
    /* every user is in the set: cut the uses, then delete (PHIs may
     * form cycles, so no order frees them one by one) */
    for (size_t i = 0; i < d.n; i++)
      LLVMReplaceAllUsesWith(d.v[i], LLVMGetPoison(LLVMTypeOf(d.v[i])));
    for (size_t i = 0; i < d.n; i++)
      LLVMInstructionEraseFromParent(d.v[i]);
  }
  free(d.v);
  ad_map_free(&d.in);
  return rc;
}

int ad_finish_unneeded_loads(ad_fn_ctx *fc) {
  for (size_t i = 0; i < fc->nunneeded_loads; i++)
    if (check_one(fc, &fc->unneeded_loads[i]) != 0)
      return -1;
  return 0;
}
