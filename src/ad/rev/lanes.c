/*
 * Vector reverse mode (enzyme_width N > 1 in __enzyme_autodiff): N seeds,
 * N shadows per duplicated argument, each OUT adjoint returned per lane.
 * Three ways to run the lanes; the first that is exact is taken:
 *
 * 1. One augmented pass for all lanes, then the reverse pass once per
 *    lane over the same tape (its size put back to where aug left it
 *    before each lane; the reverse only pops, it never writes a record),
 *    each lane with its own shadows and seed; the tape freed after the
 *    last.  Exact when the augmented pass does not depend on the shadows
 *    it is given: then aug run with lane 0's shadows leaves the tape and
 *    memory it would leave with any lane's, and every shadow effect is
 *    the reverse's, on its own lane's shadows.  That is decided on the
 *    built augmented functions: the shadow parameters are followed
 *    through every value computed from them (into the augmented passes
 *    of callees, and out of those that return one), and such a value
 *    stored anywhere (shadow memory, the tape), used as an address to
 *    store to, passed to a call that is not an augmented pass, or
 *    branched on breaks it; so does a reverse that frees anything but the
 *    shadow blocks aug made.  Those blocks (a malloc'd temporary's
 *    shadow, a list node's, an active alloca's) hold only zeros and the
 *    shadow pointers aug stored into them, none of them the caller's
 *    (that breaks it, above), so every lane can start from them as aug
 *    left them: after aug each block is copied (the copy kept below the
 *    block, where tanjit.rev.shadow.free sees it and leaves the block
 *    alive), put back from its copy before each further lane, and the
 *    copies freed before the last lane, whose reverse frees the blocks.
 *    Functions writing their outputs into the caller's memory, updating
 *    it in place, looping, calling defined functions, and building heap
 *    temporaries, lists and trees pass.
 * 2. One whole gradient (aug, then rev) per lane, each with its own tape:
 *    exact when running the primal again cannot see a difference (the
 *    function and its callees store, copy and memset only into memory
 *    the call made: a local object, or what lanes_memory.c's points-to
 *    sets find only the call's, such as clang -O0's slots and a
 *    std::vector's members written through `this` in a callee; they call
 *    nothing that may write memory but noreturn helpers, and the function
 *    frees nothing computed from its arguments: the next lane would read
 *    it and free it again), which covers
 *    an aug keeping a caller's shadow in a block it made (a list of
 *    pointers into x) that path 1 cannot share.
 * 3. The same, for a function that also writes its caller's memory, but
 *    only through pointers computed from its own arguments (its callees
 *    still write only what they allocate): lanes 0 .. N-2 run a second
 *    pair (sig.lanes_undo) whose aug saves the bytes each such store,
 *    memcpy, memmove or memset overwrites on a log behind the tape header
 *    (tanjit.rev.lanes.save), and after that lane's reverse the log is
 *    written back, newest first (tanjit.rev.lanes.undo): every lane's
 *    primal starts from the memory the call began with, and the last
 *    lane, on the ordinary pair, leaves the function's results.
 *
 * Split mode takes path 1 only (its primal runs once, in
 * __enzyme_augmentfwd): the copies are made there, right after aug, and
 * the list of the blocks they belong to is pushed on the records of the
 * tape the caller holds (tanjit.rev.lanes.stash), where __enzyme_reverse
 * finds it to put the blocks back before each further lane.  All paths
 * refuse a mutable global (its one shadow the lanes would share).
 * Otherwise the error names path 3's first offending instruction and
 * what stopped path 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/lanes_memory.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

/* What stops a way of running the lanes: the instruction and why. */
typedef struct lane_finding {
  LLVMValueRef inst;
  const char *what;
} lane_finding;

static int found(lane_finding *f, LLVMValueRef inst, const char *what) {
  f->inst = inst;
  f->what = what;
  return 1;
}

/* A worklist of functions, each pushed once (seen). */
typedef struct fn_list {
  LLVMValueRef *v;
  size_t n, cap;
  ad_map seen;
} fn_list;

static void fn_list_init(fn_list *l) {
  memset(l, 0, sizeof *l);
  ad_map_init(&l->seen);
}

static void fn_list_free(fn_list *l) {
  free(l->v);
  ad_map_free(&l->seen);
}

/* 0, or -1 out of memory; a function already seen is not pushed again
 * unless `again`. */
static int fn_list_push(fn_list *l, LLVMValueRef fn, int again) {
  if (!again && ad_map_get(&l->seen, fn))
    return 0;
  if (ad_map_put(&l->seen, fn, (void *)1) != 0)
    return -1;
  if (l->n == l->cap) {
    size_t c = l->cap ? 2 * l->cap : 16;
    LLVMValueRef *g = tj_realloc(l->v, c * sizeof *g);
    if (!g)
      return -1;
    l->v = g;
    l->cap = c;
  }
  l->v[l->n++] = fn;
  return 0;
}

/* ---- path 2 (and the mutable globals of both): the primal ---- */

/* Whether pointer v points into memory fn made itself (an alloca, a heap
 * allocation, or a local variable holding only such pointers), looked
 * through GEPs and casts; depth bounds PHI cycles. */
static int is_local_object(ad_module_ctx *mc, LLVMValueRef v, int depth) {
  if (depth > 8)
    return 0;
  v = ad_strip_casts(v, AD_STRIP_GEPS | AD_STRIP_INT_CASTS |
                            AD_STRIP_INSTRUCTIONS);
  if (LLVMIsAAllocaInst(v))
    return 1;
  if (LLVMIsACallInst(v)) {
    const ad_call_rule *rule = ad_rule_of_call(mc, v);
    return rule && rule->returns_allocation;
  }
  if (LLVMIsAPHINode(v)) {
    for (unsigned i = 0; i < LLVMCountIncoming(v); i++)
      if (!is_local_object(mc, LLVMGetIncomingValue(v, i), depth + 1))
        return 0;
    return 1;
  }
  if (LLVMIsASelectInst(v))
    return is_local_object(mc, LLVMGetOperand(v, 1), depth + 1) &&
           is_local_object(mc, LLVMGetOperand(v, 2), depth + 1);
  if (!LLVMIsALoadInst(v))
    return 0;
  /* a local variable (clang -O0's `double *t = malloc(...)`): every value
   * stored into it local, and its address not taken */
  LLVMValueRef slot = LLVMGetOperand(v, 0);
  if (!LLVMIsAAllocaInst(slot))
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user))
      continue;
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != slot ||
        !is_local_object(mc, LLVMGetOperand(user, 0), depth + 1))
      return 0;
  }
  return 1;
}

/* Whether a write through pointer v lands in memory this call of the
 * function made: a local object of the function it is in, or memory the
 * points-to sets (lanes_memory.c) find only the call's own (a callee's
 * `this`, a pointer loaded from a local array of such). */
static int lands_in_own_memory(ad_module_ctx *mc, const lane_memory *mem,
                               LLVMValueRef v) {
  return is_local_object(mc, v, 0) || lane_memory_fresh(mem, v);
}

/* Whether pointer v is computed from one of the parameters in `params`
 * (through GEPs, casts, PHIs and selects of such, and local variables
 * holding only such: clang -O0's `out.addr`): memory that existed before
 * the call.  depth bounds PHI cycles. */
