/*
 * What the code a call or a function may run does with the memory a
 * pointer reaches: whether it may write it, or read it.  Two questions of
 * one walk.
 *
 * Writes: activity analysis asks before it demands a shadow for a call's
 * pointer operand (activity.c, visit_call).  Demanding one for memory the
 * callee only reads gives that memory a shadow it never had: a mutable
 * global pointer set by the program outside any derivative (`static double
 * *weights` filled in main, a tree's root) becomes an active global whose
 * shadow is null, and the derivative of the callee reads or adds into
 * memory through that null shadow (a crash).  Memory no differentiated
 * code writes cannot receive active data, so it needs no shadow.
 *
 * Reads: both modes ask it of an enzyme_const parameter of a request's
 * own function that receives active values (a scratch or output buffer the
 * caller declared constant, as Julia's `Const(buf)`): when nothing the
 * function runs reads that memory back, what is stored there carries no
 * derivative the gradient depends on, and the store is taken, as Enzyme
 * takes it, instead of refused (rev/aug.c, rev/memory.c; forward mode's
 * rules/inst.c, rules/copy.c, only for the derivative the request calls
 * itself: sig.direct).  Reads by
 * functions known inactive (printf) carry no derivative and do not count,
 * nor do a rule's reads of the argument it updates in place (a BLAS or
 * LAPACK call's output array: axpy's y, trtrs's right-hand side), which go
 * into that memory alone, also on a loop's next trip (rev/blas.c,
 * rules/blas.c take those calls' writes there as stores are taken).
 *
 * The walk follows, from the pointer, every value that points into the
 * memory it reaches: GEPs and casts of it, pointers loaded from it (a
 * tree's children, a struct's data pointer), the parameters of defined
 * callees it is passed to (a recursive walk of a tree reaches its own
 * parameter again: a visited set, so a cycle ends), and local slots it is
 * stored into (clang -O0 keeps every parameter in an alloca).  The access
 * asked about, and any way the pointer escapes where the walk cannot
 * follow (stored into memory, returned, passed to a function without a
 * body or to a rule that may access its pointer arguments), answers "may",
 * as does a walk past its budget.
 */
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "common/alloc.h"

/* Uses examined per question: past it, the answer is "may". */
enum { ACCESS_WALK_BUDGET = 4096 };

/* What a value on the worklist is: a pointer into the memory, or the
 * address of a local slot that holds such a pointer. */
#define KIND_POINTER ((void *)1)
#define KIND_SLOT ((void *)2)

typedef struct access_walk {
  ad_module_ctx *mc;
  int reads; /* the question: reads of the memory (else writes) */
  ad_map seen; /* value -> KIND_* */
  LLVMValueRef *todo;
  size_t ntodo, captodo;
  int budget;
  int found; /* the access, or an escape, was found (or out of memory) */
} access_walk;

static void push(access_walk *w, LLVMValueRef v, void *kind) {
  if (w->found || ad_map_get(&w->seen, v))
    return;
  if (ad_map_put(&w->seen, v, kind) != 0) {
    w->found = 1;
    return;
  }
  if (w->ntodo == w->captodo) {
    size_t cap = w->captodo ? 2 * w->captodo : 32;
    LLVMValueRef *t = tj_realloc(w->todo, cap * sizeof *t);
    if (!t) {
      w->found = 1;
      return;
    }
    w->todo = t;
    w->captodo = cap;
  }
  w->todo[w->ntodo++] = v;
}

/* Whether a value of type t may hold a pointer (or be one in disguise):
 * a load of it from the memory reaches further memory. */
static int may_hold_pointer(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMPointerTypeKind:
    return 1;
  case LLVMIntegerTypeKind:
    return LLVMGetIntTypeWidth(t) >= 64; /* wide enough for an address */
  case LLVMVectorTypeKind:
    return may_hold_pointer(LLVMGetElementType(t));
  case LLVMArrayTypeKind:
    return may_hold_pointer(LLVMGetElementType(t));
  case LLVMStructTypeKind:
    for (unsigned i = 0; i < LLVMCountStructElementTypes(t); i++)
      if (may_hold_pointer(LLVMStructGetTypeAtIndex(t, i)))
        return 1;
    return 0;
  default:
    return 0;
  }
}

/* Calls with rules that only write through some of their pointer
 * arguments (the bits of `write_only`): the memory intrinsics' and their
 * libc names' destination, libm's out-parameters (rules/math.c's
 * out-pointer rows). */
static const struct {
  const char *name;
  unsigned write_only;
} write_only_arguments[] = {
    {"llvm.memset", 1u << 0}, {"memset", 1u << 0},   {"llvm.memcpy", 1u << 0},
    {"memcpy", 1u << 0},      {"llvm.memmove", 1u << 0},
    {"memmove", 1u << 0},     {"sincos", 3u << 1},   {"sincosf", 3u << 1},
    {"sincosl", 3u << 1},     {"__sincos", 3u << 1}, {"__sincosf", 3u << 1},
    {"modf", 1u << 1},        {"modff", 1u << 1},    {"modfl", 1u << 1},
    {"frexp", 1u << 1},       {"frexpf", 1u << 1},   {"frexpl", 1u << 1},
    {"remquo", 1u << 2},      {"remquof", 1u << 2},  {"remquol", 1u << 2},
};

