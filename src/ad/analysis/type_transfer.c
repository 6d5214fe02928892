/*
 * Type analysis: for every value, and for every byte offset of the memory a
 * pointer points into, whether it holds a float (of which width), an
 * integer, a pointer, or is unknown (kinds and joins in types.h).
 *
 * Model.  Every pointer value (and every integer that carries one) has an
 * address: an abstract memory object and a byte offset in it.  Objects are
 * born at allocas, arguments, globals, allocation calls, loaded pointers and
 * integers turned into pointers; GEPs and integer arithmetic move the
 * offset.  A variable index of stride S makes the object periodic with
 * period S (an array of S-byte elements): offsets are then kept modulo S,
 * and strides that disagree take their gcd.  A period smaller than an
 * element collapses the object to one summary kind.  A byte offset's
 * stride comes from its arithmetic, a PHI's steps, an exact division of
 * it, or the objects two pointers it is the distance of lie in
 * (type_memory.c, ta_linear); one still unknown waits until the rest has
 * settled (`settled`, type_model.h).
 *
 * Facts come from LLVM types (loads, stores, globals' value types), from
 * TBAA metadata (type_tbaa.c: weaker than the IR's own facts), from
 * how integers are used (ptrtoint/inttoptr, GEP indices, multiplication,
 * shifts, int<->float conversions), from the argument types the rule tables
 * give known calls (allocation, the memcpy family, the CUDA driver and
 * runtime transfer and allocation APIs, BLAS's arrays) and flow both ways
 * through loads/stores, PHIs, selects, copies (memcpy, cuMemcpy*,
 * cudaMemcpy*: the two sides' layouts are exchanged) and calls to
 * functions with bodies (parameters and arguments, returns and results),
 * until nothing changes.
 *
 * Memory that holds pointers is followed as values are: a pointer-sized
 * slot (an object and an offset) that pointers are stored to and loaded
 * from is one value with all of them, as a PHI is with its incoming
 * values (-O0 spills `this`, references and iterators to allocas and
 * reloads them); a slot nothing is stored to gives its loads a new object.
 * An array member a GEP indexes at a variable position (`d[i]` in
 * `double &operator[](int i)`) is a region of its object whose elements
 * share one layout, wherever the element pointer goes (returned, passed,
 * spilled): what is learned of one element is learned of each.
 *
 * It is context-insensitive (one fact per callee, joined over call sites;
 * the analyzed function's callers, a few levels up, join as roots of their
 * own, so what its parameters point to is known as it is in them): that
 * only loses precision, and lost precision means "unknown", which the
 * engine treats conservatively.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "ad/analysis/type_model.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"

/* ---- calls ---- */

/*
 * What a call's arguments are comes from the rule tables (ad_typed_rule in
 * registry/registry.h: the memory and CUDA families), so a call the rules
 * handle is never one this analysis knows nothing about.  Below, in the same
 * letters, calls whose rules carry no argument types (libm's out-parameters,
 * whose rules are rules/math.c's) or that have no rule.
 */
static const struct {
  const char *name, *args;
} untabled_calls[] = {
    /* libm with out-parameters */
    {"frexp", "-I"},    {"frexpf", "-I"},   {"frexpl", "-I"},
    {"modf", "-F"},     {"modff", "-F"},    {"modfl", "-F"},
    {"sincos", "-FF"},  {"sincosf", "-FF"}, {"sincosl", "-FF"},
    {"lgamma_r", "-I"}, {"remquo", "--I"},  {"remquof", "--I"},
    {"remquol", "--I"},
};

typedef struct call_types {
  const char *args; /* NULL: nothing known */
  int allocates;    /* the result is a fresh object */
} call_types;

static call_types call_types_of(const char *name) {
  call_types ct = {NULL, 0};
  const ad_typed_rule *r = ad_typed_rule_of(name);
  if (r) {
    ct.args = r->arg_types;
    ct.allocates = r->rule.returns_allocation;
    return ct;
  }
  for (size_t i = 0; i < sizeof untabled_calls / sizeof *untabled_calls; i++)
    if (ad_name_matches(name, untabled_calls[i].name)) {
      ct.args = untabled_calls[i].args;
      break;
    }
  return ct;
}

/* The argument a letter of `args` marks, or -1 (also past nargs). */
static int arg_marked(const char *args, char letter, unsigned nargs) {
  const char *at = strchr(args, letter);
  return at && (unsigned)(at - args) < nargs ? (int)(at - args) : -1;
}