static int from_params(LLVMValueRef v, ad_map *params, int depth) {
  if (depth > 8)
    return 0;
  v = ad_strip_casts(v, AD_STRIP_GEPS | AD_STRIP_INT_CASTS |
                            AD_STRIP_INSTRUCTIONS);
  if (LLVMIsAArgument(v))
    return ad_map_get(params, v) != NULL;
  if (LLVMIsAPHINode(v)) {
    for (unsigned i = 0; i < LLVMCountIncoming(v); i++)
      if (LLVMGetIncomingValue(v, i) != v &&
          !from_params(LLVMGetIncomingValue(v, i), params, depth + 1))
        return 0;
    return 1;
  }
  if (LLVMIsASelectInst(v))
    return from_params(LLVMGetOperand(v, 1), params, depth + 1) &&
           from_params(LLVMGetOperand(v, 2), params, depth + 1);
  if (!LLVMIsALoadInst(v) || !LLVMIsAAllocaInst(LLVMGetOperand(v, 0)))
    return 0;
  LLVMValueRef slot = LLVMGetOperand(v, 0);
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user))
      continue;
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != slot ||
        !from_params(LLVMGetOperand(user, 0), params, depth + 1))
      return 0;
  }
  return 1;
}

/* The memory an instruction writes as a plain store or an llvm.mem* call
 * (the destination, *bytes its size), or NULL. */
static LLVMValueRef written(ad_module_ctx *mc, LLVMValueRef inst,
                            LLVMValueRef *bytes) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  if (LLVMIsAStoreInst(inst)) {
    *bytes = LLVMConstInt(
        i64, LLVMStoreSizeOfType(mc->td, LLVMTypeOf(LLVMGetOperand(inst, 0))),
        0);
    return LLVMGetOperand(inst, 1);
  }
  if (!LLVMIsACallInst(inst))
    return NULL;
  LLVMValueRef callee = ad_called_function(inst);
  size_t n;
  const char *name = callee ? LLVMGetValueName2(callee, &n) : "";
  if (strncmp(name, "llvm.memcpy", 11) != 0 &&
      strncmp(name, "llvm.memmove", 12) != 0 &&
      strncmp(name, "llvm.memset", 11) != 0)
    return NULL;
  *bytes = LLVMGetOperand(inst, 2);
  return LLVMGetOperand(inst, 0);
}

/* The functions a call through a pointer may reach: every defined
 * function of the module with that type whose address is taken. */
static int push_candidates(ad_module_ctx *mc, LLVMValueRef call,
                           fn_list *work) {
  LLVMTypeRef ft = LLVMGetCalledFunctionType(call);
  for (LLVMValueRef g = LLVMGetFirstFunction(mc->mod); g;
       g = LLVMGetNextFunction(g)) {
    if (!LLVMCountBasicBlocks(g) || LLVMGlobalGetValueType(g) != ft)
      continue;
    for (LLVMUseRef u = LLVMGetFirstUse(g); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if ((LLVMIsACallInst(user) || LLVMIsAInvokeInst(user)) &&
          LLVMGetCalledValue(user) == g)
        continue;
      if (fn_list_push(work, g, 0) != 0)
        return -1;
      break;
    }
  }
  return 0;
}

/* What a walk over the primal looks for. */
typedef enum primal_scan {
  SCAN_PER_LANE, /* what breaks path 2 */
  SCAN_GLOBALS,  /* a mutable global (both paths) */
  SCAN_CUSTOM,   /* a custom gradient (path 1): its reverse may free the
                    tape its augmented half returned */
  SCAN_UNDONE    /* what breaks path 3: path 2's but the writes of the
                    function itself through its arguments */
} primal_scan;

/* 1 with *f set when inst has what `mode` looks for, 0 when not, -1 out
 * of memory.  Defined callees are pushed on work.  `params`: the
 * parameters of the function inst is in whose writes through them path 3
 * undoes (NULL: none); `top`: path 3's function (NULL for the others). */
static int primal_instruction(ad_module_ctx *mc, const lane_memory *mem,
                              LLVMValueRef inst, primal_scan mode,
                              fn_list *work, LLVMValueRef top, ad_map *params,
                              lane_finding *f) {
  int globals_only = mode != SCAN_PER_LANE && mode != SCAN_UNDONE;
  LLVMValueRef bytes;
  LLVMValueRef to = params ? written(mc, inst, &bytes) : NULL;
  if (to && from_params(to, params, 0))
    return 0;
  if (mode == SCAN_CUSTOM &&
      (LLVMIsACallInst(inst) || LLVMIsAInvokeInst(inst)) &&
      ad_rev_custom_applies(mc, inst))
    return found(f, inst,
                 "its reverse pass runs a custom gradient's reverse, which "
                 "may free what the augmented half made");
  for (int k = 0; mode != SCAN_CUSTOM && k < LLVMGetNumOperands(inst); k++) {
    LLVMValueRef op = ad_strip_casts(LLVMGetOperand(inst, (unsigned)k),
                                     AD_STRIP_GEPS | AD_STRIP_INT_CASTS);
    if (LLVMIsAGlobalVariable(op) && !LLVMIsGlobalConstant(op))
      return found(f, inst,
                   "it uses a mutable global, whose one shadow the lanes "
                   "would share");
  }
  if (LLVMIsAStoreInst(inst)) {
    if (!globals_only && !lands_in_own_memory(mc, mem, LLVMGetOperand(inst, 1)))
      return found(f, inst,
                   params ? "it stores to memory it did not allocate, "
                            "through a pointer not computed from its "
                            "arguments"
                          : "it stores to memory it did not allocate");
    return 0;
  }
  if (LLVMIsAAtomicRMWInst(inst) || LLVMIsAAtomicCmpXchgInst(inst))
    return globals_only ? 0 : found(f, inst, "an atomic update");
  if (!LLVMIsACallInst(inst) && !LLVMIsAInvokeInst(inst))
    return 0;
  LLVMValueRef callee = ad_called_function(inst);
  if (!callee) {
    if (!globals_only)
      return found(f, inst, "an indirect call may write anything");
    return push_candidates(mc, inst, work);
  }
  size_t n;
  const char *name = LLVMGetValueName2(callee, &n);
  if (strncmp(name, "llvm.mem", 8) == 0) {
    if (!globals_only &&
        (strncmp(name, "llvm.memcpy", 11) == 0 ||
         strncmp(name, "llvm.memmove", 12) == 0 ||
         strncmp(name, "llvm.memset", 11) == 0) &&
        !lands_in_own_memory(mc, mem, LLVMGetOperand(inst, 0)))
      return found(f, inst,
                   params ? "it copies into memory it did not allocate, "
                            "through a pointer not computed from its "
                            "arguments"
                          : "it copies into memory it did not allocate");
    return 0;
  }
  if (strncmp(name, "llvm.", 5) == 0)
    return globals_only || (!strstr(name, "store") && !strstr(name, "scatter"))
               ? 0
               : found(f, inst,
                       "it writes memory through an intrinsic (a masked "
                       "store or scatter)");
  /* a call that never comes back (a noreturn callee, defined or not:
   * __clang_call_terminate on a noexcept path, the C++ library's __throw_*
   * helpers std::vector calls at -O0): whatever it does, no lane's primal
   * goes on after it, so it cannot make lanes differ.  Not an invoke,
   * whose landing pad may go on. */
  if (LLVMIsACallInst(inst) && ad_call_never_returns(inst))
    return 0;
  if (LLVMCountBasicBlocks(callee)) {
    if (callee == top)
      return found(f, inst,
                   "it calls itself, and only the outermost call's writes "
                   "through its arguments are undone between lanes");
    return fn_list_push(work, callee, 0);
  }
  /* an external invoke that never comes back the normal way (its landing
   * pad may): as before, it does not make lanes differ */
  if (globals_only || ad_call_never_returns(inst))
    return 0;
  const ad_call_rule *rule = ad_rule_of_call(mc, inst);
  if (!rule || rule->writes_pointer_args || rule->inactive)
    return found(f, inst,
                 "it calls a function that may write memory or have other "
                 "effects");
  return 0;
}

