/*
 * Alias scopes between a pointer parameter of a derivative and its shadow.
 *
 * A duplicated argument and its shadow are two objects (Enzyme's contract
 * for enzyme_dup, and tanjit's for every pointer it duplicates itself,
 * except AD_ARG_DUP_RUNTIME, whose shadow may be the primal).  LLVM cannot
 * know it: the derivative of n-body's energy adds into in'[3j+k] inside
 * the loop that reads in[3i+k], so without the fact every iteration
 * reloads in[3i+k] after the shadow store.  Enzyme states it with alias
 * scopes per underlying object (GradientUtils::getDerivativeAliasScope);
 * so does this file, once per derivative function, after its body is
 * built: every load, store and atomic whose address is based on the
 * parameter (through GEPs, casts, and PHIs and selects that agree) gets
 * the parameter's "primal" scope and `noalias` of its "shadow" scope, and
 * the other way round.
 *
 * The scopes are self-referential nodes (LLVM-C has no distinct nodes: a
 * temporary node replaced by the node that holds it), so each function's
 * scopes are its own, and LLVM's inliner makes a fresh copy per call site
 * it inlines: two inlined derivatives never share a scope, which matters
 * when one call's shadow is another call's primal (a Hessian's
 * forward-over-reverse passes the gradient's shadow on as a primal).
 * Lanes of a vector-mode shadow share one scope: lane against lane is not
 * claimed, only lane against primal.
 */
#include <stdio.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "ad/ir/ir.h"

enum { ROLE_NONE = -1, ROLE_PRIMAL = 0, ROLE_SHADOW = 1 };

/* A node {self, rest...}: unique, and copied (not shared) by the inliner's
 * deep clone of scope metadata. */
static LLVMMetadataRef self_referential(LLVMContextRef c, LLVMMetadataRef *rest,
                                        unsigned nrest) {
  LLVMMetadataRef ops[3];
  LLVMMetadataRef temp = LLVMTemporaryMDNode(c, NULL, 0);
  ops[0] = temp;
  for (unsigned i = 0; i < nrest && i < 2; i++)
    ops[i + 1] = rest[i];
  LLVMMetadataRef node = LLVMMDNodeInContext2(c, ops, nrest + 1);
  LLVMMetadataReplaceAllUsesWith(temp, node); /* disposes temp */
  return node;
}

/* The object address v is based on when the function's own GEPs, casts,
 * PHIs and selects are followed (all incoming values of a PHI or select
 * agreeing; a PHI met again on the walk agrees with anything), or NULL.
 * `open` holds the PHIs being walked; depth bounds the walk's length and
 * `steps_left` its size: PHIs and selects that each name the one below
 * twice (a diamond chain) would otherwise double the walk per level. */
typedef struct walk {
  LLVMValueRef open[16];
  unsigned nopen;
  unsigned steps_left;
} walk;

static LLVMValueRef const self_loop_marker = (LLVMValueRef)&self_loop_marker;

static LLVMValueRef based_on(walk *w, LLVMValueRef v, unsigned depth) {
  for (; depth < 64; depth++) {
    if (!w->steps_left--)
      return NULL;
    if (LLVMIsAArgument(v))
      return v;
    if (LLVMIsAGetElementPtrInst(v) || LLVMIsABitCastInst(v) ||
        LLVMIsAAddrSpaceCastInst(v)) {
      v = LLVMGetOperand(v, 0);
      continue;
    }
    if (LLVMIsAConstantExpr(v)) {
      LLVMOpcode op = LLVMGetConstOpcode(v);
      if (op != LLVMGetElementPtr && op != LLVMBitCast && op != LLVMAddrSpaceCast)
        return NULL;
      v = LLVMGetOperand(v, 0);
      continue;
    }
    /* a lane of a vector-mode shadow: extractvalue of the [N x ptr] parameter */
    if (LLVMIsAExtractValueInst(v)) {
      LLVMValueRef agg = LLVMGetOperand(v, 0);
      return LLVMIsAArgument(agg) ? agg : NULL;
    }
    int phi = LLVMIsAPHINode(v) != NULL;
    if (!phi && !LLVMIsASelectInst(v))
      return NULL;
    if (phi) {
      for (unsigned i = 0; i < w->nopen; i++)
        if (w->open[i] == v)
          return self_loop_marker;
      if (w->nopen == sizeof w->open / sizeof *w->open)
        return NULL;
      w->open[w->nopen++] = v;
    }
    unsigned n = phi ? LLVMCountIncoming(v) : 2;
    LLVMValueRef agreed = self_loop_marker;
    for (unsigned i = 0; i < n && agreed; i++) {
      LLVMValueRef in = phi ? LLVMGetIncomingValue(v, i) : LLVMGetOperand(v, i + 1);
      LLVMValueRef b = based_on(w, in, depth + 1);
      if (!b || (agreed != self_loop_marker && b != self_loop_marker && b != agreed))
        agreed = NULL;
      else if (b != self_loop_marker)
        agreed = b;
    }
    if (phi)
      w->nopen--;
    return agreed;
  }
  return NULL;
}