/* Adds fn, `depth` calls away from the root (functions are visited in the
 * order added, breadth first, so a function's first depth is its least). */
static void add_function(ad_types *t, LLVMValueRef fn, size_t depth) {
  uintptr_t known = (uintptr_t)ad_map_get(&t->fnset, fn);
  if (known) {
    /* reached nearer the root than first seen (from a caller that joined
     * the analysis, below): its callees are followed as far as from there */
    if (known > depth + 1) {
      if (ad_map_put(&t->fnset, fn, (void *)(uintptr_t)(depth + 1)) != 0)
        t->oom = 1;
      t->changed = 1;
    }
    return;
  }
  if (t->nfns == t->capfns) {
    size_t ncap = t->capfns ? 2 * t->capfns : 16;
    LLVMValueRef *g = tj_realloc(t->fns, ncap * sizeof *g);
    if (!g) {
      t->oom = 1;
      return;
    }
    t->fns = g;
    t->capfns = ncap;
  }
  if (ad_map_put(&t->fnset, fn, (void *)(uintptr_t)(depth + 1)) != 0) {
    t->oom = 1;
    return;
  }
  t->fns[t->nfns++] = fn;
  t->changed = 1;
}

/* The functions that call fn directly, `levels` levels up, join the
 * analysis as roots of their own (their callees followed `reach` calls
 * deep: AD_TYPES_CALLER_REACH, types.h).  A function analyzed alone knows
 * nothing of what its parameters point to, yet at -O0 a callee often does
 * the copy (a copy constructor's memcpy of `*other`, a struct passed by
 * pointer and copied): its callers say what the bytes are.  The result for fn is then
 * the one it has as a callee of them, joined over their call sites (the
 * analysis is context-insensitive either way). */
enum { CALLERS_PER_LEVEL = 4 };

/* tanjit's own code (derivatives, augmented passes, the tanjit.* helpers
 * they call: ad_add_generated_function marks each, ir.h).  As a caller it
 * is no context of the program's own, and one half built is no function
 * to read.  Inside it, pointer slots are not spills of the program's
 * pointers but a tape's header, whose buffer holds records of every kind
 * at offsets known only at run time; followed as one value, they would
 * merge those records' facts into conflicts. */
static int is_generated(LLVMValueRef fn) {
  return ad_is_generated_function(fn);
}

/* The depth a caller joins at: `reach` calls from the bound (on the call
 * paths alone, ad_types_analyze_on_call_paths, 0: at the bound, so none
 * of its other callees join). */
static size_t caller_depth(unsigned reach) {
  return reach < MAX_CALL_DEPTH ? MAX_CALL_DEPTH - reach : 0;
}

static void add_callers(ad_types *t, LLVMValueRef fn, unsigned level,
                        unsigned levels, unsigned reach, size_t *budget) {
  if (level >= levels)
    return;
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u && *budget; u = LLVMGetNextUse(u)) {
    LLVMValueRef call = LLVMGetUser(u);
    if (!(LLVMIsACallInst(call) || LLVMIsAInvokeInst(call)) ||
        LLVMGetCalledValue(call) != fn)
      continue;
    LLVMValueRef caller =
        LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
    if (ad_map_get(&t->fnset, caller) || is_generated(caller))
      continue;
    --*budget;
    /* its other callees only `reach` calls deep: they matter for what
     * they say of the arguments it passes fn */
    add_function(t, caller, caller_depth(reach));
    add_callers(t, caller, level + 1, levels, reach, budget);
  }
}

/* call_types_of the call's rule name, resolved once per call. */
static call_types types_of_call(ad_types *t, LLVMValueRef call) {
  const call_types *known = ad_map_get(&t->call_memo, call);
  if (known)
    return *known;
  char buf[256];
  const char *name = ad_call_rule_name(t->e, call, buf, sizeof buf);
  call_types ct = {NULL, 0};
  if (name)
    ct = call_types_of(name);
  call_types *keep = tj_malloc(sizeof *keep);
  if (keep) { /* without memory, only the memo is lost */
    *keep = ct;
    if (ad_map_put(&t->call_memo, call, keep) != 0)
      free(keep);
  }
  return ct;
}

/* Whether load `inst` of (obj, off) reads a pointer: one of pointer type,
 * or a pointer-sized integer from bytes known to hold a pointer (a
 * CUdeviceptr that cuMemAlloc wrote into its out-parameter, reloaded for
 * each transfer: one device object, so the transfers' layouts meet). */