/* Whether inst frees (free, delete, realloc) its caller's memory, which
 * every lane's primal reads: a pointer computed from the parameters in
 * `params` (those of the request's function, when inst is in it), or one
 * the points-to sets find only in memory that existed before the call (a
 * pointer reloaded from memory or freed in a callee; the sets do not tell
 * a node's fields apart, so a list node holding a pointer into x and its
 * next node may be either, and is not refused). */
static int frees_callers_memory(ad_module_ctx *mc, const lane_memory *mem,
                                LLVMValueRef inst, ad_map *params) {
  if (!LLVMIsACallInst(inst) && !LLVMIsAInvokeInst(inst))
    return 0;
  const ad_call_rule *rule = ad_rule_of_call(mc, inst);
  if (!rule || !rule->frees_argument || LLVMGetNumArgOperands(inst) == 0)
    return 0;
  LLVMValueRef p = LLVMGetOperand(inst, 0);
  return (params && from_params(p, params, 0)) ||
         lane_memory_callers_only(mem, p);
}

/* 1 with *f set when fn or a function it reaches has what `mode` looks
 * for; 0; -1 out of memory. */
static int scan_primal(ad_module_ctx *mc, LLVMValueRef fn, primal_scan mode,
                       lane_finding *f) {
  int per_lane = mode == SCAN_PER_LANE || mode == SCAN_UNDONE;
  lane_memory *mem = per_lane ? lane_memory_build(mc, fn) : NULL;
  fn_list work;
  fn_list_init(&work);
  ad_map params; /* path 3: fn's own writes through its parameters */
  ad_map_init(&params);
  ad_map callers; /* fn's parameters: memory its caller owns */
  ad_map_init(&callers);
  int rc = per_lane && !mem ? -1 : fn_list_push(&work, fn, 0);
  for (unsigned i = 0; rc == 0 && i < LLVMCountParams(fn); i++)
    if (ad_map_put(&callers, LLVMGetParam(fn, i), (void *)1) != 0)
      rc = -1;
  for (unsigned i = 0; rc == 0 && mode == SCAN_UNDONE && i < LLVMCountParams(fn);
       i++)
    if (ad_map_put(&params, LLVMGetParam(fn, i), (void *)1) != 0)
      rc = -1;
  while (rc == 0 && work.n) {
    LLVMValueRef g = work.v[--work.n];
    ad_map *own = mode == SCAN_UNDONE && g == fn ? &params : NULL;
    LLVMValueRef top = mode == SCAN_UNDONE ? fn : NULL;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g); bb && rc == 0;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst && rc == 0;
           inst = LLVMGetNextInstruction(inst))
        rc = per_lane && frees_callers_memory(mc, mem, inst,
                                              g == fn ? &callers : NULL)
                 ? found(f, inst,
                         "it frees memory its caller passed it, which the "
                         "next lane's primal would read and free again")
                 : primal_instruction(mc, mem, inst, mode, &work, top, own, f);
  }
  ad_map_free(&callers);
  ad_map_free(&params);
  fn_list_free(&work);
  lane_memory_free(mem);
  return rc;
}

/* ---- path 1: the built pair ---- */

/* A pair function (not one of the tanjit.* helpers). */
static int is_pair_fn(ad_module_ctx *mc, LLVMValueRef fn) {
  size_t n;
  const char *name = LLVMGetValueName2(fn, &n);
  return fn && LLVMCountBasicBlocks(fn) && strncmp(name, "tanjit.", 7) != 0 &&
         ad_rev_is_generated(mc, fn);
}

/* Calls a shadow may be handed to without effect. */
static int harmless_intrinsic(const char *name) {
  static const char *const prefixes[] = {"llvm.dbg.",
                                         "llvm.lifetime.",
                                         "llvm.assume",
                                         "llvm.invariant.",
                                         "llvm.experimental.noalias.scope.decl",
                                         "llvm.prefetch"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
      return 1;
  return 0;
}

static const char *callee_name(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  size_t n;
  return callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &n) : "";
}

/* Whether v was computed from a pointer tanjit.tape.reserve.<aug> returned
 * (a slot of a record). */
static int on_tape(LLVMValueRef v) {
  v = ad_strip_casts(v, AD_STRIP_GEPS | AD_STRIP_INT_CASTS |
                            AD_STRIP_INSTRUCTIONS);
  return LLVMIsACallInst(v) &&
         strncmp(callee_name(v), "tanjit.tape.reserve.", 20) == 0;
}

typedef struct aug_scan {
  ad_module_ctx *mc;
  ad_map shadowed; /* values computed from a shadow */
  ad_map returns;  /* augmented functions that may return one */
  fn_list work;
  LLVMValueRef allocates; /* the first shadow allocation seen, or NULL */
} aug_scan;

static int is_shadowed(aug_scan *s, LLVMValueRef v) {
  return v && ad_map_get(&s->shadowed, v) != NULL;
}

static int mark(ad_map *m, LLVMValueRef v, int *changed) {
  if (ad_map_get(m, v))
    return 0;
  *changed = 1;
  return ad_map_put(m, v, (void *)1);
}

/* Follows the shadows through one augmented function until nothing new is
 * reached there; a callee's parameter that receives one is marked, and a
 * function returning one marked itself (its callers' results hold a shadow
 * then: a callee's own shadow blocks, which the caller gets back beside
 * the primal, are not the caller's shadows).  *changed is set when
 * anything new was marked.  0 or -1 out of memory. */
static int spread(aug_scan *s, LLVMValueRef fn, int *changed) {
  int again = 1;
  while (again) {
    again = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        if (LLVMIsAStoreInst(i) || is_shadowed(s, i))
          continue;
        if (LLVMIsAReturnInst(i)) {
          if (LLVMGetNumOperands(i) &&
              is_shadowed(s, LLVMGetOperand(i, 0)) &&
              mark(&s->returns, fn, changed) != 0)
            return -1;
          continue;
        }
        int call = LLVMIsACallInst(i) || LLVMIsAInvokeInst(i);
        LLVMValueRef callee = call ? LLVMGetCalledValue(i) : NULL;
        int pair = callee && LLVMIsAFunction(callee) &&
                   is_pair_fn(s->mc, callee);
        unsigned nops =
            call ? LLVMGetNumArgOperands(i) : (unsigned)LLVMGetNumOperands(i);
        int from_shadow = 0;
        for (unsigned k = 0; k < nops; k++) {
          if (!is_shadowed(s, LLVMGetOperand(i, k)))
            continue;
          from_shadow = 1;
          if (pair && k < LLVMCountParams(callee) &&
              mark(&s->shadowed, LLVMGetParam(callee, k), changed) != 0)
            return -1;
        }
        if (pair)
          from_shadow = ad_map_get(&s->returns, callee) != NULL;
        /* a callee's float result carries no shadow */
        int holds_other = 0, holds_float = 0;
        if (from_shadow && call)
          ad_rev_leaves(LLVMTypeOf(i), &holds_float, &holds_other);
        if (!from_shadow || (call && !holds_other))
          continue;
        if (mark(&s->shadowed, i, &again) != 0)
          return -1;
        *changed = 1;
      }
  }
  return 0;
}

