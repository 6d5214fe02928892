/*
 * Whether the memory an operand of a call points to may be written
 * between the call and its reverse (Enzyme's "overwritten arguments"):
 * a rule that reads an input array in the reverse copies it in aug only
 * then, and otherwise reads the program's own memory (rev/blas.c).
 *
 * Only a pair whose rev runs right after its aug (sig.back_to_back: the
 * gradient at a request site) can know; a callee's caller, or split
 * mode's, may write anything after it returns, so there every array is
 * overwritten.  In a back-to-back pair the writers are the instructions
 * that may run after the call: the rest of its block, every block
 * reachable from it (its own block whole when a loop comes back to it)
 * and the call itself (its outputs, which the caller names).  The reverse
 * writes only shadows, adjoint slots and the tape, memory other than the
 * primal's (where a shadow may be the array itself at run time, the
 * rules' terms are sized 0 there).  The rev is its own function, so an
 * array in aug's frame (an alloca, or a pointer that may be one) is
 * always copied.
 *
 * What an instruction writes: a store, atomic or memory intrinsic its
 * destination; a BLAS call its output arrays (by the routine table, as
 * the routine is known by name, not by its body); a math row nothing (or
 * its pointer arguments, sincos); a call whose `memory` attribute writes
 * no memory of the program's (malloc's inaccessible memory is not),
 * nothing, and one that writes argument memory only (free), its pointer
 * arguments; any other call anything.  Two pointers are disjoint only when
 * both lead (through GEPs and casts) to identified objects that differ and
 * may not be each other: distinct allocas and globals; an alloca and an
 * argument (a back-to-back pair's arguments predate its frame); a
 * `noalias` argument and anything else.  An argument without `noalias`
 * may point to a global or to another argument's memory.
 */
#include "ad/core/context.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"
#include "ad/rules/blas.h"
#include "ad/rules/rules.h"

#include <stdlib.h>
#include <string.h>

/* ad_slot_stores_any's visitor: 1 at a second value stored. */
static int another_value(void *ctx, LLVMValueRef v) {
  LLVMValueRef *only = ctx;
  if (*only && *only != v)
    return 1;
  *only = v;
  return 0;
}

/* The object a pointer (or an address held as an integer) leads to, or
 * NULL when it is not an identified one.  A pointer loaded from a local
 * slot that holds one value only (-O0's copy of a parameter) is that
 * value. */
static LLVMValueRef object_of(LLVMValueRef p) {
  for (int depth = 0; depth < 8; depth++) {
    p = ad_strip_casts(p, AD_STRIP_INT_CASTS | AD_STRIP_GEPS | AD_STRIP_INSTRUCTIONS);
    if (LLVMIsAArgument(p) || LLVMIsAAllocaInst(p) || LLVMIsAGlobalVariable(p))
      return p;
    if (!LLVMIsALoadInst(p) || LLVMGetVolatile(p))
      return NULL;
    LLVMValueRef slot = LLVMGetOperand(p, 0), only = NULL;
    if (!LLVMIsAAllocaInst(slot) ||
        ad_slot_stores_any(slot, another_value, &only) || !only)
      return NULL;
    p = only;
  }
  return NULL;
}

static int is_noalias_argument(LLVMValueRef a) {
  if (!LLVMIsAArgument(a))
    return 0;
  LLVMValueRef fn = LLVMGetParamParent(a);
  unsigned index = 0;
  for (LLVMValueRef q = LLVMGetFirstParam(fn); q && q != a; q = LLVMGetNextParam(q))
    index++;
  unsigned kind = LLVMGetEnumAttributeKindForName("noalias", 7);
  return LLVMGetEnumAttributeAtIndex(fn, index + 1, kind) != NULL;
}

/* Whether pointers p and q may address the same memory. */
static int may_alias(LLVMValueRef p, LLVMValueRef q) {
  LLVMValueRef a = object_of(p), b = object_of(q);
  if (!a || !b)
    return 1;
  if (a == b)
    return 1;
  if (is_noalias_argument(a) || is_noalias_argument(b))
    return 0;
  if (LLVMIsAAllocaInst(a) || LLVMIsAAllocaInst(b))
    return 0;
  /* two arguments, or an argument and a global */
  return LLVMIsAArgument(a) || LLVMIsAArgument(b);
}

/* The `memory` attribute's write bits (LLVM's MemoryEffects: two bits
 * per location, argument memory first, Mod the higher). */
enum { MOD_ARGMEM = 1u << 1, MOD_INACCESSIBLE = 1u << 3, MOD_OTHER = 1u << 5 };