/* Adds `add` to the list node of kind `kind` on inst (a new list if none). */
static void append_to_list(LLVMContextRef c, LLVMValueRef inst, unsigned kind,
                           LLVMMetadataRef add) {
  LLVMValueRef old = LLVMGetMetadata(inst, kind);
  unsigned n = old ? LLVMGetMDNodeNumOperands(old) : 0;
  LLVMMetadataRef ops[33];
  if (n > 32) /* an unusually long list: leave the access as it was */
    return;
  if (n) {
    LLVMValueRef vals[32];
    LLVMGetMDNodeOperands(old, vals);
    for (unsigned i = 0; i < n; i++) {
      if (!vals[i])
        return;
      ops[i] = LLVMValueAsMetadata(vals[i]);
    }
  }
  ops[n] = add;
  LLVMSetMetadata(inst, kind,
                  LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, ops, n + 1)));
}

/* The address operand of a memory access the scopes apply to, or NULL. */
static LLVMValueRef access_address(LLVMValueRef inst) {
  if (LLVMIsALoadInst(inst) || LLVMIsAAtomicRMWInst(inst) ||
      LLVMIsAAtomicCmpXchgInst(inst))
    return LLVMGetOperand(inst, 0);
  if (LLVMIsAStoreInst(inst))
    return LLVMGetOperand(inst, 1);
  return NULL;
}

void ad_scope_disjoint_params(LLVMValueRef fn, const ad_disjoint_params *pairs,
                              unsigned npairs) {
  if (!npairs || !LLVMGetFirstBasicBlock(fn))
    return;
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(fn));
  unsigned scope_kind = LLVMGetMDKindIDInContext(c, "alias.scope", 11);
  unsigned noalias_kind = LLVMGetMDKindIDInContext(c, "noalias", 7);
  /* made on first use: most pairs of a large module touch no memory */
  LLVMMetadataRef scopes[2 * AD_MAX_DISJOINT_PAIRS];
  memset(scopes, 0, sizeof scopes);
  if (npairs > AD_MAX_DISJOINT_PAIRS)
    npairs = AD_MAX_DISJOINT_PAIRS;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst;
         inst = LLVMGetNextInstruction(inst)) {
      LLVMValueRef addr = access_address(inst);
      if (!addr)
        continue;
      walk w = {.nopen = 0, .steps_left = 256};
      LLVMValueRef base = based_on(&w, addr, 0);
      if (!base || base == self_loop_marker)
        continue;
      unsigned k = 0;
      int role = ROLE_NONE;
      for (; k < npairs && role == ROLE_NONE; k++)
        role = base == pairs[k].primal   ? ROLE_PRIMAL
               : base == pairs[k].shadow ? ROLE_SHADOW
                                         : ROLE_NONE;
      if (role == ROLE_NONE)
        continue;
      k--;
      if (!scopes[2 * k]) {
        char name[48];
        snprintf(name, sizeof name, "tanjit: param %u and its shadow",
                 pairs[k].index);
        LLVMMetadataRef dname = LLVMMDStringInContext2(c, name, strlen(name));
        LLVMMetadataRef domain = self_referential(c, &dname, 1);
        LLVMMetadataRef rest[2] = {domain, LLVMMDStringInContext2(c, "primal", 6)};
        scopes[2 * k] = self_referential(c, rest, 2);
        rest[1] = LLVMMDStringInContext2(c, "shadow", 6);
        scopes[2 * k + 1] = self_referential(c, rest, 2);
      }
      append_to_list(c, inst, scope_kind, scopes[2 * k + role]);
      append_to_list(c, inst, noalias_kind, scopes[2 * k + !role]);
    }
}