/* 1 with *f set when augmented function fn depends on its shadows. */
static int aug_effects(aug_scan *s, LLVMValueRef fn, lane_finding *f) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMIsAStoreInst(i)) {
        if (is_shadowed(s, LLVMGetOperand(i, 1)))
          return found(f, i, "its augmented pass writes shadow memory");
        if (is_shadowed(s, LLVMGetOperand(i, 0)))
          return found(
              f, i,
              on_tape(LLVMGetOperand(i, 1))
                  ? "its augmented pass records a shadow pointer on the tape"
                  : "its augmented pass stores a shadow pointer into memory");
        continue;
      }
      if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i)) {
        for (int k = 0; k < LLVMGetNumOperands(i); k++)
          if (is_shadowed(s, LLVMGetOperand(i, (unsigned)k)))
            return found(f, i,
                         "its augmented pass updates shadow memory atomically");
        continue;
      }
      if (LLVMIsABranchInst(i) && LLVMIsConditional(i)) {
        if (is_shadowed(s, LLVMGetCondition(i)))
          return found(f, i, "its augmented pass branches on a shadow pointer");
        continue;
      }
      if (LLVMIsASwitchInst(i) || LLVMIsAIndirectBrInst(i)) {
        if (is_shadowed(s, LLVMGetOperand(i, 0)))
          return found(f, i, "its augmented pass branches on a shadow pointer");
        continue;
      }
      if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      const char *name = callee_name(i);
      /* a block of its own: every lane's reverse gets it as aug left it
       * (emit_shared_lanes' copies), unless a caller's shadow reaches it,
       * which the stores above refuse */
      if (strncmp(name, "tanjit.rev.shadow.alloc", 23) == 0) {
        if (!s->allocates)
          s->allocates = i;
        continue;
      }
      if (callee && LLVMIsAFunction(callee) && is_pair_fn(s->mc, callee))
        continue;
      if (harmless_intrinsic(name))
        continue;
      unsigned n = LLVMGetNumArgOperands(i);
      for (unsigned k = 0; k < n; k++)
        if (is_shadowed(s, LLVMGetOperand(i, k)))
          return found(
              f, i,
              strncmp(name, "llvm.mem", 8) == 0
                  ? "its augmented pass writes shadow memory"
                  : "its augmented pass hands a shadow to a call that may use "
                    "it");
    }
  return 0;
}

/* 1 with *f set when the augmented pass of p depends on the shadows at
 * aug's parameters `shadow_params`; 0 (*allocates: its first shadow
 * allocation, or NULL); -1 out of memory. */
static int scan_aug(ad_module_ctx *mc, const ad_rev_pair *p,
                    const unsigned *shadow_params, unsigned nshadows,
                    lane_finding *f, LLVMValueRef *allocates) {
  aug_scan s;
  s.mc = mc;
  s.allocates = NULL;
  ad_map_init(&s.shadowed);
  ad_map_init(&s.returns);
  fn_list_init(&s.work);
  int rc = fn_list_push(&s.work, p->aug, 0);
  for (unsigned d = 0; rc == 0 && d < nshadows; d++)
    if (ad_map_put(&s.shadowed, LLVMGetParam(p->aug, shadow_params[d]),
                   (void *)1) != 0)
      rc = -1;
  /* every augmented pass reached, even one no shadow reaches (it may make
   * shadows of its own) */
  for (size_t i = 0; rc == 0 && i < s.work.n; i++)
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(s.work.v[i]);
         bb && rc == 0; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst && rc == 0;
           inst = LLVMGetNextInstruction(inst)) {
        if (!LLVMIsACallInst(inst) && !LLVMIsAInvokeInst(inst))
          continue;
        LLVMValueRef callee = LLVMGetCalledValue(inst);
        if (callee && LLVMIsAFunction(callee) && is_pair_fn(mc, callee) &&
            fn_list_push(&s.work, callee, 0) != 0)
          rc = -1;
      }
  size_t nall = s.work.n;
  LLVMValueRef *all =
      rc == 0 ? tj_malloc((nall ? nall : 1) * sizeof *all) : NULL;
  if (rc == 0 && !all)
    rc = -1;
  if (rc == 0)
    memcpy(all, s.work.v, nall * sizeof *all);
  /* the spreading, over every function again until nothing new is
   * marked (a parameter, a function's result) */
  for (int changed = 1; rc == 0 && changed;) {
    changed = 0;
    for (size_t i = 0; rc == 0 && i < nall; i++)
      rc = spread(&s, all[i], &changed);
  }
  for (size_t i = 0; rc == 0 && i < nall; i++)
    rc = aug_effects(&s, all[i], f);
  *allocates = s.allocates;
  free(all);
  fn_list_free(&s.work);
  ad_map_free(&s.shadowed);
  ad_map_free(&s.returns);
  return rc;
}

/* Whether free-like call `call` frees a scratch buffer its own function
 * took from the C library (the host staging of a CUDA transfer's or a
 * mixed copy's reverse, cuda.c and memory.c): each lane's reverse makes
 * and frees its own, so no lane finds it gone. */
static int frees_own_scratch(LLVMValueRef call) {
  if (LLVMGetNumArgOperands(call) != 1)
    return 0;
  LLVMValueRef p = LLVMGetOperand(call, 0);
  if (!LLVMIsACallInst(p) ||
      LLVMGetInstructionParent(p) == NULL ||
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(p)) !=
          LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)))
    return 0;
  const char *from = callee_name(p);
  return strcmp(from, "calloc") == 0 || strcmp(from, "malloc") == 0;
}

/* 1 with *f set when a reverse pass of p frees something the next lane
 * would find gone (a shadow block its aug allocated is kept when the lanes
 * have copies of them, `copies`) or uses a mutable global (a shadow the
 * lanes would share); 0; -1 out of memory. */
static int scan_rev(ad_module_ctx *mc, const ad_rev_pair *p, int copies,
                    lane_finding *f) {
  fn_list work;
  fn_list_init(&work);
  int rc = fn_list_push(&work, p->rev, 0);
  for (size_t w = 0; rc == 0 && w < work.n; w++)
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(work.v[w]);
         bb && rc == 0; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && rc == 0;
           i = LLVMGetNextInstruction(i)) {
        for (int k = 0; k < LLVMGetNumOperands(i) && rc == 0; k++) {
          LLVMValueRef op = ad_strip_casts(LLVMGetOperand(i, (unsigned)k),
                                           AD_STRIP_GEPS | AD_STRIP_INT_CASTS);
          if (LLVMIsAGlobalVariable(op) && !LLVMIsGlobalConstant(op))
            rc = found(f, i, "its reverse pass uses a mutable global's shadow");
        }
        if (rc || (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i)))
          continue;
        LLVMValueRef callee = LLVMGetCalledValue(i);
        const char *name = callee_name(i);
        if (callee && LLVMIsAFunction(callee) && is_pair_fn(mc, callee))
          rc = fn_list_push(&work, callee, 0);
        else if (copies && strcmp(name, "tanjit.rev.shadow.free") == 0)
          continue;
        else if ((strstr(name, "free") || strstr(name, "Free") ||
                  strncmp(name, "_Zdl", 4) == 0 ||
                  strncmp(name, "_Zda", 4) == 0) &&
                 !frees_own_scratch(i))
          rc = found(f, i,
                     "its reverse pass frees a shadow its augmented pass "
                     "allocated");
      }
  fn_list_free(&work);
  return rc;
}

/* " at file:line" of inst, or of the nearest instruction before it in
 * its block with a location (what aug adds next to a primal instruction
 * has none of its own), else after it, or "". */
