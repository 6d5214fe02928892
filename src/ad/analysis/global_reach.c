/*
 * Which functions the requests' code can differentiate, and whether that
 * code names a mutable global: the walk active-global discovery
 * (global_discovery.c) starts from.  A global becomes active only when
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
 * whatever the derivatives' signatures turn out to be, and discovery ends
 * there without analysing a body.  A rule registered through the API
 * (tanjit_register_fwd_rule) names its derivative by symbol: that function
 * is called, never differentiated, so it demands nothing and the walk need
 * not follow it.
 */
#include <stdlib.h>
#include <string.h>

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
  /* the whole walk (ad_requests_reach): it goes on past the first mutable
   * global, keeps every function read and notes calls to requests */
  int complete, nested;
  LLVMValueRef *read;
  size_t nread, capread;
} reach_walk;

/* Whether the walk may stop: it looks for one global only. */
static int walk_done(const reach_walk *w) {
  return w->oom || (w->found && !w->complete);
}

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
  if (!c || walk_done(w))
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
      if (!w->complete)
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
  for (unsigned i = 0; i < n && !walk_done(w); i++) {
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

static void note_read(reach_walk *w, LLVMValueRef f) {
  if (!w->complete || !LLVMCountBasicBlocks(f))
    return;
  if (w->nread == w->capread) {
    size_t cap = w->capread ? 2 * w->capread : 64;
    LLVMValueRef *g = tj_realloc(w->read, cap * sizeof *g);
    if (!g) {
      w->oom = 1;
      return;
    }
    w->read = g;
    w->capread = cap;
  }
  w->read[w->nread++] = f;
}

static void read_body(reach_walk *w, LLVMValueRef f) {
  note_read(w, f);
  visit_metadata_of(w, f);
  if (LLVMHasPersonalityFn(f))
    visit_constant(w, LLVMGetPersonalityFn(f), 0);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && !walk_done(w);
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !walk_done(w);
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef callee = LLVMIsACallInst(i) || LLVMIsAInvokeInst(i)
                                ? ad_called_function(i)
                                : NULL;
      if ((LLVMIsACallInst(i) || LLVMIsAInvokeInst(i)) && !callee &&
          !LLVMIsAInlineAsm(LLVMGetCalledValue(i)))
        push_address_taken(w, LLVMGetGlobalParent(f));
      if (callee && ad_is_request_function(callee))
        w->nested = 1;
      int n = LLVMGetNumOperands(i);
      for (int k = 0; k < n; k++) {
        LLVMValueRef o = LLVMGetOperand(i, (unsigned)k);
        if (o && LLVMIsConstant(o))
          visit_constant(w, o, 0);
      }
    }
}

/* Walks from the requests' arguments; w set up. */
static void walk_requests(reach_walk *w, LLVMValueRef const *requests,
                          size_t nrequests) {
  for (size_t r = 0; r < nrequests && !walk_done(w); r++) {
    LLVMValueRef call = requests[r];
    unsigned n = LLVMGetNumArgOperands(call);
    for (unsigned k = 0; k < n; k++) {
      LLVMValueRef a = LLVMGetOperand(call, k);
      if (LLVMIsConstant(a))
        visit_constant(w, a, 0);
      else if (k < 2 && LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind)
        /* the function reached through a pointer (nofn's refusal): any */
        push_address_taken(w, LLVMGetGlobalParent(
            LLVMGetBasicBlockParent(LLVMGetInstructionParent(call))));
    }
  }
  while (w->sp && !walk_done(w)) {
    LLVMValueRef f = w->stack[--w->sp];
    read_body(w, f);
  }
}

int ad_requests_reach_mutable_global(LLVMValueRef const *requests,
                                     size_t nrequests) {
  reach_walk w = {0};
  ad_map_init(&w.seen);
  walk_requests(&w, requests, nrequests);
  int found = w.found || w.oom;
  ad_map_free(&w.seen);
  free(w.stack);
  return found;
}

int ad_requests_reach(LLVMValueRef const *requests, size_t nrequests,
                      ad_reached *out) {
  reach_walk w = {0};
  ad_map_init(&w.seen);
  w.complete = 1;
  walk_requests(&w, requests, nrequests);
  ad_map_free(&w.seen);
  free(w.stack);
  if (w.oom) {
    free(w.read);
    memset(out, 0, sizeof *out);
    return -1;
  }
  out->fns = w.read;
  out->n = w.nread;
  out->names_mutable_global = w.found;
  out->nested = w.nested;
  return 0;
}
