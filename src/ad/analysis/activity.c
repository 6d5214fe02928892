/*
 * Activity analysis: which primal values may carry a derivative.  A small
 * fixpoint, monotone (values only become active):
 *  - forward: duplicated arguments are active; an instruction is active when
 *    an operand that flows into its value is active (a load when its pointer
 *    is); conversions to/from integers (fptosi, sitofp, ...) and comparisons
 *    never are.
 *  - demand: memory that receives an active value must have a shadow, so the
 *    pointer stored through is "demanded": demand walks back through GEPs,
 *    casts, PHIs and selects to the allocation (alloca, malloc-like call,
 *    a call through a pointer that may reach a defined function or a
 *    declared allocator) and makes it active; a pointer loaded from memory demands that memory.
 *    A pointer stored into active memory, or returned with its shadow, is
 *    demanded as well, so shadow memory never holds a primal pointer.
 *  - calls: a call with an active argument is active and demands its pointer
 *    arguments (the callee may write active data through them).  A call to
 *    a defined function returning a pointer is active only when that
 *    pointer can have a shadow: what it may come from, followed into the
 *    callee (returned_pointer_may_be_shadowed), is an active or demandable
 *    operand of the call, an allocation, a global or an unknown call.
 *  - calls to a defined function that uses an active global (itself or
 *    through its direct callees) are active even with no active argument:
 *    the callee's derivative reads or writes the globals' shadows.
 * A demanded mutable global becomes active module-wide (it gets shadow
 * globals); a demanded constant table of pointers makes the mutable globals
 * it points to active.  engine.c runs the transform until this set stops
 * growing before emitting for real, so every derivative sees the final
 * set.  Undemandable roots (constant pointer arguments, external
 * globals) stay inactive;
 * storing an active value through them is an error at emission.
 *
 * Integers are driven by type analysis (types.h): an integer is
 * active only when it may carry a pointer or float bits; one known to be an
 * integer never is, so index arithmetic, counts and flags get no shadow
 * code; an active integer whose shadow nothing reads loses its activity
 * (a returned one is read only when the caller asks for the result's
 * derivative).  An integer that would be active but whose bytes are used
 * both as a float and as an integer (a conflict) is an error naming it.
 *
 * TANJIT_AD_NO_ACTIVITY=1 (read once per process) switches the analysis
 * off, for measuring what it saves: every integer instruction and every
 * alloca is assumed to carry a derivative, as without activity analysis.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/analysis/globals.h"
#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "common/alloc.h"

typedef struct activity_state {
  ad_fn_ctx *fc;
  ad_types *types; /* NULL with the analysis off */
  LLVMValueRef conflict; /* the first active value of conflicting kind */
  int changed;
  int oom;
  /* demand's worklist, and what it has walked this round: each value is
   * walked at most once per round, so a round is linear in the function
   * (a web of pointer PHIs once made the walk exponential), and the rounds
   * repeat until nothing changes */
  LLVMValueRef *todo;
  size_t ntodo, captodo;
  ad_map demanded;
  /* integer arithmetic on an active float's bits (the fast inverse square
   * root's `0x5f3759df - (i >> 1)`), and what is computed from it: active,
   * so that whether its value reaches a float is known after pruning */
  ad_map bits_math;
} activity_state;

/* TANJIT_AD_NO_ACTIVITY: 1 when set to anything but "" or "0".  Read once
 * per process; pthread_once orders the write before every reader (sessions
 * transform on several threads: a plain cached int is a data race). */
static pthread_once_t activity_mode_once = PTHREAD_ONCE_INIT;
static int activity_mode;

static void read_activity_mode(void) {
  const char *v = getenv("TANJIT_AD_NO_ACTIVITY");
  activity_mode = v && *v && strcmp(v, "0") != 0;
}

int ad_activity_disabled(void) {
  pthread_once(&activity_mode_once, read_activity_mode);
  return activity_mode;
}

static int is_integer_valued(LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
    t = LLVMGetElementType(t);
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind;
}

/* Whether an integer may carry a derivative: a pointer, float bits,
 * unknown, or a conflict (kept, so that it is reported if read). */
static int integer_may_carry(activity_state *st, LLVMValueRef v) {
  return ad_types_kind(st->types, v, -1, NULL) != AD_T_INTEGER;
}

int ad_is_active(const ad_fn_ctx *fc, LLVMValueRef v) {
  if (!v)
    return 0;
  if (ad_map_get(&fc->active, v))
    return 1;
  if (!LLVMIsConstant(v) || !ad_type_is_pointerish(LLVMTypeOf(v)))
    return 0;
  LLVMValueRef root = ad_pointer_root(v);
  return LLVMIsAGlobalVariable(root) && ad_global_is_active(fc->mc, root);
}

static void mark(activity_state *st, LLVMValueRef v) {
  if (ad_is_active(st->fc, v))
    return;
  if (st->types && !LLVMIsAArgument(v) && is_integer_valued(LLVMTypeOf(v)) &&
      !integer_may_carry(st, v))
    return;
  if (ad_map_put(&st->fc->active, v, (void *)1) != 0)
    st->oom = 1;
  st->changed = 1;
}

LLVMValueRef ad_pointer_root(LLVMValueRef p) {
  return ad_strip_casts(p, AD_STRIP_GEPS | AD_STRIP_FREEZE |
                               AD_STRIP_INSTRUCTIONS);
}