static void line_of(LLVMValueRef inst, char *buf, size_t size) {
  buf[0] = 0;
  for (int forward = 0; forward < 2; forward++)
    for (LLVMValueRef i = inst; i;
         i = forward ? LLVMGetNextInstruction(i)
                     : LLVMGetPreviousInstruction(i)) {
      unsigned len = 0;
      const char *file = LLVMGetDebugLocFilename(i, &len);
      unsigned line = LLVMGetDebugLocLine(i);
      if (file && line) {
        snprintf(buf, size, " at %.*s:%u", (int)len, file, line);
        return;
      }
    }
}

/* ---- the lanes' copies of the shadow blocks one augmented pass made ---- */

static LLVMValueRef below(LLVMBuilderRef b, ad_module_ctx *mc, LLVMValueRef s,
                          long long offset) {
  LLVMValueRef k = LLVMConstInt(LLVMInt64TypeInContext(mc->llctx),
                                (unsigned long long)offset, 1);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), s, &k, 1, "");
}

/* Starts at b the walk of an owned list (memory.c's links) from the
 * block `first`: returns the block the walk's body (b is positioned
 * there) works on, a PHI that walk_next completes; *loop is the walk's
 * head, `done` where it ends. */
static LLVMValueRef walk_blocks(ad_module_ctx *mc, LLVMBuilderRef b,
                                LLVMValueRef fn, LLVMValueRef first,
                                LLVMBasicBlockRef done,
                                LLVMBasicBlockRef *loop) {
  LLVMContextRef c = mc->llctx;
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  *loop = LLVMAppendBasicBlockInContext(c, fn, "block");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c, fn, "body");
  LLVMBuildBr(b, *loop);
  LLVMPositionBuilderAtEnd(b, *loop);
  LLVMValueRef s = LLVMBuildPhi(b, LLVMPointerTypeInContext(c, 0), "s");
  LLVMAddIncoming(s, &first, &from, 1);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, s, ""), done, body);
  LLVMPositionBuilderAtEnd(b, body);
  return s;
}

/* Ends the walk's body at b: on to the block linked below s. */
static void walk_next(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef s,
                      LLVMBasicBlockRef loop) {
  LLVMValueRef next = LLVMBuildLoad2(b, LLVMPointerTypeInContext(mc->llctx, 0),
                                     below(b, mc, s, AD_REV_SHADOW_LINK_OFFSET),
                                     "next");
  LLVMBasicBlockRef here = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, loop);
  LLVMAddIncoming(s, &next, &here, 1);
}

/* tanjit.rev.lanes.keep(first): a copy of every shadow block on the owned
 * list from `first` (the blocks one augmented pass made: zeros and the
 * pointers it stored), kept below each block, which tanjit.rev.shadow.free
 * then leaves alive; traps when memory runs out. */
static LLVMValueRef lane_copies_keep_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.rev.lanes.keep",
      LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0), &fn);
  if (!b)
    return fn;
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMBasicBlockRef oom = LLVMAppendBasicBlockInContext(c, fn, "oom");
  LLVMBasicBlockRef loop;
  LLVMValueRef s = walk_blocks(mc, b, fn, LLVMGetParam(fn, 0), done, &loop);
  LLVMValueRef n =
      LLVMBuildLoad2(b, i64, below(b, mc, s, AD_REV_SHADOW_SIZE_OFFSET), "n");
  LLVMValueRef one = LLVMConstInt(i64, 1, 0);
  LLVMValueRef ca[2] = {one, LLVMBuildSelect(b,
                                             LLVMBuildICmp(b, LLVMIntEQ, n,
                                                           LLVMConstNull(i64),
                                                           ""),
                                             one, n, "")};
  LLVMValueRef copy = ad_rev_call_libc(mc, b, "calloc", ca, 2);
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "copy");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, copy, ""), oom, ok);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMBuildMemCpy(b, copy, 1, s, 1, n);
  LLVMBuildStore(b, copy, below(b, mc, s, AD_REV_SHADOW_LANE_COPY_OFFSET));
  walk_next(mc, b, s, loop);
  LLVMPositionBuilderAtEnd(b, oom);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

/* tanjit.rev.lanes.restore(first, last): every block kept from `first`
 * back as the augmented pass left it, for the next lane's reverse; before
 * the last lane the copies are freed too, so that lane's reverse frees
 * the blocks. */
static LLVMValueRef lane_copies_restore_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef params[2] = {ptr, LLVMInt1TypeInContext(c)};
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.rev.lanes.restore",
      LLVMFunctionType(LLVMVoidTypeInContext(c), params, 2, 0), &fn);
  if (!b)
    return fn;
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMBasicBlockRef loop;
  LLVMValueRef s = walk_blocks(mc, b, fn, LLVMGetParam(fn, 0), done, &loop);
  LLVMValueRef slot = below(b, mc, s, AD_REV_SHADOW_LANE_COPY_OFFSET);
  LLVMValueRef copy = LLVMBuildLoad2(b, ptr, slot, "copy");
  LLVMValueRef n =
      LLVMBuildLoad2(b, i64, below(b, mc, s, AD_REV_SHADOW_SIZE_OFFSET), "n");
  LLVMBuildMemCpy(b, s, 1, copy, 1, n);
  LLVMBasicBlockRef drop = LLVMAppendBasicBlockInContext(c, fn, "drop");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(c, fn, "next");
  LLVMBuildCondBr(b, LLVMGetParam(fn, 1), drop, next);
  LLVMPositionBuilderAtEnd(b, drop);
  ad_rev_call_libc(mc, b, "free", &copy, 1);
  LLVMBuildStore(b, LLVMConstNull(ptr), slot);
  LLVMBuildBr(b, next);
  LLVMPositionBuilderAtEnd(b, next);
  walk_next(mc, b, s, loop);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