static int loads_pointer(const ad_types *t, LLVMValueRef inst, int obj,
                         long long off) {
  LLVMTypeRef ty = LLVMTypeOf(inst);
  if (LLVMGetTypeKind(ty) == LLVMPointerTypeKind)
    return 1;
  unsigned long long size = LLVMPointerSize(t->td);
  return ta_is_int_type(ty) && LLVMSizeOfTypeInBits(t->td, ty) == 8 * size &&
         ta_mem_get(t, obj, off, size, 1).kind == AD_T_POINTER;
}

static void visit_call(ad_types *t, LLVMValueRef call) {
  unsigned nargs = LLVMGetNumArgOperands(call);
  LLVMValueRef fn = ad_called_function(call);
  call_types ct = types_of_call(t, call);
  const char *sig = ct.args;
  size_t nsig = sig ? strlen(sig) : 0;
  for (unsigned k = 0; k < nargs; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    char letter = k < nsig ? sig[k] : 0;
    int obj;
    long long off;
    switch (letter) {
    case 'p':
    case 'd':
    case 's':
      ta_note(t, a, ta_fact(AD_T_POINTER, 0));
      break;
    case 'i':
    case 'n':
      ta_note(t, a, ta_fact(AD_T_INTEGER, 0));
      break;
    case 'P':
    case 'I':
    case 'Z':
    case 'F':
      if (!ta_addr(t, a, &obj, &off, 0))
        obj = ta_root(t, a), off = 0;
      if (letter == 'P')
        ta_mem_note(t, obj, off, LLVMPointerSize(t->td),
                    ta_fact(AD_T_POINTER, 0));
      else if (letter == 'I')
        ta_mem_note(t, obj, off, 4, ta_fact(AD_T_INTEGER, 0));
      else if (letter == 'Z')
        ta_mem_note(t, obj, off, LLVMPointerSize(t->td),
                    ta_fact(AD_T_INTEGER, 0));
      else if (ad_type_is_float(LLVMTypeOf(call))) {
        int budget = 4;
        ta_record_type(t, obj, off, LLVMTypeOf(call), ta_fact(AD_T_UNKNOWN, 0),
                       0, &budget);
      }
      break;
    case 'D':
    case 'S': {
      /* an array of floats from the pointer on (BLAS): periodic in its
       * element, as a loop over it would make it */
      unsigned bits = letter == 'D' ? 64 : 32;
      ta_note(t, a, ta_fact(AD_T_POINTER, 0));
      if (!ta_addr(t, a, &obj, &off, 0))
        obj = ta_root(t, a), off = 0;
      ta_set_period(t, obj, bits / 8);
      ta_mem_note(t, obj, off, bits / 8, ta_fact(AD_T_FLOAT, bits));
      break;
    }
    default:
      /* an external without a signature: integers narrower than a pointer
       * are integers (a wider one may be a handle) */
      if (!sig && fn && LLVMCountBasicBlocks(fn) == 0 &&
          ta_is_int_type(LLVMTypeOf(a)) &&
          LLVMSizeOfTypeInBits(t->td, LLVMTypeOf(a)) <
              8 * LLVMPointerSize(t->td))
        ta_note(t, a, ta_fact(AD_T_INTEGER, 0));
      break;
    }
  }
  int kd = sig ? arg_marked(sig, 'd', nargs) : -1;
  int ks = sig ? arg_marked(sig, 's', nargs) : -1;
  int kn = sig ? arg_marked(sig, 'n', nargs) : -1;
  if (kd >= 0 && ks >= 0 && kn >= 0) {
    LLVMValueRef d = LLVMGetOperand(call, (unsigned)kd);
    LLVMValueRef s = LLVMGetOperand(call, (unsigned)ks);
    LLVMValueRef n = LLVMGetOperand(call, (unsigned)kn);
    int od, os;
    long long fd, fs;
    if (!ta_addr(t, d, &od, &fd, 0))
      od = ta_root(t, d), fd = 0;
    if (!ta_addr(t, s, &os, &fs, 0))
      os = ta_root(t, s), fs = 0;
    long long len = LLVMIsAConstantInt(n) ? LLVMConstIntGetSExtValue(n) : -1;
    ta_exchange(t, os, fs, od, fd, len);
  }
  size_t depth = (size_t)(uintptr_t)ad_map_get(
      &t->fnset, LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)));
  if (ct.allocates) {
    ta_root(t, call);
  } else if (fn && LLVMCountBasicBlocks(fn) > 0 &&
             LLVMCountParams(fn) == nargs &&
             !ad_reads_variadic_arguments(fn) &&
             (ad_map_get(&t->fnset, fn) || depth < MAX_CALL_DEPTH)) {
    add_function(t, fn, depth);
    for (unsigned k = 0; k < nargs; k++)
      ta_unify(t, LLVMGetParam(fn, k), LLVMGetOperand(call, k));
    if (LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind)
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
           bb = LLVMGetNextBasicBlock(bb)) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
        if (term && LLVMGetInstructionOpcode(term) == LLVMRet &&
            LLVMGetNumOperands(term) == 1)
          ta_unify(t, call, LLVMGetOperand(term, 0));
      }
  } else if (ad_type_is_pointerish(LLVMTypeOf(call))) {
    ta_root(t, call);
  }
}