static void demand(activity_state *st, LLVMValueRef p);

/* Whether v is a pointer, an aggregate holding one, or an integer that
 * carries one (a CUdeviceptr, a uintptr_t): its memory must have a shadow
 * when active data goes there.  Without type analysis every pointer-wide
 * integer might be. */
static int carries_pointer(activity_state *st, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (ad_type_holds_pointer(t))
    return 1;
  if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind)
    return 0;
  if (!st->types)
    return LLVMGetIntTypeWidth(t) == 64;
  return ad_types_kind(st->types, v, -1, NULL) == AD_T_POINTER;
}

/* Whether demand has nothing to do at p: an active pointer's roots are
 * active, but an aggregate is active with one active member, and the
 * pointers inserted into it may have none yet. */
static int demand_done(activity_state *st, LLVMValueRef p) {
  return ad_is_active(st->fc, p) && !LLVMIsAInsertValueInst(p);
}

static void push_demand(activity_state *st, LLVMValueRef p) {
  if (!p || demand_done(st, p) || ad_map_get(&st->demanded, p))
    return;
  if (st->ntodo == st->captodo) {
    size_t cap = st->captodo ? st->captodo * 2 : 64;
    LLVMValueRef *t = tj_realloc(st->todo, cap * sizeof *t);
    if (!t) {
      st->oom = 1;
      return;
    }
    st->todo = t;
    st->captodo = cap;
  }
  st->todo[st->ntodo++] = p;
}

static void demand_operands(activity_state *st, LLVMValueRef inst,
                            unsigned from, unsigned to) {
  for (unsigned k = from; k < to; k++)
    push_demand(st, LLVMGetOperand(inst, k));
}

static void demand_one(activity_state *st, LLVMValueRef p);

static void demand(activity_state *st, LLVMValueRef p) {
  push_demand(st, p);
  while (st->ntodo > 0 && !st->oom) {
    LLVMValueRef q = st->todo[--st->ntodo];
    if (demand_done(st, q) || ad_map_get(&st->demanded, q))
      continue;
    if (ad_map_put(&st->demanded, q, (void *)1) != 0) {
      st->oom = 1;
      break;
    }
    demand_one(st, q);
  }
  st->ntodo = 0;
}

/* A call whose derivative the engine builds from the callee's body. */
static int returns_from_a_body(const ad_call_rule *r, LLVMValueRef call) {
  LLVMValueRef callee = ad_called_function(call);
  return !r && callee && LLVMCountBasicBlocks(callee) > 0;
}

/* Which values a pointer returned by a callee may come from, followed
 * into the callee's body: its arguments (the caller's operands, across up
 * to RET_WALK_FRAMES nested calls), memory read through them, globals,
 * allocations.  A pointer that comes only from the caller's inactive
 * operands has no shadow: giving the call one would make the primal stand
 * in for it, and the reverse pass would accumulate adjoints into the
 * primal memory of a constant argument (an accessor `at(c, i)` over an
 * enzyme_const object at -O0, before inlining). */
enum { RET_WALK_FRAMES = 6, RET_WALK_BUDGET = 512 };

typedef struct ret_walk {
  activity_state *st;
  LLVMValueRef frames[RET_WALK_FRAMES]; /* frames[0]: the analyzed call */
  ad_map seen;
  int budget;
  int push; /* demand the caller's operands the pointer may come from */
} ret_walk;

static int walk_returns(ret_walk *w, LLVMValueRef fn, int depth);
static int walk_returned_memory(ret_walk *w, LLVMValueRef call, int depth);

static int walk_value(ret_walk *w, LLVMValueRef v, int depth);
static int walk_memory(ret_walk *w, LLVMValueRef addr, int depth);

/* A slot's stored value, walked in the slot's frame (ad_slot_stores_any). */
typedef struct slot_visit {
  ret_walk *w;
  int depth;
} slot_visit;

static int walk_stored(void *ctx, LLVMValueRef v) {
  slot_visit *sv = ctx;
  return --sv->w->budget < 0 || walk_value(sv->w, v, sv->depth);
}

/* The values stored into a local slot; one whose address goes anywhere
 * else (a call that fills it, a store of the address) may hold anything. */
static int walk_slot_stores(ret_walk *w, LLVMValueRef addr, int depth) {
  slot_visit sv = {w, depth};
  return ad_slot_stores_any(addr, walk_stored, &sv);
}

/* The operand the frame's call passes for `arg`, a parameter of the
 * function the frame is in (NULL: none, a variadic tail). */
static LLVMValueRef frame_operand(const ret_walk *w, LLVMValueRef arg,
                                  int depth) {
  LLVMValueRef fn = LLVMGetParamParent(arg);
  unsigned k = 0;
  while (k < LLVMCountParams(fn) && LLVMGetParam(fn, k) != arg)
    k++;
  LLVMValueRef call = w->frames[depth - 1];
  return k < LLVMGetNumArgOperands(call) ? LLVMGetOperand(call, k) : NULL;
}

/* What the memory at `addr` may hold: what was stored there when it is a
 * local slot (of this frame or, through pointer arguments, an outer one);
 * else a pointer read through addr has a shadow when addr does (the
 * caller's operand, for memory the analyzed call was given). */
