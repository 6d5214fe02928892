/*
 * Which mutable globals the requests' code can reach: the part of active
 * global discovery that is a query.  A global becomes active only when
 * activity analysis of a derivative's body demands it (activity.c), and it
 * demands only globals named by that body's instructions, by the request
 * calls' arguments, or by the initializers of globals those name.  The
 * bodies differentiated are the request targets and what they reach: direct
 * callees, any function named as a value (a function pointer passed or
 * stored), every address-taken function once an indirect call is reached,
 * functions named by metadata (in-IR custom derivatives) or by the
 * initializers of reached globals, and derivatives of those (higher order),
 * whose code refers to the same globals' shadows.  When none of that names
 * a mutable global that could get a shadow, no global becomes active,
 * whatever the derivatives' signatures turn out to be, and engine.c skips
 * discovering the set on copies of the module.
 */
#include <stdlib.h>

#include "ad/ad.h"
#include "ad/analysis/globals.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "common/alloc.h"

typedef struct reach_walk {
  ad_map seen;          /* functions, globals and constants visited */
  LLVMValueRef *stack;  /* functions whose bodies are still to be read */
  size_t sp, cap;
  int taken_added;      /* address-taken functions pushed (an indirect call) */
  int found, oom;
} reach_walk;

static void push_function(reach_walk *w, LLVMValueRef f) {
  if (w->oom || ad_map_get(&w->seen, f))
    return;
  if (ad_map_put(&w->seen, f, (void *)1) != 0) {
    w->oom = 1;
    return;
  }
  if (w->sp == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 64;
    LLVMValueRef *s = tj_realloc(w->stack, cap * sizeof *s);
    if (!s) {
      w->oom = 1;
      return;
    }
    w->stack = s;
    w->cap = cap;
  }
  w->stack[w->sp++] = f;
}

static void visit_metadata_of(reach_walk *w, LLVMValueRef f);

/* Reads constant c: functions it names are reached, a mutable global that
 * could get a shadow is what the walk looks for, a constant global's
 * initializer is read in turn. */
static void visit_constant(reach_walk *w, LLVMValueRef c, int depth) {
  if (!c || w->found || w->oom)
    return;
  if (depth > 64) {
    w->found = 1; /* cannot tell: say reached */
    return;
  }
  if (LLVMIsAFunction(c)) {
    push_function(w, c);
    return;
  }
  if (!LLVMIsConstant(c) || LLVMIsAConstantDataSequential(c) ||
      LLVMIsAConstantFP(c) || LLVMIsAConstantInt(c) ||
      LLVMIsAConstantPointerNull(c) || LLVMIsAUndefValue(c))
    return;
  if (ad_map_get(&w->seen, c))
    return;
  if (ad_map_put(&w->seen, c, (void *)1) != 0) {
    w->oom = 1;
    return;
  }
  if (LLVMIsAGlobalVariable(c)) {
    if (ad_global_can_shadow(c) && !LLVMIsGlobalConstant(c)) {
      w->found = 1;
      return;
    }
    visit_constant(w, LLVMGetInitializer(c), depth + 1);
    return;
  }
  if (LLVMIsAGlobalAlias(c)) {
    visit_constant(w, LLVMAliasGetAliasee(c), depth + 1);
    return;
  }
  if (LLVMIsAGlobalValue(c))
    return; /* an ifunc: nothing of ours */
  int n = LLVMGetNumOperands(c);
  for (int k = 0; k < n; k++)
    visit_constant(w, LLVMGetOperand(c, (unsigned)k), depth + 1);
}

/* Functions named by f's metadata attachments (!enzyme_derivative). */
static void visit_metadata_of(reach_walk *w, LLVMValueRef f) {
  size_t n = 0;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(f, &n);
  if (!md)
    return;
  LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(f));
  for (unsigned i = 0; i < n && !w->found; i++) {
    LLVMValueRef node =
        LLVMMetadataAsValue(ctx, LLVMValueMetadataEntriesGetMetadata(md, i));
    if (!LLVMIsAMDNode(node))
      continue;
    unsigned nops = LLVMGetMDNodeNumOperands(node);
    LLVMValueRef *ops = tj_malloc((nops ? nops : 1) * sizeof *ops);
    if (!ops) {
      w->oom = 1;
      break;
    }
    LLVMGetMDNodeOperands(node, ops);
    for (unsigned k = 0; k < nops; k++)
      if (ops[k] && LLVMIsConstant(ops[k]))
        visit_constant(w, ops[k], 0);
    free(ops);
  }
  LLVMDisposeValueMetadataEntries(md);
}

static void push_address_taken(reach_walk *w, LLVMModuleRef m) {
  if (w->taken_added)
    return;
  w->taken_added = 1;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (LLVMCountBasicBlocks(f) && ad_function_address_taken(f))
      push_function(w, f);
}

static void read_body(reach_walk *w, LLVMValueRef f) {
  visit_metadata_of(w, f);
  if (LLVMHasPersonalityFn(f))
    visit_constant(w, LLVMGetPersonalityFn(f), 0);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && !w->found;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !w->found;
         i = LLVMGetNextInstruction(i)) {
      if ((LLVMIsACallInst(i) || LLVMIsAInvokeInst(i)) &&
          !ad_called_function(i) &&
          !LLVMIsAInlineAsm(LLVMGetCalledValue(i)))
        push_address_taken(w, LLVMGetGlobalParent(f));
      int n = LLVMGetNumOperands(i);
      for (int k = 0; k < n; k++) {
        LLVMValueRef o = LLVMGetOperand(i, (unsigned)k);
        if (o && LLVMIsConstant(o))
          visit_constant(w, o, 0);
      }
    }
}

int ad_requests_reach_mutable_global(LLVMValueRef const *requests,
                                     size_t nrequests) {
  reach_walk w = {0};
  ad_map_init(&w.seen);
  for (size_t r = 0; r < nrequests && !w.found && !w.oom; r++) {
    LLVMValueRef call = requests[r];
    unsigned n = LLVMGetNumArgOperands(call);
    for (unsigned k = 0; k < n; k++) {
      LLVMValueRef a = LLVMGetOperand(call, k);
      if (LLVMIsConstant(a))
        visit_constant(&w, a, 0);
      else if (k < 2 && LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind)
        /* the function reached through a pointer (nofn's refusal): any */
        push_address_taken(&w, LLVMGetGlobalParent(
            LLVMGetBasicBlockParent(LLVMGetInstructionParent(call))));
    }
  }
  while (w.sp && !w.found && !w.oom) {
    LLVMValueRef f = w.stack[--w.sp];
    read_body(&w, f);
  }
  int found = w.found || w.oom;
  ad_map_free(&w.seen);
  free(w.stack);
  return found;
}