/* ---- instructions ---- */

/* Integer arithmetic that may move a pointer: p + k, p - k, p & mask. */
static void visit_int_arith(ad_types *t, LLVMValueRef inst, LLVMOpcode op) {
  LLVMValueRef a = LLVMGetOperand(inst, 0), b = LLVMGetOperand(inst, 1);
  /* TBAA's promises (weak facts) drive nothing here: a uint64_t tagged
   * "long" may hold a device handle the IR shows is a pointer, and that
   * the IR shows it must win (below: the other operand is the pointer) */
  tfact fa = ta_strong(ta_value_fact(t, a)), fb = ta_strong(ta_value_fact(t, b));
  int pa = fa.kind == AD_T_POINTER, pb = fb.kind == AD_T_POINTER;
  if (fa.kind == AD_T_FLOAT || fb.kind == AD_T_FLOAT ||
      fa.kind == AD_T_CONFLICT || fb.kind == AD_T_CONFLICT) {
    /* integer operations on float bits */
    ta_note(t, inst, ta_fact(AD_T_CONFLICT, 0));
    return;
  }
  if (pa && pb) {
    ta_note(t, inst, ta_fact(AD_T_INTEGER, 0)); /* a difference of pointers */
    return;
  }
  if (pa || (pb && op != LLVMSub)) {
    ta_note(t, inst, ta_fact(AD_T_POINTER, 0));
    LLVMValueRef p = pa ? a : b, k = pa ? b : a;
    int obj;
    long long off;
    if (!ta_addr(t, p, &obj, &off, 0))
      obj = ta_root(t, p), off = 0;
    if (op == LLVMAdd || op == LLVMSub ||
        (op == LLVMOr && LLVMGetIsDisjoint(inst))) {
      unsigned long long s;
      long long c;
      if (!ta_linear(t, k, &s, &c, 0) && !t->settled) {
        t->deferred = 1; /* a byte offset of no known stride yet */
        return;
      }
      ta_set_period(t, obj, s);
      ta_set_addr(t, inst, obj, op == LLVMSub ? off - c : off + c);
    } else {
      ta_set_addr(t, inst, obj, off); /* masking keeps the allocation */
    }
    return;
  }
  tfact r = ta_value_fact(t, inst);
  if (r.kind == AD_T_POINTER) {
    /* a pointer plus an integer: the other operand is the pointer */
    if (fa.kind == AD_T_UNKNOWN && !LLVMIsConstant(a) &&
        (fb.kind == AD_T_INTEGER || LLVMIsConstant(b)))
      ta_note(t, a, r);
    else if (op != LLVMSub && fb.kind == AD_T_UNKNOWN && !LLVMIsConstant(b) &&
             (fa.kind == AD_T_INTEGER || LLVMIsConstant(a)))
      ta_note(t, b, r);
  }
  if ((fa.kind == AD_T_INTEGER || LLVMIsConstant(a)) &&
      (fb.kind == AD_T_INTEGER || LLVMIsConstant(b)))
    ta_note(t, inst, ta_fact(AD_T_INTEGER, 0));
  /* An integer sum came from integers: a pointer operand would make it a
   * pointer, float bits a conflict.  A difference may be of two pointers,
   * unless its operands are narrower than one (clang -O0 computes
   * `s->end - s->start` of int fields so, then divides it). */
  if (r.kind == AD_T_INTEGER &&
      (op == LLVMAdd || (op == LLVMOr && LLVMGetIsDisjoint(inst)) ||
       (op == LLVMSub && LLVMSizeOfTypeInBits(t->td, LLVMTypeOf(inst)) <
                             8 * LLVMPointerSize(t->td)))) {
    ta_note(t, a, r);
    ta_note(t, b, r);
  }
}