static int walk_memory(ret_walk *w, LLVMValueRef addr, int depth) {
  LLVMValueRef root = ad_pointer_root(addr);
  if (LLVMIsAArgument(root) && depth > 1) {
    LLVMValueRef op = frame_operand(w, root, depth);
    if (!op || --w->budget < 0)
      return 1;
    return walk_memory(w, op, depth - 1);
  }
  if (LLVMIsAAllocaInst(root))
    return walk_slot_stores(w, root, depth);
  if (LLVMIsACallInst(root) || LLVMIsAInvokeInst(root))
    return walk_returned_memory(w, root, depth);
  return walk_value(w, addr, depth);
}

/* The memory at the address a call returns, where that address is one
 * the callee was given (an iterator's operator-- returns `this`, a local
 * copy of the caller's): the slot it leads to, walked as memory (as a
 * value, a stack address is one no returned pointer may come from). */
static int walk_returned_memory(ret_walk *w, LLVMValueRef call, int depth) {
  const ad_call_rule *r = ad_rule_of_call(w->st->fc->mc, call);
  if (!returns_from_a_body(r, call) || depth >= RET_WALK_FRAMES)
    return walk_value(w, call, depth);
  w->frames[depth] = call;
  LLVMValueRef fn = ad_called_function(call);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (t && LLVMGetInstructionOpcode(t) == LLVMRet &&
        LLVMGetNumOperands(t) == 1 &&
        (--w->budget < 0 || walk_memory(w, LLVMGetOperand(t, 0), depth + 1)))
      return 1;
  }
  return 0;
}

static int walk_value(ret_walk *w, LLVMValueRef v, int depth) {
  if (!v || LLVMIsUndef(v) || LLVMIsAConstantPointerNull(v))
    return 0;
  /* seen in this frame: a cycle (PHIs) or done; the same function's
   * values reached through another call site are walked again */
  if (--w->budget < 0)
    return 1;
  if (ad_map_get(&w->seen, v) == (void *)w->frames[depth - 1])
    return 0;
  if (ad_map_put(&w->seen, v, (void *)w->frames[depth - 1]) != 0)
    return 1;
  if (LLVMIsAArgument(v)) {
    LLVMValueRef op = frame_operand(w, v, depth);
    if (!op)
      return 1; /* a variadic tail */
    if (depth > 1)
      return walk_value(w, op, depth - 1);
    if (w->push && carries_pointer(w->st, op))
      push_demand(w->st, op);
    return ad_is_active(w->st->fc, op);
  }
  if (LLVMIsConstant(v)) {
    LLVMValueRef root = ad_pointer_root(v);
    return LLVMIsAGlobalValue(root) != NULL;
  }
  if (!LLVMIsAInstruction(v))
    return 1;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMAlloca:
    return 0; /* a returned stack address is dead */
  case LLVMGetElementPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMFreeze:
  case LLVMIntToPtr:
  case LLVMPtrToInt:
  case LLVMLoad:
    return walk_memory(w, LLVMGetOperand(v, 0), depth);
  case LLVMExtractValue:
    return walk_value(w, LLVMGetOperand(v, 0), depth);
  case LLVMInsertValue:
    return walk_value(w, LLVMGetOperand(v, 0), depth) ||
           walk_value(w, LLVMGetOperand(v, 1), depth);
  case LLVMPHI:
    for (unsigned k = 0; k < LLVMCountIncoming(v); k++)
      if (walk_value(w, LLVMGetIncomingValue(v, k), depth))
        return 1;
    return 0;
  case LLVMSelect:
    return walk_value(w, LLVMGetOperand(v, 1), depth) ||
           walk_value(w, LLVMGetOperand(v, 2), depth);
  case LLVMCall:
  case LLVMInvoke: {
    const ad_call_rule *r = ad_rule_of_call(w->st->fc->mc, v);
    if (!returns_from_a_body(r, v) || depth >= RET_WALK_FRAMES)
      return 1; /* an allocation, a library's pointer: may have a shadow */
    w->frames[depth] = v;
    return walk_returns(w, ad_called_function(v), depth + 1);
  }
  default:
    return 1;
  }
}

static int walk_returns(ret_walk *w, LLVMValueRef fn, int depth) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (t && LLVMGetInstructionOpcode(t) == LLVMRet &&
        LLVMGetNumOperands(t) == 1 &&
        walk_value(w, LLVMGetOperand(t, 0), depth))
      return 1;
  }
  return 0;
}

/*
 * Whether an indirect call's result may come with a shadow: one of its
 * possible targets (the functions of this module of its type whose
 * address is taken, as fwd/indirect.c and rev/calls.c dispatch on them)
 * is defined, so its derivative returns the shadow, or is a declared
 * allocator (malloc through a pointer in a table: its direct-call
 * wrapper's rule allocates one).  Targets that give none (a declared
 * function without such a rule) leave the call cloned as before.
 */
static int target_may_give_shadow(activity_state *st, LLVMValueRef call) {
  ad_module_ctx *mc = st->fc->mc;
  if (LLVMIsAInlineAsm(LLVMGetCalledValue(call)))
    return 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mc->mod); f;
       f = LLVMGetNextFunction(f)) {
    if (ad_may_be_indirect_target(call, f) && !ad_is_generated_function(f))
      return 1;
    int oom = 0;
    const ad_call_rule *rule;
    ad_declared_target_with_rule(mc, call, f, &rule, &oom);
    if (oom) {
      st->oom = 1;
      return 0;
    }
    if (rule && rule->returns_allocation)
      return 1;
  }
  return 0;
}