static LLVMValueRef emit_call(LLVMBuilderRef b, LLVMValueRef fn,
                              LLVMValueRef *args, unsigned n) {
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

/* ---- path 3: a whole gradient per lane, the function's writes through
 * its arguments undone between lanes ---- */

/* The header path 3's pair takes: a gradient's, then the undo log, a
 * byte stack {ptr, size, cap} of entries {address, n, the n bytes the
 * store found there (padded to 8), the entry's size}. */
static LLVMTypeRef undo_header_type(ad_module_ctx *mc) {
  LLVMTypeRef members[2] = {ad_rev_header_type(mc), ad_rev_tape_type(mc)};
  return LLVMStructTypeInContext(mc->llctx, members, 2, 0);
}

/* tanjit.rev.lanes.save(header, p, n): the n bytes at p pushed on the
 * undo log after `header`, before a store overwrites them; traps when
 * memory runs out. */
static LLVMValueRef undo_save_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c);
  LLVMTypeRef params[3] = {ptr, ptr, i64};
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.rev.lanes.save",
      LLVMFunctionType(LLVMVoidTypeInContext(c), params, 3, 0), &fn);
  if (!b)
    return fn;
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  LLVMValueRef log =
      LLVMBuildStructGEP2(b, undo_header_type(mc), LLVMGetParam(fn, 0), 1, "");
  LLVMValueRef at = LLVMGetParam(fn, 1), n = LLVMGetParam(fn, 2);
  LLVMValueRef psize = LLVMBuildStructGEP2(b, tt, log, 1, "");
  LLVMValueRef pcap = LLVMBuildStructGEP2(b, tt, log, 2, "");
  LLVMValueRef size = LLVMBuildLoad2(b, i64, psize, "size");
  LLVMValueRef cap = LLVMBuildLoad2(b, i64, pcap, "cap");
  LLVMValueRef seven = LLVMConstInt(i64, 7, 0);
  LLVMValueRef padded = LLVMBuildAnd(b, LLVMBuildAdd(b, n, seven, ""),
                                     LLVMConstNot(seven), "padded");
  LLVMValueRef total =
      LLVMBuildAdd(b, padded, LLVMConstInt(i64, 24, 0), "total");
  LLVMValueRef need = LLVMBuildAdd(b, size, total, "need");
  LLVMBasicBlockRef grow = LLVMAppendBasicBlockInContext(c, fn, "grow");
  LLVMBasicBlockRef oom = LLVMAppendBasicBlockInContext(c, fn, "oom");
  LLVMBasicBlockRef grown = LLVMAppendBasicBlockInContext(c, fn, "grown");
  LLVMBasicBlockRef push = LLVMAppendBasicBlockInContext(c, fn, "push");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGT, need, cap, ""), grow, push);
  LLVMPositionBuilderAtEnd(b, grow);
  LLVMValueRef twice = LLVMBuildShl(b, cap, LLVMConstInt(i64, 1, 0), "");
  LLVMValueRef ncap = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntUGT, need, twice, ""), need, twice, "");
  ncap = LLVMBuildAdd(b, ncap, LLVMConstInt(i64, 4096, 0), "");
  LLVMValueRef ra[2] = {LLVMBuildLoad2(b, ptr, log, ""), ncap};
  LLVMValueRef buf = ad_rev_call_libc(mc, b, "realloc", ra, 2);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, buf, ""), oom, grown);
  LLVMPositionBuilderAtEnd(b, oom);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, grown);
  LLVMBuildStore(b, buf, log);
  LLVMBuildStore(b, ncap, pcap);
  LLVMBuildBr(b, push);
  LLVMPositionBuilderAtEnd(b, push);
  LLVMValueRef base = LLVMBuildLoad2(b, ptr, log, "");
  LLVMValueRef e = LLVMBuildGEP2(b, i8, base, &size, 1, "entry");
  LLVMSetAlignment(LLVMBuildStore(b, at, e), 1);
  LLVMSetAlignment(LLVMBuildStore(b, n, below(b, mc, e, 8)), 1);
  LLVMBuildMemCpy(b, below(b, mc, e, 16), 1, at, 1, n);
  LLVMValueRef end = LLVMBuildGEP2(b, i8, base, &need, 1, "");
  LLVMSetAlignment(LLVMBuildStore(b, total, below(b, mc, end, -8)), 1);
  LLVMBuildStore(b, need, psize);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

/* tanjit.rev.lanes.undo(header): every entry of the log after `header`
 * written back, the newest first (so each place ends as it was before the
 * first store to it), and the log emptied. */
static LLVMValueRef undo_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.rev.lanes.undo",
      LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0), &fn);
  if (!b)
    return fn;
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  LLVMValueRef log =
      LLVMBuildStructGEP2(b, undo_header_type(mc), LLVMGetParam(fn, 0), 1, "");
  LLVMValueRef psize = LLVMBuildStructGEP2(b, tt, log, 1, "");
  LLVMValueRef base = LLVMBuildLoad2(b, ptr, log, "base");
  LLVMValueRef size = LLVMBuildLoad2(b, i64, psize, "size");
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fn, "entry.next");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c, fn, "entry.undo");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef top = LLVMBuildPhi(b, i64, "top");
  LLVMBuildCondBr(b,
                  LLVMBuildICmp(b, LLVMIntEQ, top, LLVMConstNull(i64), ""),
                  done, body);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef end = LLVMBuildGEP2(b, i8, base, &top, 1, "");
  LLVMValueRef total = LLVMBuildLoad2(b, i64, below(b, mc, end, -8), "total");
  LLVMSetAlignment(total, 1);
  LLVMValueRef start = LLVMBuildSub(b, top, total, "start");
  LLVMValueRef e = LLVMBuildGEP2(b, i8, base, &start, 1, "entry");
  LLVMValueRef at = LLVMBuildLoad2(b, ptr, e, "at");
  LLVMSetAlignment(at, 1);
  LLVMValueRef n = LLVMBuildLoad2(b, i64, below(b, mc, e, 8), "n");
  LLVMSetAlignment(n, 1);
  LLVMBuildMemMove(b, at, 1, below(b, mc, e, 16), 1, n);
  LLVMBuildBr(b, loop);
  LLVMAddIncoming(top, &size, &entry, 1);
  LLVMAddIncoming(top, &start, &body, 1);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildStore(b, LLVMConstNull(i64), psize);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

/* Whether aug function fn already saves before its stores (a request
 * seen before asked for the same pair). */
static int saves_already(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) &&
          strcmp(callee_name(i), "tanjit.rev.lanes.save") == 0)
        return 1;
  return 0;
}

/* Path 3's aug: before each store and llvm.mem* write through a pointer
 * computed from a primal parameter (not a shadow at shadow_pos, not the
 * tape), the bytes it overwrites pushed on the undo log.  The primal scan
 * (SCAN_UNDONE) found every other write of the function's to be into
 * memory it allocated.  0, or -1 out of memory. */
static int save_before_writes(ad_module_ctx *mc, LLVMValueRef aug,
                              const unsigned *shadow_pos, unsigned ndup,
                              unsigned *saved) {
  *saved = 0;
  if (saves_already(aug))
    return 1;
  unsigned np = LLVMCountParams(aug);
  ad_map params;
  ad_map_init(&params);
  int rc = 0;
  for (unsigned i = 0; rc == 0 && i + 1 < np; i++) {
    int shadow = 0;
    for (unsigned d = 0; d < ndup; d++)
      shadow |= shadow_pos[d] == i;
    if (!shadow && ad_map_put(&params, LLVMGetParam(aug, i), (void *)1) != 0)
      rc = -1;
  }
  LLVMValueRef save = undo_save_fn(mc);
  LLVMValueRef header = LLVMGetParam(aug, np - 1);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(aug); rc == 0 && bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef bytes;
      LLVMValueRef to = written(mc, i, &bytes);
      if (!to || !from_params(to, &params, 0))
        continue;
      LLVMPositionBuilderBefore(b, i);
      LLVMValueRef a[3] = {header, to, LLVMBuildZExtOrBitCast(b, bytes, i64, "")};
      emit_call(b, save, a, 3);
      ++*saved;
    }
  LLVMDisposeBuilder(b);
  ad_map_free(&params);
  return rc;
}

/* The number of stores and llvm.mem* writes of fn through pointers
 * computed from its parameters (what its aug must save), or -1 out of
 * memory. */
static long writes_through_params(ad_module_ctx *mc, LLVMValueRef fn) {
  ad_map params;
  ad_map_init(&params);
  long count = 0;
  for (unsigned i = 0; count == 0 && i < LLVMCountParams(fn); i++)
    if (ad_map_put(&params, LLVMGetParam(fn, i), (void *)1) != 0)
      count = -1;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); count >= 0 && bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef bytes;
      LLVMValueRef to = written(mc, i, &bytes);
      count += to && from_params(to, &params, 0);
    }
  ad_map_free(&params);
  return count;
}

/* Path 3: lanes 0 .. N-2 run a gradient of the pair whose aug saves what
 * the function's stores through its arguments overwrite, and write it
 * back after their reverse, so the next lane's primal starts from the
 * memory the first did; the last lane runs p's gradient and leaves the
 * function's results.  0, or -1 with the error in mc. */