/* Whether a constant (scalar or splat vector) is a whole number of bytes. */
static int is_byte_multiple(LLVMValueRef v) {
  if (LLVMIsAConstantDataVector(v) || LLVMIsAConstantVector(v)) {
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(v));
    for (unsigned i = 0; i < n; i++)
      if (!is_byte_multiple(LLVMGetAggregateElement(v, i)))
        return 0;
    return n > 0;
  }
  return v && LLVMIsAConstantInt(v) &&
         LLVMGetIntTypeWidth(LLVMTypeOf(v)) <= 64 &&
         LLVMConstIntGetZExtValue(v) % 8 == 0;
}

/*
 * A shift by whole bytes, or a truncation to whole bytes, moves bytes: at
 * -O2 clang moves a std::complex<float> as one i64 and takes its halves
 * with `lshr 32` and `trunc` (then a bitcast to floats).  That says nothing
 * about what the bytes hold, so it is no evidence of an integer (which
 * would leave the float halves without tangents, silently).
 */
static int moves_whole_bytes(LLVMValueRef inst, LLVMOpcode op) {
  if (op == LLVMLShr || op == LLVMShl || op == LLVMAShr)
    return is_byte_multiple(LLVMGetOperand(inst, 1));
  if (op == LLVMTrunc) {
    LLVMTypeRef to = LLVMTypeOf(inst);
    if (LLVMGetTypeKind(to) == LLVMVectorTypeKind)
      to = LLVMGetElementType(to);
    return LLVMGetTypeKind(to) == LLVMIntegerTypeKind &&
           LLVMGetIntTypeWidth(to) % 8 == 0;
  }
  return 0;
}

int ad_types_moves_bytes(LLVMValueRef inst) {
  return moves_whole_bytes(inst, LLVMGetInstructionOpcode(inst));
}

/* Whether pointer v is only compared: an end pointer (`begin + bytes`,
 * std::vector's `_M_finish`, a loop's bound), never an access, so its
 * stride says nothing of the layout (it is often a byte count: a period
 * of 1 would collapse the object).  Through PHIs and selects (clang 22
 * joins the end of a vector's copy with `null + bytes` for the empty one)
 * and ptrtoint into a difference or a comparison (the size handed to
 * operator delete), a few levels deep. */
static int only_compared_at(LLVMValueRef v, int depth) {
  LLVMUseRef u = LLVMGetFirstUse(v);
  if (!u || depth > 4)
    return 0;
  for (; u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAICmpInst(user))
      continue;
    if ((LLVMIsAPHINode(user) ||
         (LLVMIsASelectInst(user) && LLVMGetOperand(user, 0) != v)) &&
        only_compared_at(user, depth + 1))
      continue;
    if (LLVMIsAPtrToIntInst(user)) {
      int distance = 1;
      for (LLVMUseRef w = LLVMGetFirstUse(user); w && distance;
           w = LLVMGetNextUse(w)) {
        LLVMValueRef x = LLVMGetUser(w);
        distance = LLVMIsAICmpInst(x) ||
                   (LLVMIsABinaryOperator(x) &&
                    LLVMGetInstructionOpcode(x) == LLVMSub);
      }
      if (distance)
        continue;
    }
    return 0;
  }
  return 1;
}

static int only_compared(LLVMValueRef v) { return only_compared_at(v, 0); }