/* Whether `call` (to a defined function) may return a pointer with a
 * shadow; with `push`, the operands it may come from are demanded (their
 * shadows come first: a later round then marks the call). */
static int returned_pointer_may_be_shadowed(activity_state *st,
                                            LLVMValueRef call, int push) {
  ret_walk w;
  w.st = st;
  w.frames[0] = call;
  w.budget = RET_WALK_BUDGET;
  w.push = push;
  ad_map_init(&w.seen);
  int r = walk_returns(&w, ad_called_function(call), 1);
  ad_map_free(&w.seen);
  return r;
}

/* One step of demand: marks p's root when it is one, else queues the
 * values p's shadow comes from. */
static void demand_one(activity_state *st, LLVMValueRef p) {
  ad_fn_ctx *fc = st->fc;
  if (LLVMIsConstant(p)) {
    LLVMValueRef root = ad_pointer_root(p);
    if (ad_global_can_shadow(root) && !LLVMIsGlobalConstant(root)) {
      /* a pointer its initializer holds (`double *p = &g`) is loaded
       * with p's shadow: what it points to needs a shadow too */
      if (ad_map_put(&fc->mc->globals->set, root, (void *)1) != 0 ||
          ad_demand_global_targets(fc->mc, root) < 0)
        st->oom = 1;
      st->changed = 1;
    } else if (ad_global_can_shadow(root)) {
      /* a constant table of pointers: what it points to needs shadows */
      int added = ad_demand_global_targets(fc->mc, root);
      if (added < 0)
        st->oom = 1;
      else if (added > 0)
        st->changed = 1;
    }
    return;
  }
  if (!LLVMIsAInstruction(p))
    return; /* arguments: a constant argument has no shadow to give */
  switch (LLVMGetInstructionOpcode(p)) {
  case LLVMAlloca:
    mark(st, p);
    break;
  case LLVMGetElementPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMFreeze:
  case LLVMIntToPtr:
  case LLVMPtrToInt:
    push_demand(st, LLVMGetOperand(p, 0));
    break;
  case LLVMPHI:
    demand_operands(st, p, 0, LLVMCountIncoming(p));
    break;
  case LLVMSelect:
    demand_operands(st, p, 1, 3);
    break;
  case LLVMExtractValue:
    push_demand(st, LLVMGetOperand(p, 0));
    break;
  case LLVMInsertValue:
    /* the aggregate's pointers: the one inserted and those it had */
    for (unsigned k = 0; k < 2; k++)
      if (carries_pointer(st, LLVMGetOperand(p, k)))
        push_demand(st, LLVMGetOperand(p, k));
    break;
  case LLVMLoad:
    push_demand(st, LLVMGetOperand(p, 0));
    break;
  case LLVMCall:
  case LLVMInvoke: {
    /* An allocation, or a defined function returning a pointer (or an
     * integer holding one): its derivative returns the shadow, when the
     * pointer it returns can have one (see returned_pointer_may_be_shadowed:
     * the arguments it was given come first). */
    const ad_call_rule *r = ad_rule_of_call(fc->mc, p);
    if (r && r->views_argument &&
        r->views_argument <= LLVMGetNumArgOperands(p))
      /* the address of the object argument: its shadow comes from the
       * object's, as a GEP's does */
      push_demand(st, LLVMGetOperand(p, r->views_argument - 1u));
    else if (r && r->returns_allocation)
      mark(st, p);
    else if ((returns_from_a_body(r, p) &&
              returned_pointer_may_be_shadowed(st, p, 1)) ||
             (!r && !ad_called_function(p) &&
              target_may_give_shadow(st, p))) {
      mark(st, p);
      /* the walk stops at the first source with a shadow: every pointer
       * given (an accessor's object, operator[]'s) may be one too */
      unsigned n = LLVMGetNumArgOperands(p);
      for (unsigned k = 0; k < n; k++)
        if (carries_pointer(st, LLVMGetOperand(p, k)))
          push_demand(st, LLVMGetOperand(p, k));
    }
    break;
  }
  default:
    if (ad_opcode_class(LLVMGetInstructionOpcode(p)) == AD_OP_INT_OFFSET)
      /* integer arithmetic on a pointer: the operand that carries it */
      for (unsigned k = 0; k < 2; k++)
        if (carries_pointer(st, LLVMGetOperand(p, k)))
          push_demand(st, LLVMGetOperand(p, k));
    break;
  }
}

static int any_operand_active(ad_fn_ctx *fc, LLVMValueRef inst, unsigned from,
                              unsigned to) {
  for (unsigned k = from; k < to; k++)
    if (ad_is_active(fc, LLVMGetOperand(inst, k)))
      return 1;
  return 0;
}