/* Whether a call with a rule may read its argument j: every rule may,
 * but for the arguments write_only_arguments names and the one a rule
 * updates in place (BLAS's output: what it reads there goes back there
 * alone). */
static int rule_may_read_argument(const ad_call_rule *r, LLVMValueRef call,
                                  unsigned j) {
  if (r->updates_in_place == j + 1)
    return 0;
  LLVMValueRef callee = ad_called_function(call);
  if (!callee || j >= 8)
    return 1;
  size_t len;
  const char *name = LLVMGetValueName2(callee, &len);
  for (size_t i = 0;
       i < sizeof write_only_arguments / sizeof *write_only_arguments; i++)
    if (ad_name_matches(name, write_only_arguments[i].name))
      return !(write_only_arguments[i].write_only & (1u << j));
  return 1;
}

/* Operand j of `call` points into the memory: the call's targets' j-th
 * parameters join the walk, or the call may write it. */
static void follow_call_argument(access_walk *w, LLVMValueRef call,
                                 unsigned j) {
  if (j >= LLVMGetNumArgOperands(call)) {
    w->found = 1; /* the called value itself */
    return;
  }
  const ad_call_rule *r = ad_rule_of_call(w->mc, call);
  if (r) {
    if (r->inactive)
      return;
    if (w->reads ? rule_may_read_argument(r, call, j)
                 : r->writes_pointer_args) {
      w->found = 1;
      return;
    }
    /* a rule that only reads (strlen, a math function): its result may
     * still point into the argument (strchr) */
    if (may_hold_pointer(LLVMTypeOf(call)))
      push(w, call, KIND_POINTER);
    return;
  }
  LLVMValueRef callee = ad_called_function(call);
  int targets = 0;
  if (callee) {
    if (!LLVMCountBasicBlocks(callee) || ad_is_generated_function(callee) ||
        j >= LLVMCountParams(callee)) {
      w->found = 1;
      return;
    }
    push(w, LLVMGetParam(callee, j), KIND_POINTER);
    targets = 1;
  } else {
    if (LLVMIsAInlineAsm(LLVMGetCalledValue(call))) {
      w->found = 1;
      return;
    }
    /* an indirect call (a virtual one): every function it may reach */
    LLVMModuleRef m = LLVMGetGlobalParent(
        LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)));
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !w->found;
         f = LLVMGetNextFunction(f)) {
      if (ad_may_be_declared_indirect_target(call, f) ||
          (ad_may_be_indirect_target(call, f) &&
           (ad_is_generated_function(f) || j >= LLVMCountParams(f)))) {
        w->found = 1;
        return;
      }
      if (ad_may_be_indirect_target(call, f)) {
        push(w, LLVMGetParam(f, j), KIND_POINTER);
        targets++;
      }
    }
    if (!targets) {
      w->found = 1; /* a pointer none of them is: the call traps */
      return;
    }
  }
  /* what it returns may point into the memory (an accessor) */
  if (may_hold_pointer(LLVMTypeOf(call)))
    push(w, call, KIND_POINTER);
}

/* Debug and lifetime markers name a slot without touching it. */
static int is_marker_call(LLVMValueRef call) {
  LLVMValueRef callee = ad_called_function(call);
  if (!callee || !LLVMGetIntrinsicID(callee))
    return 0;
  size_t len;
  const char *name = LLVMGetValueName2(callee, &len);
  return ad_name_matches(name, "llvm.lifetime.start") ||
         ad_name_matches(name, "llvm.lifetime.end") ||
         ad_name_matches(name, "llvm.dbg.declare") ||
         ad_name_matches(name, "llvm.dbg.value") ||
         ad_name_matches(name, "llvm.dbg.assign");
}

/* A use of slot address `a` (an alloca holding a pointer into the memory,
 * or a GEP or cast of it). */
static void visit_slot_use(access_walk *w, LLVMValueRef a, LLVMValueRef user) {
  if (!LLVMIsAInstruction(user)) {
    w->found = 1;
    return;
  }
  switch (LLVMGetInstructionOpcode(user)) {
  case LLVMLoad:
    if (may_hold_pointer(LLVMTypeOf(user)))
      push(w, user, KIND_POINTER);
    return;
  case LLVMStore:
    if (LLVMGetOperand(user, 0) == a)
      w->found = 1; /* the slot's address escapes */
    return;
  case LLVMGetElementPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
    if (LLVMGetOperand(user, 0) == a)
      push(w, user, KIND_SLOT);
    return;
  case LLVMCall:
    if (is_marker_call(user))
      return;
    w->found = 1;
    return;
  default:
    w->found = 1;
    return;
  }
}