static void visit(ad_types *t, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  int obj;
  long long off;
  if (moves_whole_bytes(inst, op))
    return;
  switch (ad_opcode_class(op)) {
  case AD_OP_INT_OFFSET:
    if (LLVMGetTypeKind(LLVMTypeOf(inst)) == LLVMIntegerTypeKind)
      visit_int_arith(t, inst, op);
    return;
  case AD_OP_INT_NUMBER:
    ta_note(t, inst, ta_fact(AD_T_INTEGER, 0));
    ta_note(t, LLVMGetOperand(inst, 0), ta_fact(AD_T_INTEGER, 0));
    ta_note(t, LLVMGetOperand(inst, 1), ta_fact(AD_T_INTEGER, 0));
    return;
  case AD_OP_COMPARE:
  case AD_OP_FLOAT_TO_INT:
    ta_note(t, inst, ta_fact(AD_T_INTEGER, 0));
    return;
  case AD_OP_INT_TO_FLOAT:
    ta_note(t, LLVMGetOperand(inst, 0), ta_fact(AD_T_INTEGER, 0));
    return;
  default:
    break;
  }
  ta_tbaa_learn(t, inst);
  switch (op) {
  case LLVMAlloca:
    ta_root(t, inst);
    break;
  case LLVMLoad:
    ta_access(t, LLVMGetOperand(inst, 0), inst, LLVMTypeOf(inst),
              ad_is_tape_access(inst));
    if (!t->in_generated && ta_addr(t, LLVMGetOperand(inst, 0), &obj, &off, 0) &&
        loads_pointer(t, inst, obj, off))
      ta_slot_note(t, obj, off, inst);
    if (ad_type_is_pointerish(LLVMTypeOf(inst)))
      ta_root(t, inst);
    break;
  case LLVMStore:
    ta_access(t, LLVMGetOperand(inst, 1), LLVMGetOperand(inst, 0),
              LLVMTypeOf(LLVMGetOperand(inst, 0)), ad_is_tape_access(inst));
    if (!t->in_generated &&
        LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(inst, 0))) ==
            LLVMPointerTypeKind &&
        ta_addr(t, LLVMGetOperand(inst, 1), &obj, &off, 0))
      ta_slot_note(t, obj, off, LLVMGetOperand(inst, 0));
    break;
  case LLVMAtomicRMW:
    ta_access(t, LLVMGetOperand(inst, 0), LLVMGetOperand(inst, 1),
              LLVMTypeOf(LLVMGetOperand(inst, 1)), 0);
    ta_unify(t, inst, LLVMGetOperand(inst, 1));
    break;
  case LLVMGetElementPtr: {
    LLVMValueRef base = LLVMGetOperand(inst, 0);
    unsigned long long s;
    long long c;
    if (LLVMGetTypeKind(LLVMTypeOf(base)) == LLVMVectorTypeKind)
      break;
    if (!ta_addr(t, base, &obj, &off, 0))
      obj = ta_root(t, base), off = 0;
    tregion members[MAX_GEP_MEMBERS];
    unsigned nmembers;
    if (!ta_gep_offset(t, inst, &s, &c, members, &nmembers) && !t->settled) {
      t->deferred = 1; /* a byte offset of no known stride yet */
      break;
    }
    for (unsigned k = 0; k < nmembers; k++)
      ta_add_region(t, obj, off + members[k].start, members[k].es,
                    members[k].count);
    /* Stepping from a pointer into the middle of an object (clang 20+
     * indexes x[i] of struct {int n; double x[3]} as a double GEP from &x)
     * walks a member, not the whole object: no period for it, and the
     * elements share the facts of the first. */
    if ((obj < 0 || ta_norm(&t->objs[obj], off) == 0) && !only_compared(inst))
      ta_set_period(t, obj, s);
    ta_set_addr(t, inst, obj, off + c);
    break;
  }
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMFreeze: {
    LLVMTypeRef from = LLVMTypeOf(LLVMGetOperand(inst, 0));
    LLVMTypeRef to = LLVMTypeOf(inst);
    if (ad_type_is_float(from) && ta_is_int_type(to))
      ta_note(t, inst, ta_value_fact(t, LLVMGetOperand(inst, 0)));
    else if (ta_is_int_type(from) && ad_type_is_float(to))
      ta_note(t, LLVMGetOperand(inst, 0), ta_value_fact(t, inst));
    else
      ta_unify(t, inst, LLVMGetOperand(inst, 0));
    break;
  }
  case LLVMPtrToInt:
    ta_note(t, inst, ta_fact(AD_T_POINTER, 0));
    if (ta_addr(t, LLVMGetOperand(inst, 0), &obj, &off, 0))
      ta_set_addr(t, inst, obj, off);
    break;
  case LLVMIntToPtr:
    ta_note(t, LLVMGetOperand(inst, 0), ta_fact(AD_T_POINTER, 0));
    if (ta_addr(t, LLVMGetOperand(inst, 0), &obj, &off, 0))
      ta_set_addr(t, inst, obj, off);
    else if (ta_vget(t, inst) == NULL || ta_vget(t, inst)->obj < 0)
      ta_root(t, inst);
    break;
  case LLVMTrunc:
    ta_note(t, inst, ta_fact(AD_T_INTEGER, 0));
    break;
  case LLVMZExt:
  case LLVMSExt:
    ta_note(t, inst, ta_fact(AD_T_INTEGER, 0));
    ta_note(t, LLVMGetOperand(inst, 0), ta_fact(AD_T_INTEGER, 0));
    break;
  case LLVMSelect:
    ta_unify(t, inst, LLVMGetOperand(inst, 1));
    ta_unify(t, inst, LLVMGetOperand(inst, 2));
    break;
  case LLVMShuffleVector:
    /* lanes moved (a vectorized copy of float bits as <2 x i64>): one
     * fact for every lane of integer vectors */
    if (ta_is_int_type(LLVMTypeOf(inst))) {
      ta_unify(t, inst, LLVMGetOperand(inst, 0));
      ta_unify(t, inst, LLVMGetOperand(inst, 1));
    }
    break;
  case LLVMExtractElement:
    if (ta_is_int_type(LLVMTypeOf(inst)))
      ta_unify(t, inst, LLVMGetOperand(inst, 0));
    break;
  case LLVMInsertElement:
    if (ta_is_int_type(LLVMTypeOf(inst))) {
      ta_unify(t, inst, LLVMGetOperand(inst, 0));
      ta_unify(t, inst, LLVMGetOperand(inst, 1));
    }
    break;
  case LLVMPHI: {
    unsigned n = LLVMCountIncoming(inst);
    for (unsigned k = 0; k < n; k++)
      ta_unify(t, inst, LLVMGetIncomingValue(inst, k));
    break;
  }
  case LLVMCall:
  case LLVMInvoke:
    visit_call(t, inst);
    break;
  default:
    break;
  }
}