static void visit_call(activity_state *st, LLVMValueRef call) {
  ad_fn_ctx *fc = st->fc;
  unsigned nargs = LLVMGetNumArgOperands(call);
  const ad_call_rule *r = ad_rule_of_call(fc->mc, call);
  if (r && r->inactive)
    return;
  int any = any_operand_active(fc, call, 0, nargs);
  /* A function pointer whose shadow exists makes the call active too. */
  if (ad_is_active(fc, LLVMGetCalledValue(call)))
    any = 1;
  /* So does a callee that reads or writes active globals. */
  LLVMValueRef callee = ad_called_function(call);
  if (!any && !r && callee && LLVMCountBasicBlocks(callee) > 0 &&
      ad_function_touches_active_globals(fc->mc, callee))
    any = 1;
  if (!any)
    return;
  LLVMTypeRef rt = LLVMTypeOf(call);
  if (LLVMGetTypeKind(rt) != LLVMVoidTypeKind &&
      !(ad_type_is_pointerish(rt) && returns_from_a_body(r, call) &&
        !returned_pointer_may_be_shadowed(st, call, 0)))
    mark(st, call);
  /* memory a defined callee only reads needs no shadow: demanding one
   * would make a mutable global pointer the program set (outside any
   * derivative) active, with a null shadow (pointer_access.c) */
  if (!r || r->writes_pointer_args) {
    /* a handle the rule says carries no data (a CUDA stream) needs no
     * shadow: demanding one would make the mutable global it was loaded
     * from (CUDA.jl's task stream) active, its shadow null */
    unsigned long long handles = ad_rule_handle_args(r);
    for (unsigned k = 0; k < nargs; k++) {
      LLVMValueRef a = LLVMGetOperand(call, k);
      if (k < 64 && (handles >> k & 1))
        continue;
      if (carries_pointer(st, a) &&
          (r || ad_is_active(fc, a) ||
           ad_call_may_write_argument(fc->mc, call, k)))
        demand(st, a);
    }
  }
}

/* Memo values of touches_memo. */
#define TOUCHES_NO ((void *)1)
#define TOUCHES_YES ((void *)2)

/* Whether an instruction of `fn` names an active global (or a constant
 * expression over one) among its operands. */
static int uses_active_global(ad_module_ctx *mc, LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      int n = LLVMGetNumOperands(i);
      for (int k = 0; k < n; k++) {
        LLVMValueRef o = LLVMGetOperand(i, (unsigned)k);
        if (!o || !LLVMIsConstant(o) || !ad_type_is_pointerish(LLVMTypeOf(o)))
          continue;
        LLVMValueRef root = ad_pointer_root(o);
        if (LLVMIsAGlobalVariable(root) && ad_global_is_active(mc, root))
          return 1;
      }
    }
  return 0;
}

/* One direct call to a defined function without a rule (one whose
 * derivative the engine builds): `caller` calls `callee`. */
typedef struct call_edge {
  LLVMValueRef caller;
  size_t next; /* 1 + index of the next edge into the same callee, or 0 */
} call_edge;

/*
 * Answers, for every function of the module at once, whether it or a
 * function it reaches through such calls uses an active global: the
 * direct users, then their callers, backwards over the call graph with a
 * worklist.  Linear in the module, at any call depth (a walk per query
 * from each caller down its chain would be quadratic in a chain, and
 * recursion would bound its depth).  0, or -1 on out of memory.
 */
static int compute_touches(ad_module_ctx *mc) {
  ad_map into; /* callee -> 1 + index of its latest edge */
  ad_map_init(&into);
  call_edge *edges = NULL;
  LLVMValueRef *work = NULL;
  size_t nedges = 0, capedges = 0, nwork = 0, capwork = 0;
  int oom = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mc->mod); f && !oom;
       f = LLVMGetNextFunction(f)) {
    if (!LLVMCountBasicBlocks(f))
      continue;
    int direct = uses_active_global(mc, f);
    oom = ad_map_put(&mc->globals->touches_memo, f, direct ? TOUCHES_YES : TOUCHES_NO);
    if (direct && !oom) {
      if (nwork == capwork) {
        capwork = capwork ? 2 * capwork : 64;
        LLVMValueRef *g = tj_realloc(work, capwork * sizeof *g);
        if (!(oom = !g))
          work = g;
      }
      if (!oom)
        work[nwork++] = f;
    }
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && !oom;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !oom;
           i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
          continue;
        LLVMValueRef callee = ad_called_function(i);
        if (!callee || !LLVMIsAFunction(callee) ||
            LLVMCountBasicBlocks(callee) == 0 ||
            ad_rule_of_call(mc, i))
          continue;
        if (nedges == capedges) {
          capedges = capedges ? 2 * capedges : 64;
          call_edge *g = tj_realloc(edges, capedges * sizeof *g);
          if ((oom = !g))
            break;
          edges = g;
        }
        edges[nedges].caller = f;
        edges[nedges].next = (size_t)(uintptr_t)ad_map_get(&into, callee);
        oom = ad_map_put(&into, callee, (void *)(uintptr_t)(nedges + 1));
        nedges++;
      }
  }
  /* every function on the stack is YES; its callers become YES */
  while (nwork && !oom) {
    LLVMValueRef callee = work[--nwork];
    for (size_t e = (size_t)(uintptr_t)ad_map_get(&into, callee); e && !oom;
         e = edges[e - 1].next) {
      LLVMValueRef caller = edges[e - 1].caller;
      if (ad_map_get(&mc->globals->touches_memo, caller) == TOUCHES_YES)
        continue;
      oom = ad_map_put(&mc->globals->touches_memo, caller, TOUCHES_YES);
      if (nwork == capwork && !oom) {
        capwork = capwork ? 2 * capwork : 64;
        LLVMValueRef *g = tj_realloc(work, capwork * sizeof *g);
        if (!(oom = !g))
          work = g;
      }
      if (!oom)
        work[nwork++] = caller;
    }
  }
  ad_map_free(&into);
  free(edges);
  free(work);
  return oom ? -1 : 0;
}