static int emit_undone_lanes(ad_module_ctx *mc, LLVMBuilderRef b,
                             LLVMValueRef holder, const ad_rev_sig *sig,
                             const ad_rev_pair *p, LLVMValueRef *args,
                             unsigned nargs, const unsigned *shadow_pos,
                             LLVMValueRef *lane_shadows, unsigned ndup,
                             unsigned width, LLVMValueRef seed,
                             LLVMValueRef *lane_res) {
  ad_rev_sig undone = *sig;
  undone.lanes_undo = 1;
  ad_rev_pair up;
  if (ad_rev_get(mc, &undone, NULL, &up) != 0 || ad_rev_build_all(mc) != 0)
    return -1;
  unsigned saved;
  int rc = save_before_writes(mc, up.aug, shadow_pos, ndup, &saved);
  long want = rc == 0 ? writes_through_params(mc, sig->fn) : 0;
  if (rc < 0 || want < 0)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  /* every write the primal makes through its arguments must be one the
   * aug saves first: a write aug computes its address for otherwise would
   * be left as lane 0 made it */
  if (rc == 0 && saved < (unsigned long)want)
    return ad_fail_code(
        mc, TANJIT_ERR_UNSUPPORTED, NULL,
        "reverse mode: enzyme_width %u of %s: its augmented pass writes "
        "through its arguments at %u places its lanes could save, and the "
        "function at %ld; the lanes would not be undone exactly",
        width, ad_value_name(sig->fn), saved, want);
  LLVMTypeRef ut = undo_header_type(mc);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMValueRef header = ad_entry_alloca(holder, ut, "undo.tape");
  LLVMBuildStore(b, LLVMConstNull(ut), header);
  LLVMValueRef aug = ad_rev_guarded_aug(mc, up.aug, 0);
  LLVMValueRef *a = aug ? tj_malloc((nargs + 2) * sizeof *a) : NULL;
  if (!a)
    return aug ? ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory")
               : -1;
  LLVMValueRef undo = undo_fn(mc);
  for (unsigned w = 0; w < width && !mc->diag.failed; w++) {
    for (unsigned d = 0; d < ndup; d++)
      args[shadow_pos[d]] = lane_shadows[d * width + w];
    if (w)
      ad_emit_shadow_reset(mc, b);
    if (w == width - 1) {
      lane_res[w] = ad_rev_emit_gradient(mc, b, holder, p, args, nargs, seed);
      break;
    }
    /* a fresh gradient header, the log kept (empty, its buffer reused) */
    LLVMBuildStore(b, LLVMConstNull(ad_rev_header_type(mc)), header);
    memcpy(a, args, nargs * sizeof *a);
    a[nargs] = header;
    emit_call(b, aug, a, nargs + 1);
    unsigned k = nargs;
    if (seed)
      a[k++] = seed;
    a[k++] = header;
    LLVMValueRef res = emit_call(b, up.rev, a, k);
    lane_res[w] =
        LLVMGetTypeKind(LLVMTypeOf(res)) == LLVMVoidTypeKind ? NULL : res;
    LLVMValueRef records = LLVMBuildLoad2(b, ptr, header, "");
    ad_rev_call_libc(mc, b, "free", &records, 1);
    emit_call(b, undo, &header, 1);
  }
  free(a);
  LLVMValueRef log = LLVMBuildLoad2(
      b, ptr, LLVMBuildStructGEP2(b, ut, header, 1, ""), "undo.log");
  ad_rev_call_libc(mc, b, "free", &log, 1);
  return mc->diag.failed ? -1 : 0;
}

/* 0 when one augmented pass of p serves every lane (*copies: the first
 * shadow block it allocates, which the lanes then need copies of, or
 * NULL), 1 when not (*share says why), -1 with the error in mc (a mutable
 * global, out of memory). */
static int can_share(ad_module_ctx *mc, LLVMValueRef fn, const ad_rev_pair *p,
                     const unsigned *shadow_pos, unsigned ndup, unsigned width,
                     lane_finding *share, LLVMValueRef *copies) {
  *copies = NULL;
  int rc = scan_primal(mc, fn, SCAN_GLOBALS, share);
  if (rc > 0) {
    char *text = ad_value_text(share->inst);
    ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, share->inst,
                 "reverse mode: enzyme_width %u of %s: %s (`%s`)", width,
                 ad_value_name(fn), share->what, text ? text : "?");
    free(text);
    return -1;
  }
  if (rc == 0)
    rc = scan_primal(mc, fn, SCAN_CUSTOM, share);
  if (rc == 0)
    rc = scan_aug(mc, p, shadow_pos, ndup, share, copies);
  if (rc == 0)
    rc = scan_rev(mc, p, *copies != NULL, share);
  if (rc < 0)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  return rc;
}

int ad_rev_lanes_share_or_fail(ad_module_ctx *mc, LLVMValueRef where,
                               LLVMValueRef fn, const ad_rev_pair *p,
                               const unsigned *shadow_pos, unsigned ndup,
                               unsigned width, int *keeps) {
  lane_finding share = {NULL, NULL};
  LLVMValueRef copies;
  int rc = can_share(mc, fn, p, shadow_pos, ndup, width, &share, &copies);
  *keeps = rc == 0 && copies != NULL;
  if (rc <= 0)
    return rc;
  char at[160];
  line_of(share.inst, at, sizeof at);
  return ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, where,
                      "reverse mode: enzyme_width %u of %s in split mode: "
                      "the lanes must share one augmented pass, and cannot "
                      "here (%s%s)",
                      width, ad_value_name(fn), share.what, at);
}

/* ---- split mode: the blocks' list kept on the caller's tape ---- */

/* The records' buffer of a tape header {ptr, size, cap}. */
typedef struct records {
  LLVMValueRef psize, size, pcap;
} records;

static records records_of(ad_module_ctx *mc, LLVMBuilderRef b,
                          LLVMValueRef header) {
  LLVMTypeRef tt = ad_rev_tape_type(mc);
  records r;
  r.psize = LLVMBuildStructGEP2(b, tt, header, 1, "");
  r.pcap = LLVMBuildStructGEP2(b, tt, header, 2, "");
  r.size = LLVMBuildLoad2(b, LLVMInt64TypeInContext(mc->llctx), r.psize,
                          "size");
  return r;
}

/* tanjit.rev.lanes.stash(header): the copies of the shadow blocks on
 * header's owned list (tanjit.rev.lanes.keep), and the list's first block
 * pushed on the records (8 bytes on top, the buffer grown as tape.c's
 * reserve grows it): split mode's caller keeps only {ptr, size, cap, tag}
 * of the header (enzyme_allocated), and the reverse, lane by lane, walks
 * the list to put every block back.  Traps when memory runs out. */
static LLVMValueRef lanes_stash_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, "tanjit.rev.lanes.stash",
      LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0), &fn);
  if (!b)
    return fn;
  LLVMValueRef header = LLVMGetParam(fn, 0);
  LLVMValueRef blocks = LLVMBuildLoad2(
      b, ptr, below(b, mc, header, AD_REV_TAPE_OWNED_OFFSET), "blocks");
  emit_call(b, lane_copies_keep_fn(mc), &blocks, 1);
  records r = records_of(mc, b, header);
  LLVMValueRef cap = LLVMBuildLoad2(b, i64, r.pcap, "cap");
  LLVMValueRef need = LLVMBuildAdd(b, r.size, LLVMConstInt(i64, 8, 0), "need");
  LLVMBasicBlockRef grow = LLVMAppendBasicBlockInContext(c, fn, "grow");
  LLVMBasicBlockRef oom = LLVMAppendBasicBlockInContext(c, fn, "oom");
  LLVMBasicBlockRef grown = LLVMAppendBasicBlockInContext(c, fn, "grown");
  LLVMBasicBlockRef push = LLVMAppendBasicBlockInContext(c, fn, "push");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGT, need, cap, ""), grow, push);
  LLVMPositionBuilderAtEnd(b, grow);
  LLVMValueRef ncap = LLVMBuildAdd(b, need, LLVMConstInt(i64, 4096, 0), "");
  LLVMValueRef ra[2] = {LLVMBuildLoad2(b, ptr, header, ""), ncap};
  LLVMValueRef buf = ad_rev_call_libc(mc, b, "realloc", ra, 2);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, buf, ""), oom, grown);
  LLVMPositionBuilderAtEnd(b, oom);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, grown);
  LLVMBuildStore(b, buf, header);
  LLVMBuildStore(b, ncap, r.pcap);
  LLVMBuildBr(b, push);
  LLVMPositionBuilderAtEnd(b, push);
  LLVMValueRef base = LLVMBuildLoad2(b, ptr, header, "");
  LLVMValueRef top =
      LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), base, &r.size, 1, "");
  LLVMSetAlignment(LLVMBuildStore(b, blocks, top), 1);
  LLVMBuildStore(b, need, r.psize);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

