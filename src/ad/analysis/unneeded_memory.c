/*
 * Memory whose primal the derivative's caller does not need: what an
 * enzyme_dupnoneed pointer parameter reaches.  The caller passes a shadow
 * and, for the primal, anything (Enzyme's Sparse programs pass (T*)0x1),
 * so forward mode must not touch the primal memory: it drops the primal
 * stores, copies and sets into it, and a primal load from it may only feed
 * code that is dropped too (rules/inst.c, fwd/unneeded.c).
 *
 * A pointer counts only when every value it may be is such a parameter
 * moved by GEPs and casts: a PHI or select of it and any other pointer may
 * point elsewhere, and a store there must stay.  Pointers reloaded from
 * memory, or rebuilt from integers, are not followed (those stores stay).
 */
#include <stdlib.h>

#include "ad/analysis/activity.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "common/alloc.h"

/* Values examined per question: past it, the answer is "no" (the store
 * stays, the load is emitted as the primal has it). */
enum { UNNEEDED_WALK_BUDGET = 1024 };

static int has_unneeded_parameter(const ad_fn_ctx *fc) {
  for (unsigned i = 0; i < fc->sig->nparams; i++)
    if (fc->sig->activity[i] == AD_ARG_DUPNONEED)
      return 1;
  return 0;
}

/* The bit of v when it is an enzyme_dupnoneed parameter, else 0. */
static unsigned long long unneeded_parameter_bit(const ad_fn_ctx *fc,
                                                 LLVMValueRef v) {
  if (!LLVMIsAArgument(v) || LLVMGetParamParent(v) != fc->primal_fn)
    return 0;
  for (unsigned i = 0; i < fc->sig->nparams; i++)
    if (LLVMGetParam(fc->primal_fn, i) == v)
      return fc->sig->activity[i] == AD_ARG_DUPNONEED ? 1ull << (i < 63 ? i : 63)
                                                      : 0;
  return 0;
}

/* The operands a pointer is made from, when it is one of the moves this
 * walk follows (GEP base, cast source, PHI and select inputs); 0 and no
 * operands for anything else. */
static unsigned pointer_sources(LLVMValueRef v, LLVMValueRef *out,
                                unsigned cap) {
  if (!LLVMIsAInstruction(v) && !LLVMIsAConstantExpr(v))
    return 0;
  LLVMOpcode op = LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v)
                                        : LLVMGetConstOpcode(v);
  switch (op) {
  case LLVMGetElementPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMFreeze:
    out[0] = LLVMGetOperand(v, 0);
    return 1;
  case LLVMSelect:
    out[0] = LLVMGetOperand(v, 1);
    out[1] = LLVMGetOperand(v, 2);
    return 2;
  case LLVMPHI: {
    unsigned n = LLVMCountIncoming(v);
    if (n > cap)
      return 0;
    for (unsigned k = 0; k < n; k++)
      out[k] = LLVMGetIncomingValue(v, k);
    return n;
  }
  default:
    return 0;
  }
}

unsigned long long ad_unneeded_parameters(const ad_fn_ctx *fc, LLVMValueRef p) {
  if (!fc->sig || !has_unneeded_parameter(fc) ||
      !ad_type_is_pointerish(LLVMTypeOf(p)))
    return 0;
  ad_map seen;
  ad_map_init(&seen);
  LLVMValueRef stack[UNNEEDED_WALK_BUDGET];
  size_t sp = 0, visited = 0;
  int only = 1;
  unsigned long long params = 0;
  stack[sp++] = p;
  while (sp && only) {
    LLVMValueRef v = stack[--sp];
    if (ad_map_get(&seen, v))
      continue; /* a cycle of PHIs moves the same pointer */
    if (++visited > UNNEEDED_WALK_BUDGET || ad_map_put(&seen, v, (void *)1)) {
      only = 0;
      break;
    }
    unsigned long long bit = unneeded_parameter_bit(fc, v);
    if (bit) {
      params |= bit;
      continue;
    }
    LLVMValueRef from[64];
    unsigned n = pointer_sources(v, from, 64);
    if (n == 0 || sp + n > UNNEEDED_WALK_BUDGET) {
      only = 0;
      break;
    }
    for (unsigned k = 0; k < n; k++)
      stack[sp++] = from[k];
  }
  ad_map_free(&seen);
  return only ? params : 0;
}

int ad_points_only_into_unneeded(const ad_fn_ctx *fc, LLVMValueRef p) {
  return ad_unneeded_parameters(fc, p) != 0;
}