int ad_function_touches_active_globals(ad_module_ctx *mc, LLVMValueRef fn) {
  if (mc->globals->set.count == 0)
    return 0;
  ad_refresh_globals_memo(mc, &mc->globals->touches_memo, &mc->globals->touches_generation);
  /* a function added since the answers were computed: compute again */
  if (mc->globals->touches_memo.count && !ad_map_get(&mc->globals->touches_memo, fn) &&
      LLVMCountBasicBlocks(fn)) {
    ad_map_free(&mc->globals->touches_memo);
    ad_map_init(&mc->globals->touches_memo);
  }
  if (mc->globals->touches_memo.count == 0 && compute_touches(mc) != 0) {
    /* out of memory: the safe answer, and no partial memo kept */
    ad_map_free(&mc->globals->touches_memo);
    ad_map_init(&mc->globals->touches_memo);
    return 1;
  }
  return ad_map_get(&mc->globals->touches_memo, fn) == TOUCHES_YES;
}

/* An integer loaded only to be stored elsewhere (a vectorized or unrolled
 * memcpy moving float bytes as i64): its shadow moves the bytes' shadow
 * whatever they hold, as a memcpy's would, so a float/integer conflict on
 * it does not matter. */
static int moves_bytes_only(LLVMValueRef v) {
  if (!LLVMIsALoadInst(v))
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 0) != v)
      return 0;
  }
  return 1;
}

/* Opcodes that compute new bits from their operands' (not and/or/xor:
 * with a float's bits those are sign masks, rewritten as fabs/fneg/
 * copysign before the analyses (prep/signbits.c), or type conflicts). */
static int computes_bits(LLVMOpcode op) {
  return op == LLVMAdd || op == LLVMSub ||
         ad_opcode_class(op) == AD_OP_INT_NUMBER;
}

/*
 * Whether `inst` does integer arithmetic on the bits of an active float:
 * an active operand that type analysis says holds float bits (or whose
 * bytes are used both ways), or that is itself such arithmetic.  Moving
 * whole bytes (complex<float>'s halves out of an i64) is not arithmetic.
 */
static int computes_on_float_bits(activity_state *st, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (!st->types || !computes_bits(op) || ad_types_moves_bytes(inst))
    return 0;
  for (unsigned k = 0; k < 2; k++) {
    LLVMValueRef a = LLVMGetOperand(inst, k);
    if (!ad_is_active(st->fc, a))
      continue;
    if (ad_map_get(&st->bits_math, a))
      return 1;
    if (!is_integer_valued(LLVMTypeOf(a)))
      continue;
    ad_tkind kind = ad_types_kind(st->types, a, -1, NULL);
    if (kind == AD_T_FLOAT || kind == AD_T_CONFLICT)
      return 1;
  }
  return 0;
}

/* Whether every store of load `v` writes into memory with a shadow. */
static int stores_into_shadowed_memory(ad_fn_ctx *fc, LLVMValueRef v) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
    if (!ad_is_active(fc, LLVMGetOperand(LLVMGetUser(u), 1)))
      return 0;
  return 1;
}

/*
 * A load that only moves bytes from shadowed memory to shadowed memory (a
 * hand-written copy loop of unsigned char or uint32_t, vectorized or not)
 * moves their shadow too, as memcpy's rule does, whatever type analysis
 * says the bytes are: a narrow integer may be a float's bytes, and where
 * it is integer data the shadow bytes mirror the primal ones anyway.
 */
static void mark_whatever_type(activity_state *st, LLVMValueRef v) {
  if (ad_is_active(st->fc, v))
    return;
  if (ad_map_put(&st->fc->active, v, (void *)1) != 0)
    st->oom = 1;
  st->changed = 1;
}