/* ---- entry points ---- */

void ad_types_free(ad_types *t) {
  if (!t)
    return;
  for (size_t i = 0; i < t->nobjs; i++) {
    free(t->objs[i].e);
    free(t->objs[i].ix);
    free(t->objs[i].r);
    free(t->objs[i].s);
  }
  free(t->pending);
  free(t->objs);
  free(t->vals);
  free(t->fns);
  ad_map_free(&t->index);
  ad_map_free(&t->fnset);
  for (size_t i = 0; i < t->call_memo.cap; i++)
    if (t->call_memo.keys[i])
      free(t->call_memo.vals[i]);
  ad_map_free(&t->call_memo);
  if (t->own_td)
    LLVMDisposeTargetData(t->td);
  free(t);
}

static ad_types *analyze(const ad_engine *e, LLVMModuleRef m,
                         LLVMTargetDataRef td, LLVMValueRef fn,
                         const unsigned *param_float_bits,
                         unsigned caller_levels, unsigned reach);

ad_types *ad_types_analyze(const ad_engine *e, LLVMModuleRef m,
                           LLVMTargetDataRef td, LLVMValueRef fn) {
  return analyze(e, m, td, fn, NULL, 0, 0);
}

ad_types *ad_types_analyze_params(const ad_engine *e, LLVMModuleRef m,
                                  LLVMTargetDataRef td, LLVMValueRef fn,
                                  const unsigned *param_float_bits) {
  return analyze(e, m, td, fn, param_float_bits, 0, 0);
}

ad_types *ad_types_analyze_in_callers(const ad_engine *e, LLVMModuleRef m,
                                      LLVMTargetDataRef td, LLVMValueRef fn,
                                      unsigned levels) {
  return analyze(e, m, td, fn, NULL, levels, AD_TYPES_CALLER_REACH);
}

ad_types *ad_types_analyze_in_callers_reaching(const ad_engine *e,
                                               LLVMModuleRef m,
                                               LLVMTargetDataRef td,
                                               LLVMValueRef fn,
                                               unsigned levels,
                                               unsigned reach) {
  return analyze(e, m, td, fn, NULL, levels, reach);
}

ad_types *ad_types_analyze_on_call_paths(const ad_engine *e, LLVMModuleRef m,
                                         LLVMTargetDataRef td, LLVMValueRef fn,
                                         unsigned levels) {
  return analyze(e, m, td, fn, NULL, levels, 0);
}