/* A use of `v`, a pointer into the memory. */
static void visit_pointer_use(access_walk *w, LLVMValueRef user,
                              unsigned operand) {
  if (!LLVMIsAInstruction(user)) {
    w->found = 1;
    return;
  }
  LLVMOpcode op = LLVMGetInstructionOpcode(user);
  switch (op) {
  case LLVMGetElementPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
  case LLVMFreeze:
  case LLVMPHI:
  case LLVMExtractValue:
  case LLVMInsertValue:
  case LLVMExtractElement:
  case LLVMInsertElement:
  case LLVMShuffleVector:
  case LLVMAdd:
  case LLVMSub:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
    push(w, user, KIND_POINTER);
    return;
  case LLVMSelect:
    if (operand != 0)
      push(w, user, KIND_POINTER);
    return;
  case LLVMICmp:
    return;
  case LLVMLoad:
    if (w->reads)
      w->found = 1;
    else if (may_hold_pointer(LLVMTypeOf(user)))
      push(w, user, KIND_POINTER);
    return;
  case LLVMStore: {
    if (operand == 1) {
      if (!w->reads)
        w->found = 1; /* a store into the memory */
      return;
    }
    /* the pointer itself stored: followed only into a local slot */
    LLVMValueRef root = ad_pointer_root(LLVMGetOperand(user, 1));
    if (LLVMIsAAllocaInst(root))
      push(w, root, KIND_SLOT);
    else
      w->found = 1;
    return;
  }
  case LLVMCall:
  case LLVMInvoke:
    if (is_marker_call(user))
      return;
    follow_call_argument(w, user, operand);
    return;
  default:
    /* atomics, returns, anything else: may write, or escapes */
    w->found = 1;
    return;
  }
}

/* Runs the walk from what is pushed; `skip` (may be NULL) is not
 * followed.  Frees the walk's storage and returns its answer. */
static int finish_walk(access_walk *w, LLVMValueRef skip) {
  for (size_t i = 0; i < w->ntodo && !w->found; i++) {
    LLVMValueRef v = w->todo[i];
    if (v == skip)
      continue;
    void *kind = ad_map_get(&w->seen, v);
    for (LLVMUseRef u = LLVMGetFirstUse(v); u && !w->found;
         u = LLVMGetNextUse(u)) {
      if (--w->budget < 0) {
        w->found = 1;
        break;
      }
      LLVMValueRef user = LLVMGetUser(u);
      if (kind == KIND_SLOT) {
        visit_slot_use(w, v, user);
        continue;
      }
      unsigned operand = 0, n = (unsigned)LLVMGetNumOperands(user);
      while (operand < n && LLVMGetOperandUse(user, operand) != u)
        operand++;
      visit_pointer_use(w, user, operand);
    }
  }
  ad_map_free(&w->seen);
  free(w->todo);
  return w->found;
}

int ad_call_may_write_argument(ad_module_ctx *mc, LLVMValueRef call,
                               unsigned k) {
  access_walk w = {mc, 0, {0}, NULL, 0, 0, ACCESS_WALK_BUDGET, 0};
  ad_map_init(&w.seen);
  follow_call_argument(&w, call, k);
  /* the call's own result is the caller's business (activity.c follows
   * returned pointers): only the callee's parameters are walked here */
  return finish_walk(&w, call);
}

int ad_function_may_read_parameter(ad_module_ctx *mc, LLVMValueRef param) {
  access_walk w = {mc, 1, {0}, NULL, 0, 0, ACCESS_WALK_BUDGET, 0};
  ad_map_init(&w.seen);
  push(&w, param, KIND_POINTER);
  return finish_walk(&w, NULL);
}

/* ad_slot_stores_any's visitor: the one parameter a local slot holds. */
static int stores_other_than_one_parameter(void *ctx, LLVMValueRef v) {
  LLVMValueRef *param = ctx;
  v = ad_pointer_root(v);
  if (!LLVMIsAArgument(v) || (*param && *param != v))
    return 1;
  *param = v;
  return 0;
}

/* The parameter p points into (see ad_points_into_unread_constant), or
 * NULL. */
static LLVMValueRef parameter_behind(LLVMValueRef p) {
  LLVMValueRef root = ad_pointer_root(p);
  if (LLVMIsAArgument(root))
    return root;
  if (!LLVMIsALoadInst(root) || LLVMGetVolatile(root))
    return NULL;
  LLVMValueRef slot = ad_pointer_root(LLVMGetOperand(root, 0)), param = NULL;
  if (!LLVMIsAAllocaInst(slot) ||
      ad_slot_stores_any(slot, stores_other_than_one_parameter, &param))
    return NULL;
  return param;
}

int ad_points_into_unread_constant(ad_module_ctx *mc, LLVMValueRef fn,
                                   const unsigned char *activity,
                                   unsigned nparams, LLVMValueRef p) {
  LLVMValueRef param = parameter_behind(p);
  if (!param || LLVMGetParamParent(param) != fn)
    return 0;
  for (unsigned k = 0; k < nparams; k++)
    if (LLVMGetParam(fn, k) == param)
      return activity[k] == 0 && !ad_function_may_read_parameter(mc, param);
  return 0;
}