static void visit(activity_state *st, LLVMValueRef inst) {
  ad_fn_ctx *fc = st->fc;
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  unsigned nops = (unsigned)LLVMGetNumOperands(inst);
  if (ad_opclass_has_no_tangent(ad_opcode_class(op)))
    return;
  switch (op) {
  case LLVMRet:
  case LLVMAlloca:
  case LLVMAtomicCmpXchg:
    break;
  case LLVMStore: {
    LLVMValueRef v = LLVMGetOperand(inst, 0), p = LLVMGetOperand(inst, 1);
    if (ad_is_active(fc, v))
      demand(st, p);
    if (ad_is_active(fc, p) && carries_pointer(st, v))
      demand(st, v);
    break;
  }
  case LLVMAtomicRMW:
    if (ad_is_active(fc, LLVMGetOperand(inst, 1)))
      demand(st, LLVMGetOperand(inst, 0));
    if (ad_is_active(fc, LLVMGetOperand(inst, 0)))
      mark(st, inst);
    break;
  case LLVMCall:
  case LLVMInvoke: /* the call of an invoke; its edges carry nothing */
    visit_call(st, inst);
    break;
  case LLVMLoad:
    if (!ad_is_active(fc, LLVMGetOperand(inst, 0)))
      break;
    if (moves_bytes_only(inst) && stores_into_shadowed_memory(fc, inst))
      mark_whatever_type(st, inst);
    else
      mark(st, inst);
    break;
  case LLVMGetElementPtr:
  case LLVMExtractElement:
  case LLVMExtractValue:
    if (ad_is_active(fc, LLVMGetOperand(inst, 0)))
      mark(st, inst);
    break;
  case LLVMSelect:
    if (any_operand_active(fc, inst, 1, 3)) {
      mark(st, inst);
      if (carries_pointer(st, inst)) {
        demand_operands(st, inst, 1, 3);
        demand(st, NULL);
      }
    }
    break;
  case LLVMPHI:
    if (any_operand_active(fc, inst, 0, LLVMCountIncoming(inst))) {
      mark(st, inst);
      if (carries_pointer(st, inst)) {
        demand_operands(st, inst, 0, LLVMCountIncoming(inst));
        demand(st, NULL);
      }
    }
    break;
  case LLVMInsertElement:
  case LLVMShuffleVector:
  case LLVMInsertValue:
    if (any_operand_active(fc, inst, 0, 2))
      mark(st, inst);
    break;
  default:
    /* arithmetic, casts, freeze: active with any active operand */
    if (!any_operand_active(fc, inst, 0, nops))
      break;
    if (computes_on_float_bits(st, inst)) {
      /* active whatever its type, so that a float made from it is active
       * and the arithmetic is refused (bits_math_error), not dropped */
      if (!ad_map_get(&st->bits_math, inst) &&
          ad_map_put(&st->bits_math, inst, (void *)1) != 0)
        st->oom = 1;
      mark_whatever_type(st, inst);
    } else {
      mark(st, inst);
    }
    break;
  }
}

/* Without activity analysis: integers and stack memory are assumed to
 * carry derivatives (the fixpoint adds what flows from them). */
static void seed_everything(activity_state *st, LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMGetInstructionOpcode(i) == LLVMAlloca ||
          (LLVMGetInstructionOpcode(i) != LLVMCall &&
           is_integer_valued(LLVMTypeOf(i))))
        mark(st, i);
}

/* Whether the derivative returns the result's derivative: its caller
 * decides (fwd/call.c, rev/calls.c), and a caller that only branches on
 * an integer result (cephes' signbit, a 0/1 from a double's sign bit)
 * asks for none, so bit arithmetic computing it needs no shadow. */
static int returns_derivative(const ad_fn_ctx *fc) {
  return fc->sig->ret == AD_RET_TANGENT || fc->sig->ret == AD_RET_BOTH;
}

/* Whether the shadow of integer `v` is read by `user`: as a value stored
 * or passed on, or through a user whose own shadow is read. */
static int use_reads_shadow(ad_fn_ctx *fc, const ad_map *needed,
                            LLVMValueRef v, LLVMValueRef user) {
  if (!LLVMIsAInstruction(user))
    return 1;
  LLVMOpcode op = LLVMGetInstructionOpcode(user);
  ad_opclass cls = ad_opcode_class(op);
  if (ad_opclass_has_no_tangent(cls))
    return 0; /* the primal alone decides these */
  switch (op) {
  case LLVMRet:
    return returns_derivative(fc);
  case LLVMGetElementPtr:
    return LLVMGetOperand(user, 0) == v; /* indices are primal */
  case LLVMStore:
    return LLVMGetOperand(user, 0) == v;
  case LLVMSelect:
    if (LLVMGetOperand(user, 0) == v)
      return 0; /* the condition */
    break;
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMFreeze:
  case LLVMPHI:
    break;
  default:
    if (!ad_opclass_is_int_arith(cls))
      return 1; /* calls, returns, casts to pointers or floats, aggregates */
    break;
  }
  /* v flows into user's value: read when that value's shadow is */
  if (!ad_is_active(fc, user))
    return 0;
  return !is_integer_valued(LLVMTypeOf(user)) ||
         ad_map_get(needed, user) != NULL;
}

/* Active integers whose shadow nothing reads (a loop bound only compared,
 * a count only used to index) lose their activity: no shadow code. */
static int prune_unread_integers(activity_state *st, LLVMValueRef fn) {
  ad_fn_ctx *fc = st->fc;
  ad_map needed;
  ad_map_init(&needed);
  int changed = 1, rc = 0;
  while (changed && rc == 0) {
    changed = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && rc == 0;
           i = LLVMGetNextInstruction(i)) {
        if (!is_integer_valued(LLVMTypeOf(i)) || !ad_is_active(fc, i) ||
            ad_map_get(&needed, i))
          continue;
        for (LLVMUseRef u = LLVMGetFirstUse(i); u; u = LLVMGetNextUse(u))
          if (use_reads_shadow(fc, &needed, i, LLVMGetUser(u))) {
            rc = ad_map_put(&needed, i, (void *)1);
            changed = 1;
            break;
          }
      }
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && rc == 0;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && rc == 0;
         i = LLVMGetNextInstruction(i))
      if (is_integer_valued(LLVMTypeOf(i)) && ad_is_active(fc, i) &&
          !ad_map_get(&needed, i))
        rc = ad_map_put(&fc->active, i, NULL);
  ad_map_free(&needed);
  if (rc)
    st->oom = 1;
  /* A conflicting integer whose shadow is read: no derivative is defined. */
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !st->conflict;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !st->conflict;
         i = LLVMGetNextInstruction(i))
      if (is_integer_valued(LLVMTypeOf(i)) && ad_is_active(fc, i) &&
          ad_types_kind(st->types, i, -1, NULL) == AD_T_CONFLICT &&
          !moves_bytes_only(i))
        st->conflict = i;
  return rc;
}