static int memory_effects(LLVMValueRef call, unsigned long long *effects) {
  unsigned kind = LLVMGetEnumAttributeKindForName("memory", 6);
  LLVMAttributeRef at = LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind);
  LLVMValueRef fn = ad_called_function(call);
  if (!at && fn)
    at = LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind);
  if (!at)
    return 0;
  *effects = LLVMGetEnumAttributeValue(at);
  return 1;
}

typedef enum { WRITES_NOTHING, WRITES_LISTED, WRITES_ANYTHING } write_kind;
enum { MAX_WRITTEN = AD_BLAS_MAX_ARGS };

/* The pointers a BLAS call may write through: its output array (and
 * LAPACK's info, cuBLAS _v2's result); every array for a row that names
 * no output. */
static unsigned blas_written(LLVMValueRef call, const ad_call_rule *rule,
                             LLVMValueRef *out) {
  blas_routine_id id;
  blas_iface iface;
  unsigned prec, n = 0;
  ad_blas_rule_info(rule, &id, &iface, &prec);
  unsigned char roles[AD_BLAS_MAX_ARGS + 1];
  ad_blas_operand_roles(id, iface, roles);
  unsigned output = ad_blas_output(id);
  int reads_only = output == R_END && ad_blas_returns_real(id);
  unsigned nargs = LLVMGetNumArgOperands(call);
  for (unsigned k = 0; roles[k] && k < nargs; k++) {
    role_class cl = class_of(roles[k]);
    int written = cl == C_INFO || cl == C_RESULT ||
                  (cl == C_ARRAY && !reads_only &&
                   (output == R_END || roles[k] == output));
    if (written && n < MAX_WRITTEN)
      out[n++] = LLVMGetOperand(call, k);
  }
  return n;
}

static unsigned pointer_args(LLVMValueRef call, LLVMValueRef *out) {
  unsigned n = 0, nargs = LLVMGetNumArgOperands(call);
  for (unsigned k = 0; k < nargs; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (LLVMGetTypeKind(LLVMTypeOf(a)) != LLVMPointerTypeKind)
      continue;
    if (n == MAX_WRITTEN)
      return (unsigned)-1;
    out[n++] = a;
  }
  return n;
}

static write_kind call_writes(ad_module_ctx *mc, LLVMValueRef call,
                              LLVMValueRef *out, unsigned *n) {
  LLVMValueRef fn = ad_called_function(call);
  if (fn && LLVMGetIntrinsicID(fn)) {
    size_t len;
    const char *name = LLVMGetValueName2(fn, &len);
    if (strncmp(name, "llvm.memset.", 12) == 0 ||
        strncmp(name, "llvm.memcpy.", 12) == 0 ||
        strncmp(name, "llvm.memmove.", 13) == 0) {
      out[0] = LLVMGetOperand(call, 0);
      *n = 1;
      return WRITES_LISTED;
    }
  }
  const ad_call_rule *rule = ad_rule_of_call(mc, call);
  blas_routine_id id;
  blas_iface iface;
  unsigned prec;
  if (rule && ad_blas_rule_info(rule, &id, &iface, &prec)) {
    *n = blas_written(call, rule, out);
    return WRITES_LISTED;
  }
  if (rule && ad_math_is_row(rule)) {
    if (!rule->writes_pointer_args)
      return WRITES_NOTHING;
    *n = pointer_args(call, out);
    return *n == (unsigned)-1 ? WRITES_ANYTHING : WRITES_LISTED;
  }
  unsigned long long effects;
  if (memory_effects(call, &effects)) {
    /* memory only the callee sees (malloc's) is not the program's */
    if (!(effects & (MOD_ARGMEM | MOD_OTHER)))
      return WRITES_NOTHING;
    if (!(effects & MOD_OTHER)) {
      *n = pointer_args(call, out);
      return *n == (unsigned)-1 ? WRITES_ANYTHING : WRITES_LISTED;
    }
  }
  return WRITES_ANYTHING;
}

/* Whether instruction i may write memory `array` points to. */
static int writes_into(ad_module_ctx *mc, LLVMValueRef i, LLVMValueRef array) {
  LLVMValueRef out[MAX_WRITTEN];
  unsigned n = 0;
  if (LLVMIsAStoreInst(i))
    return may_alias(LLVMGetOperand(i, 1), array);
  if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i))
    return may_alias(LLVMGetOperand(i, 0), array);
  if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
    return 0;
  switch (call_writes(mc, i, out, &n)) {
  case WRITES_NOTHING:
    return 0;
  case WRITES_ANYTHING:
    return 1;
  case WRITES_LISTED:
    break;
  }
  for (unsigned k = 0; k < n; k++)
    if (may_alias(out[k], array))
      return 1;
  return 0;
}