void ad_rev_lanes_keep_on_tape(ad_module_ctx *mc, LLVMBuilderRef b,
                               LLVMValueRef header) {
  LLVMValueRef fn = lanes_stash_fn(mc);
  emit_call(b, fn, &header, 1);
}

LLVMValueRef ad_rev_lanes_take_from_tape(ad_module_ctx *mc, LLVMBuilderRef b,
                                         LLVMValueRef header) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  records r = records_of(mc, b, header);
  LLVMValueRef size =
      LLVMBuildSub(b, r.size, LLVMConstInt(i64, 8, 0), "size");
  LLVMBuildStore(b, size, r.psize);
  LLVMValueRef base =
      LLVMBuildLoad2(b, LLVMPointerTypeInContext(mc->llctx, 0), header, "");
  LLVMValueRef top =
      LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), base, &size, 1, "");
  LLVMValueRef blocks = LLVMBuildLoad2(
      b, LLVMPointerTypeInContext(mc->llctx, 0), top, "aug.blocks");
  LLVMSetAlignment(blocks, 1);
  return blocks;
}

void ad_rev_lanes_restore(ad_module_ctx *mc, LLVMBuilderRef b,
                          LLVMValueRef blocks, int last) {
  LLVMValueRef ra[2] = {
      blocks, LLVMConstInt(LLVMInt1TypeInContext(mc->llctx), last != 0, 0)};
  emit_call(b, lane_copies_restore_fn(mc), ra, 2);
}

int ad_rev_emit_lanes(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef holder,
                      const ad_rev_sig *sig, const ad_rev_pair *p,
                      LLVMValueRef *args, unsigned nargs,
                      const unsigned *shadow_pos, LLVMValueRef *lane_shadows,
                      unsigned ndup, unsigned width, LLVMValueRef seed,
                      LLVMValueRef *lane_res) {
  LLVMValueRef fn = sig->fn;
  lane_finding share = {NULL, NULL}, again = {NULL, NULL};
  LLVMValueRef copies;
  int rc = can_share(mc, fn, p, shadow_pos, ndup, width, &share, &copies);
  if (rc < 0)
    return -1;
  if (rc == 0) {
    /* one augmented pass, the reverse once per lane over the same tape;
     * the gradient's header (with the owned list) and aug through its
     * guard, as a one-lane gradient: an exception out of aug frees the
     * tape's records */
    LLVMTypeRef tt = ad_rev_header_type(mc);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
    LLVMValueRef tape = ad_entry_alloca(holder, tt, "tape");
    LLVMBuildStore(b, LLVMConstNull(tt), tape);
    LLVMValueRef aug = ad_rev_guarded_aug(mc, p->aug, 0);
    if (!aug)
      return -1;
    LLVMValueRef *a = tj_malloc((nargs + 2) * sizeof *a);
    if (!a)
      return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    memcpy(a, args, nargs * sizeof *a);
    for (unsigned d = 0; d < ndup; d++)
      a[shadow_pos[d]] = lane_shadows[d * width];
    a[nargs] = tape;
    emit_call(b, aug, a, nargs + 1);
    LLVMValueRef psize = LLVMBuildStructGEP2(b, tt, tape, 1, "");
    LLVMValueRef size = LLVMBuildLoad2(b, i64, psize, "tape.size");
    LLVMValueRef blocks = NULL;
    if (copies) {
      blocks = LLVMBuildLoad2(
          b, LLVMPointerTypeInContext(mc->llctx, 0),
          LLVMBuildGEP2(b, LLVMInt8TypeInContext(mc->llctx), tape,
                        (LLVMValueRef[]){LLVMConstInt(
                            i64, AD_REV_TAPE_OWNED_OFFSET, 0)},
                        1, ""),
          "aug.blocks");
      LLVMValueRef keep = lane_copies_keep_fn(mc);
      emit_call(b, keep, &blocks, 1);
    }
    for (unsigned w = 0; w < width; w++) {
      if (w && copies)
        ad_rev_lanes_restore(mc, b, blocks, w == width - 1);
      for (unsigned d = 0; d < ndup; d++)
        a[shadow_pos[d]] = lane_shadows[d * width + w];
      unsigned k = nargs;
      if (seed)
        a[k++] = seed;
      a[k++] = tape;
      if (w)
        LLVMBuildStore(b, size, psize);
      LLVMValueRef res = emit_call(b, p->rev, a, k);
      lane_res[w] =
          LLVMGetTypeKind(LLVMTypeOf(res)) == LLVMVoidTypeKind ? NULL : res;
    }
    free(a);
    LLVMValueRef buf =
        LLVMBuildLoad2(b, LLVMPointerTypeInContext(mc->llctx, 0), tape, "");
    ad_rev_call_libc(mc, b, "free", &buf, 1);
    return mc->diag.failed ? -1 : 0;
  }
  rc = scan_primal(mc, fn, SCAN_PER_LANE, &again);
  if (rc == 0)
    goto per_lane;
  if (rc > 0)
    rc = scan_primal(mc, fn, SCAN_UNDONE, &again);
  if (rc < 0)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  if (rc == 0)
    return emit_undone_lanes(mc, b, holder, sig, p, args, nargs, shadow_pos,
                             lane_shadows, ndup, width, seed, lane_res);
  char *text = ad_value_text(again.inst);
  char at[160];
  line_of(share.inst, at, sizeof at);
  ad_fail_code(
      mc, TANJIT_ERR_UNSUPPORTED, again.inst,
      "reverse mode: enzyme_width %u of %s: the lanes cannot share one "
      "augmented pass (%s%s), and running %s once per lane is exact only "
      "when it writes its caller's memory only through its own arguments "
      "(undone between lanes) and what it calls writes only memory it "
      "allocated; here, in %s, %s (`%s`)",
      width, ad_value_name(fn), share.what, at, ad_value_name(fn),
      ad_value_name(
          LLVMGetBasicBlockParent(LLVMGetInstructionParent(again.inst))),
      again.what, text ? text : "?");
  free(text);
  return -1;
per_lane:
  /* one whole gradient per lane */
  for (unsigned w = 0; w < width && !mc->diag.failed; w++) {
    for (unsigned d = 0; d < ndup; d++)
      args[shadow_pos[d]] = lane_shadows[d * width + w];
    if (w)
      ad_emit_shadow_reset(mc, b);
    lane_res[w] = ad_rev_emit_gradient(mc, b, holder, p, args, nargs, seed);
  }
  return mc->diag.failed ? -1 : 0;
}