/* The first integer arithmetic on an active float's bits whose result is
 * still active after pruning (its value reaches a float, a store or a
 * call), in block order; NULL when none is. */
static LLVMValueRef first_bits_math(activity_state *st, LLVMValueRef fn) {
  if (st->bits_math.count == 0)
    return NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (ad_map_get(&st->bits_math, i) && ad_is_active(st->fc, i))
        return i;
  return NULL;
}

/* Enzyme refuses it too ("cannot handle unknown binary operator"): the
 * bits computed are a float whose derivative through integer arithmetic
 * is undefined; holding the integer part constant would be a silently
 * wrong gradient.  An operand loaded from memory is a float's bits only
 * as far as type analysis can tell: the bytes may be a float's read as an
 * integer (a bit hack through memory), or an integer's that it cannot
 * tell from a float's (a std::list's header holds its size where its
 * nodes, linked to it by the same pointers, hold their values), and the
 * message says which load and both readings. */
static int bits_math_error(ad_fn_ctx *fc, LLVMValueRef inst) {
  char *text = ad_value_text(inst);
  LLVMValueRef load = NULL;
  for (unsigned k = 0; k < 2 && !load; k++) {
    LLVMValueRef a = LLVMGetOperand(inst, k);
    if (LLVMIsALoadInst(a) && ad_is_active(fc, a))
      load = a;
  }
  char *from = load ? ad_value_text(load) : NULL;
  int rc;
  if (from)
    rc = ad_fail_code(
        fc->mc, TANJIT_ERR_UNSUPPORTED, inst,
        "integer arithmetic on an active float's bits has no derivative, as "
        "type analysis sees it: `%s` computes with `%s`, an integer loaded "
        "from memory that type analysis finds floats in too (a float's "
        "bytes read as an integer, or two kinds of object it cannot tell "
        "apart because the same pointers link them, such as a std::list's "
        "header, whose size is there, and its nodes, whose values are), and "
        "the result is used as a float again (write it with float "
        "operations, or register a custom gradient for the function)",
        text ? text + strspn(text, " ") : "?", from + strspn(from, " "));
  else
    rc = ad_fail_code(
        fc->mc, TANJIT_ERR_UNSUPPORTED, inst,
        "integer arithmetic on the bits of an active float has no "
        "derivative: `%s` computes with a float reinterpreted as an integer, "
        "and the result is used as a float again (write it with float "
        "operations, or register a custom gradient for the function)",
        text ? text + strspn(text, " ") : "?");
  free(from);
  free(text);
  return rc;
}

static int conflict_error(ad_fn_ctx *fc, LLVMValueRef v) {
  char *text = ad_value_text(v);
  int rc = ad_fail(fc->mc, LLVMIsAInstruction(v) ? v : fc->primal_fn,
                   "cannot tell whether `%s` in %s holds a float or an "
                   "integer (its bytes are used as both), so its derivative "
                   "is undefined",
                   text ? text : ad_value_name(v),
                   ad_value_name(fc->primal_fn));
  free(text);
  return rc;
}

int ad_activity_analyze(ad_fn_ctx *fc) {
  activity_state st = {fc, NULL, NULL, 0, 0, NULL, 0, 0, {0}, {0}};
  ad_map_init(&st.demanded);
  ad_map_init(&st.bits_math);
  LLVMValueRef fn = fc->primal_fn;
  if (!ad_activity_disabled()) {
    /* a caller may have analyzed it with what it knows (rev/cache.c) */
    st.types = fc->types ? fc->types
                         : ad_types_analyze(fc->mc->engine, fc->mc->mod,
                                            fc->mc->td, fn);
    if (!st.types)
      return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  } else {
    seed_everything(&st, fn);
  }
  for (unsigned i = 0; i < fc->sig->nparams; i++)
    if (fc->sig->activity[i] != AD_ARG_CONST)
      mark(&st, LLVMGetParam(fn, i));
  int rounds = 0;
  do {
    st.changed = 0;
    ad_map_free(&st.demanded);
    ad_map_init(&st.demanded);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        visit(&st, i);
        if (LLVMGetInstructionOpcode(i) == LLVMRet &&
            LLVMGetNumOperands(i) == 1 &&
            returns_derivative(fc) &&
            carries_pointer(&st, LLVMGetOperand(i, 0)))
          demand(&st, LLVMGetOperand(i, 0));
      }
    rounds++;
  } while (st.changed && !st.oom && rounds < 10000);
  ad_map_free(&st.demanded);
  free(st.todo);
  if (st.types && !st.oom)
    prune_unread_integers(&st, fn);
  LLVMValueRef bits_math = st.oom ? NULL : first_bits_math(&st, fn);
  ad_map_free(&st.bits_math);
  /* kept for the copy rule's layouts (copy_layout.c), freed with the context */
  if (!fc->types)
    fc->types = st.types;
  else if (st.types != fc->types)
    ad_types_free(st.types);
  if (st.oom)
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  if (bits_math)
    return bits_math_error(fc, bits_math);
  if (st.conflict)
    return conflict_error(fc, st.conflict);
  return 0;
}