static ad_types *analyze(const ad_engine *e, LLVMModuleRef m,
                         LLVMTargetDataRef td, LLVMValueRef fn,
                         const unsigned *param_float_bits,
                         unsigned caller_levels, unsigned reach) {
  ad_types *t = tj_calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->e = e;
  ad_map_init(&t->index);
  ad_map_init(&t->fnset);
  ad_map_init(&t->call_memo);
  if (td) {
    t->td = td;
  } else {
    t->td = LLVMCreateTargetData(LLVMGetDataLayoutStr(m));
    t->own_td = 1;
  }
  add_function(t, fn, 0);
  /* the breadth grows with the height: a caller far up is often one of
   * several paths to the same template instance */
  size_t callers = (size_t)caller_levels * CALLERS_PER_LEVEL;
  add_callers(t, fn, 0, caller_levels, reach, &callers);
  for (unsigned i = 0; i < LLVMCountParams(fn); i++) {
    if (ad_type_is_pointerish(LLVMTypeOf(LLVMGetParam(fn, i))))
      ta_root(t, LLVMGetParam(fn, i));
    if (param_float_bits && param_float_bits[i])
      ta_note(t, LLVMGetParam(fn, i),
              ta_fact(AD_T_FLOAT, param_float_bits[i]));
  }
  for (int round = 0; round < MAX_ROUNDS && !t->oom; round++) {
    t->changed = 0;
    for (size_t f = 0; f < t->nfns && !t->oom; f++) {
      t->in_generated = is_generated(t->fns[f]);
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(t->fns[f]); bb;
           bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
             i = LLVMGetNextInstruction(i))
          visit(t, i);
    }
    ta_run_pending(t);
    if (!t->changed || round + 1 == MAX_ROUNDS / 2) {
      if ((t->settled || !t->deferred) && !t->changed)
        break;
      t->settled = 1;
    }
  }
  if (t->oom) {
    ad_types_free(t);
    return NULL;
  }
  return t;
}

ad_tkind ad_types_kind(const ad_types *t, LLVMValueRef v, long long offset,
                       unsigned *bits) {
  tfact f;
  if (offset < 0) {
    f = ta_value_fact(t, v);
  } else {
    const tval *tv = ta_vget(t, v);
    f = tv && tv->obj >= 0 ? ta_mem_get(t, tv->obj, tv->off + offset, 1, 1)
                           : ta_fact(AD_T_UNKNOWN, 0);
  }
  if (f.weak && f.kind == AD_T_CONFLICT)
    f = ta_fact(AD_T_UNKNOWN, 0); /* TBAA's promises disagree: no fact */
  if (bits)
    *bits = f.bits;
  return (ad_tkind)f.kind;
}

/* The kinds type analysis gives the bytes store `store` writes (its
 * value's store size, 64 at most), as bits 1 << ad_tkind. */
static unsigned stored_byte_kinds(const ad_types *t, LLVMTargetDataRef td,
                                  LLVMValueRef store) {
  LLVMValueRef v = LLVMGetOperand(store, 0), p = LLVMGetOperand(store, 1);
  unsigned long long size = LLVMStoreSizeOfType(td, LLVMTypeOf(v));
  unsigned kinds = 0;
  for (unsigned long long off = 0; off < size && off < 64; off++)
    kinds |= 1u << ad_types_kind(t, p, (long long)off, NULL);
  return kinds;
}

int ad_types_stores_float_constant(const ad_types *t, LLVMTargetDataRef td,
                                   LLVMValueRef store) {
  LLVMValueRef v = LLVMGetOperand(store, 0);
  LLVMTypeRef ty = LLVMTypeOf(v);
  if (!t || !LLVMIsConstant(v) || !ta_is_int_type(ty) ||
      !(LLVMIsAConstantInt(v) || LLVMIsAConstantDataVector(v) ||
        LLVMIsAConstantAggregateZero(v)))
    return 0;
  return (stored_byte_kinds(t, td, store) & (1u << AD_T_FLOAT)) != 0;
}

int ad_types_stores_no_address(const ad_types *t, LLVMTargetDataRef td,
                               LLVMValueRef store) {
  LLVMValueRef v = LLVMGetOperand(store, 0);
  LLVMTypeRef ty = LLVMTypeOf(v);
  if (!t || !LLVMIsAConstantInt(v) || !ta_is_int_type(ty))
    return 0;
  if (LLVMGetIntTypeWidth(ty) == 64) {
    /* x86-64's and AArch64's user addresses have their top 16 bits clear
     * (a kernel's or -1 all set); a double's exponent sets some of them */
    unsigned long long top = LLVMConstIntGetZExtValue(v) >> 48;
    if (top != 0 && top != 0xffff)
      return 1;
  }
  return (stored_byte_kinds(t, td, store) & ~(1u << AD_T_UNKNOWN)) == 0;
}

const char *ad_types_query(const ad_types *t, LLVMValueRef v,
                           long long offset) {
  unsigned bits = 0;
  ad_tkind k = ad_types_kind(t, v, offset, &bits);
  return ad_tkind_name(k, bits);
}