int ad_rev_instruction_writes(ad_module_ctx *mc, LLVMValueRef i) {
  LLVMValueRef out[MAX_WRITTEN];
  unsigned n = 0;
  if (LLVMIsAStoreInst(i) || LLVMIsAAtomicRMWInst(i) ||
      LLVMIsAAtomicCmpXchgInst(i) || LLVMIsAFenceInst(i))
    return 1;
  if (LLVMIsALoadInst(i))
    return LLVMGetVolatile(i);
  if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
    return 0;
  LLVMValueRef fn = ad_called_function(i);
  if (fn) {
    /* markers of the debugger and the optimizer, not the program's */
    size_t len;
    const char *name = LLVMGetValueName2(fn, &len);
    if (strncmp(name, "llvm.dbg.", 9) == 0 ||
        strncmp(name, "llvm.lifetime.", 14) == 0)
      return 0;
  }
  return call_writes(mc, i, out, &n) != WRITES_NOTHING;
}

static int block_writes_into(ad_module_ctx *mc, LLVMValueRef from,
                             LLVMValueRef array) {
  for (LLVMValueRef i = from; i; i = LLVMGetNextInstruction(i))
    if (writes_into(mc, i, array))
      return 1;
  return 0;
}

/* Whether the memory p points to is still there when the reverse runs:
 * an argument's, a global's or a heap allocation's (freeing it is a
 * write, above), through GEPs, casts, PHIs and selects of such.  An
 * alloca is gone when aug returns (clang -O0 emits no lifetime.end to
 * count as its writer), and a pointer loaded from memory may be one. */
static int outlives_augmented_pass(ad_module_ctx *mc, LLVMValueRef p, int depth) {
  if (depth > 8)
    return 0;
  LLVMValueRef object = object_of(p);
  if (object)
    return !LLVMIsAAllocaInst(object);
  p = ad_strip_casts(p, AD_STRIP_INT_CASTS | AD_STRIP_GEPS | AD_STRIP_INSTRUCTIONS);
  if (LLVMIsACallInst(p)) {
    const ad_call_rule *rule = ad_rule_of_call(mc, p);
    return rule && rule->returns_allocation;
  }
  if (LLVMIsAPHINode(p)) {
    for (unsigned i = 0; i < LLVMCountIncoming(p); i++)
      if (LLVMGetIncomingValue(p, i) != p &&
          !outlives_augmented_pass(mc, LLVMGetIncomingValue(p, i), depth + 1))
        return 0;
    return 1;
  }
  if (LLVMIsASelectInst(p))
    return outlives_augmented_pass(mc, LLVMGetOperand(p, 1), depth + 1) &&
           outlives_augmented_pass(mc, LLVMGetOperand(p, 2), depth + 1);
  return 0;
}

int ad_rev_may_be_overwritten(ad_rev_fn *r, LLVMValueRef call,
                              LLVMValueRef array, const LLVMValueRef *outputs,
                              unsigned noutputs) {
  if (!outlives_augmented_pass(r->mc, array, 0))
    return 1;
  for (unsigned k = 0; k < noutputs; k++)
    if (outputs[k] && may_alias(outputs[k], array))
      return 1;
  if (!r->sig->back_to_back)
    return 1;
  LLVMBasicBlockRef home = LLVMGetInstructionParent(call);
  if (block_writes_into(r->mc, LLVMGetNextInstruction(call), array))
    return 1;
  /* the blocks reachable from the call's */
  LLVMValueRef fn = LLVMGetBasicBlockParent(home);
  unsigned nblocks = LLVMCountBasicBlocks(fn);
  LLVMBasicBlockRef *stack = malloc(sizeof *stack * (nblocks + 1));
  LLVMBasicBlockRef *seen = malloc(sizeof *seen * (nblocks + 1));
  if (!stack || !seen) {
    free(stack);
    free(seen);
    return 1; /* unknown: the copy is always correct */
  }
  unsigned nstack = 0, nseen = 0;
  int written = 0;
  stack[nstack++] = home;
  while (nstack && !written) {
    LLVMBasicBlockRef bb = stack[--nstack];
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    unsigned nsucc = term ? LLVMGetNumSuccessors(term) : 0;
    for (unsigned s = 0; s < nsucc && !written; s++) {
      LLVMBasicBlockRef next = LLVMGetSuccessor(term, s);
      int known = 0;
      for (unsigned k = 0; k < nseen && !known; k++)
        known = seen[k] == next;
      if (known || nseen == nblocks)
        continue;
      seen[nseen++] = next;
      /* the call's own block again (a loop): all of it, the call too */
      written = block_writes_into(r->mc, LLVMGetFirstInstruction(next), array);
      stack[nstack++] = next;
    }
  }
  free(stack);
  free(seen);
  return written;
}
