/*
 * Which memory a pointer of one call of fn may point into: a set of
 * objects, one per alloca and per allocation call (a rule with
 * returns_allocation) in fn and the defined functions it calls, plus
 * "before": all memory that existed when fn was called (its arguments,
 * globals, what an external call returns).  Inclusion-based and
 * flow-insensitive: a load yields what any store into the objects its
 * address may point into stored (memcpy copies those contents), a callee's
 * parameter what its call sites pass, a call what its callee returns; a
 * GEP points where its base does (its indices are offsets, even one
 * computed from pointers).  Before's contents are before itself and
 * whatever was stored into it, so a local object's address that escapes
 * into the caller's memory and is loaded back counts as both.  The sets
 * grow until nothing changes.
 *
 * lanes.c runs a primal once per lane when every write of it lands in
 * memory the call made (lane_memory_fresh): clang -O0's stack slots and
 * std::vector's members and heap blocks, written through `this` in
 * callees, are the call's own, while a slot holding an iterator into the
 * caller's buffer is read through, never written through.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rev/lanes_memory.h"
#include "common/alloc.h"

enum { BEFORE = 0 }; /* the object standing for the caller's memory */

struct lane_memory {
  ad_module_ctx *mc;
  LLVMValueRef *fns; /* fn first, then its defined callees */
  size_t nfns;
  ad_map slot;   /* value -> 1 + its set's index (functions: their result) */
  ad_map object; /* alloca or allocation call -> 1 + its object number */
  size_t words;  /* 64-bit words per set */
  uint64_t *sets;     /* one per slot */
  uint64_t *contents; /* one per object: what its memory may hold */
  uint64_t *scratch;  /* a constant's set */
  int changed;
};

static int is_allocation(ad_module_ctx *mc, LLVMValueRef inst) {
  if (LLVMIsAAllocaInst(inst))
    return 1;
  if (!LLVMIsACallInst(inst) && !LLVMIsAInvokeInst(inst))
    return 0;
  const ad_call_rule *rule = ad_rule_of_call(mc, inst);
  return rule && rule->returns_allocation;
}

/* The defined function a call runs (not an allocation's), or NULL. */
static LLVMValueRef defined_callee(ad_module_ctx *mc, LLVMValueRef inst) {
  if ((!LLVMIsACallInst(inst) && !LLVMIsAInvokeInst(inst)) ||
      is_allocation(mc, inst))
    return NULL;
  LLVMValueRef callee = ad_called_function(inst);
  return callee && LLVMCountBasicBlocks(callee) ? callee : NULL;
}

/* fn and every defined function it reaches by direct calls, each once. */
static int collect_functions(lane_memory *m, LLVMValueRef fn) {
  ad_map seen;
  ad_map_init(&seen);
  size_t cap = 16;
  m->fns = tj_malloc(cap * sizeof *m->fns);
  int rc = m->fns && ad_map_put(&seen, fn, (void *)1) == 0 ? 0 : -1;
  if (rc == 0)
    m->fns[m->nfns++] = fn;
  for (size_t w = 0; rc == 0 && w < m->nfns; w++)
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(m->fns[w]);
         rc == 0 && bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); rc == 0 && i;
           i = LLVMGetNextInstruction(i)) {
        LLVMValueRef g = defined_callee(m->mc, i);
        if (!g || ad_map_get(&seen, g))
          continue;
        if (ad_map_put(&seen, g, (void *)1) != 0) {
          rc = -1;
          break;
        }
        if (m->nfns == cap) {
          LLVMValueRef *more = tj_realloc(m->fns, 2 * cap * sizeof *more);
          if (!more) {
            rc = -1;
            break;
          }
          m->fns = more;
          cap *= 2;
        }
        m->fns[m->nfns++] = g;
      }
  ad_map_free(&seen);
  return rc;
}

/* Numbers every value (a slot each) and every object; 0 or -1. */
static int number(lane_memory *m, size_t *nslots, size_t *nobjects) {
  size_t slots = 0, objects = 1; /* object 0: before */
  for (size_t f = 0; f < m->nfns; f++) {
    LLVMValueRef fn = m->fns[f];
    if (ad_map_put(&m->slot, fn, (void *)(uintptr_t)++slots) != 0)
      return -1;
    for (unsigned p = 0; p < LLVMCountParams(fn); p++)
      if (ad_map_put(&m->slot, LLVMGetParam(fn, p),
                     (void *)(uintptr_t)++slots) != 0)
        return -1;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        if (ad_map_put(&m->slot, i, (void *)(uintptr_t)++slots) != 0)
          return -1;
        if (is_allocation(m->mc, i) &&
            ad_map_put(&m->object, i, (void *)(uintptr_t)++objects) != 0)
          return -1;
      }
  }
  *nslots = slots;
  *nobjects = objects;
  return 0;
}

static uint64_t *set_at(lane_memory *m, size_t slot_plus_one) {
  return m->sets + (slot_plus_one - 1) * m->words;
}

static void add(uint64_t *set, size_t object) {
  set[object / 64] |= (uint64_t)1 << (object % 64);
}

static int has(const uint64_t *set, size_t object) {
  return (set[object / 64] >> (object % 64)) & 1;
}

/* to |= from, noting a change. */
static void join(lane_memory *m, uint64_t *to, const uint64_t *from) {
  for (size_t k = 0; k < m->words; k++)
    if ((to[k] | from[k]) != to[k]) {
      to[k] |= from[k];
      m->changed = 1;
    }
}

/* A constant's objects, into `set` (cleared first): a global variable is
 * the caller's memory, a function or a number no memory at all. */
static void constant_set(lane_memory *m, LLVMValueRef v, uint64_t *set,
                         int depth) {
  if (LLVMIsAFunction(v) || depth > 8)
    return;
  if (LLVMIsAGlobalValue(v)) {
    add(set, BEFORE);
    return;
  }
  if (!LLVMIsAConstantExpr(v) && !LLVMIsAConstantStruct(v) &&
      !LLVMIsAConstantArray(v) && !LLVMIsAConstantVector(v))
    return;
  for (int k = 0; k < LLVMGetNumOperands(v); k++)
    constant_set(m, LLVMGetOperand(v, (unsigned)k), set, depth + 1);
}

/* v's set (a constant's in scratch, valid until the next call); a value of
 * a function the analysis does not cover may point anywhere before. */
static const uint64_t *set_of(const lane_memory *cm, LLVMValueRef v) {
  lane_memory *m = (lane_memory *)cm;
  uintptr_t s = (uintptr_t)ad_map_get(&m->slot, v);
  if (s)
    return set_at(m, s);
  memset(m->scratch, 0, m->words * sizeof *m->scratch);
  if (LLVMIsAConstant(v))
    constant_set(m, v, m->scratch, 0);
  else
    add(m->scratch, BEFORE);
  return m->scratch;
}

/* to |= v's set. */
static void join_value(lane_memory *m, uint64_t *to, LLVMValueRef v) {
  join(m, to, set_of(m, v));
}

/* The contents of every object in `where` |= v's set. */
static void store_into(lane_memory *m, LLVMValueRef where, LLVMValueRef v) {
  uintptr_t s = (uintptr_t)ad_map_get(&m->slot, where);
  if (!s) /* a constant address: a global, the caller's memory */
    join_value(m, m->contents + BEFORE * m->words, v);
  const uint64_t *at = s ? set_at(m, s) : NULL;
  size_t nobjects = m->words * 64;
  for (size_t o = 0; at && o < nobjects; o++)
    if (has(at, o))
      join_value(m, m->contents + o * m->words, v);
}

/* to |= the contents of every object `where` may point into. */
static void load_from(lane_memory *m, uint64_t *to, LLVMValueRef where) {
  uintptr_t s = (uintptr_t)ad_map_get(&m->slot, where);
  if (!s) {
    join(m, to, m->contents + BEFORE * m->words);
    return;
  }
  const uint64_t *at = set_at(m, s);
  for (size_t o = 0; o < m->words * 64; o++)
    if (has(at, o))
      join(m, to, m->contents + o * m->words);
}

/* The contents of dst's objects |= the contents of src's (a memcpy). */
static void copy_contents(lane_memory *m, LLVMValueRef dst, LLVMValueRef src) {
  uint64_t *held = tj_calloc(m->words, sizeof *held);
  if (!held)
    return;
  int c = m->changed;
  load_from(m, held, src);
  m->changed = c;
  uintptr_t s = (uintptr_t)ad_map_get(&m->slot, dst);
  const uint64_t *at = s ? set_at(m, s) : NULL;
  if (!at)
    join(m, m->contents + BEFORE * m->words, held);
  for (size_t o = 0; at && o < m->words * 64; o++)
    if (has(at, o))
      join(m, m->contents + o * m->words, held);
  free(held);
}

static void call_step(lane_memory *m, LLVMValueRef i, uint64_t *set) {
  unsigned nargs = LLVMGetNumArgOperands(i);
  LLVMValueRef callee = ad_called_function(i);
  size_t n = 0;
  const char *name = callee ? LLVMGetValueName2(callee, &n) : "";
  if (strncmp(name, "llvm.memcpy", 11) == 0 ||
      strncmp(name, "llvm.memmove", 12) == 0) {
    copy_contents(m, LLVMGetOperand(i, 0), LLVMGetOperand(i, 1));
    return;
  }
  if (strncmp(name, "llvm.", 5) == 0) { /* ptrmask, launder, ...: an arg */
    for (unsigned k = 0; k < nargs; k++)
      join_value(m, set, LLVMGetOperand(i, k));
    return;
  }
  LLVMValueRef g = defined_callee(m->mc, i);
  if (g) {
    for (unsigned k = 0; k < nargs && k < LLVMCountParams(g); k++)
      join_value(m, set_at(m, (uintptr_t)ad_map_get(&m->slot,
                                                    LLVMGetParam(g, k))),
                 LLVMGetOperand(i, k));
    join(m, set, set_at(m, (uintptr_t)ad_map_get(&m->slot, g)));
    return;
  }
  /* an external function: returns the caller's memory or an argument; one
   * that may write may store any of them into what its arguments reach */
  if (!has(set, BEFORE)) {
    add(set, BEFORE);
    m->changed = 1;
  }
  for (unsigned k = 0; k < nargs; k++)
    join_value(m, set, LLVMGetOperand(i, k));
  const ad_call_rule *rule = ad_rule_of_call(m->mc, i);
  if (!rule || rule->writes_pointer_args)
    for (unsigned k = 0; k < nargs; k++)
      for (unsigned j = 0; j < nargs; j++)
        store_into(m, LLVMGetOperand(i, k), LLVMGetOperand(i, j));
}

/* One instruction's constraints, joined in. */
static void step(lane_memory *m, LLVMValueRef fn, LLVMValueRef i) {
  uint64_t *set = set_at(m, (uintptr_t)ad_map_get(&m->slot, i));
  uintptr_t obj = (uintptr_t)ad_map_get(&m->object, i);
  if (obj && !has(set, obj - 1)) {
    add(set, obj - 1);
    m->changed = 1;
  }
  if (obj && LLVMIsAAllocaInst(i))
    return;
  if (LLVMIsALoadInst(i)) {
    load_from(m, set, LLVMGetOperand(i, 0));
  } else if (LLVMIsAStoreInst(i)) {
    store_into(m, LLVMGetOperand(i, 1), LLVMGetOperand(i, 0));
  } else if (LLVMIsAAtomicRMWInst(i)) {
    load_from(m, set, LLVMGetOperand(i, 0));
    store_into(m, LLVMGetOperand(i, 0), LLVMGetOperand(i, 1));
  } else if (LLVMIsAAtomicCmpXchgInst(i)) {
    load_from(m, set, LLVMGetOperand(i, 0));
    store_into(m, LLVMGetOperand(i, 0), LLVMGetOperand(i, 2));
  } else if (LLVMIsACallInst(i) || LLVMIsAInvokeInst(i)) {
    if (!obj)
      call_step(m, i, set);
  } else if (LLVMIsAReturnInst(i)) {
    if (LLVMGetNumOperands(i))
      join_value(m, set_at(m, (uintptr_t)ad_map_get(&m->slot, fn)),
                 LLVMGetOperand(i, 0));
  } else if (LLVMIsAGetElementPtrInst(i)) {
    join_value(m, set, LLVMGetOperand(i, 0));
  } else if (LLVMIsALandingPadInst(i) || LLVMIsAVAArgInst(i)) {
    if (!has(set, BEFORE)) {
      add(set, BEFORE);
      m->changed = 1;
    }
  } else if (!LLVMIsATerminatorInst(i)) {
    /* casts, PHIs, selects, arithmetic, aggregates: their operands' */
    for (int k = 0; k < LLVMGetNumOperands(i); k++)
      join_value(m, set, LLVMGetOperand(i, (unsigned)k));
    if (LLVMIsAIntToPtrInst(i) && !has(set, BEFORE)) {
      int empty = 1;
      for (size_t k = 0; k < m->words; k++)
        empty &= set[k] == 0;
      if (empty) { /* a number made a pointer: somewhere before */
        add(set, BEFORE);
        m->changed = 1;
      }
    }
  }
}

void lane_memory_free(lane_memory *m) {
  if (!m)
    return;
  free(m->fns);
  free(m->sets);
  free(m->contents);
  free(m->scratch);
  ad_map_free(&m->slot);
  ad_map_free(&m->object);
  free(m);
}

lane_memory *lane_memory_build(ad_module_ctx *mc, LLVMValueRef fn) {
  lane_memory *m = tj_calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->mc = mc;
  ad_map_init(&m->slot);
  ad_map_init(&m->object);
  size_t nslots, nobjects;
  if (collect_functions(m, fn) != 0 || number(m, &nslots, &nobjects) != 0) {
    lane_memory_free(m);
    return NULL;
  }
  m->words = (nobjects + 63) / 64;
  m->sets = tj_calloc(nslots * m->words, sizeof *m->sets);
  m->contents = tj_calloc(m->words * 64 * m->words, sizeof *m->contents);
  m->scratch = tj_calloc(m->words, sizeof *m->scratch);
  if (!m->sets || !m->contents || !m->scratch) {
    lane_memory_free(m);
    return NULL;
  }
  /* the caller's memory holds pointers into itself; fn's arguments point
   * into it */
  add(m->contents + BEFORE * m->words, BEFORE);
  for (unsigned p = 0; p < LLVMCountParams(fn); p++)
    add(set_at(m, (uintptr_t)ad_map_get(&m->slot, LLVMGetParam(fn, p))),
        BEFORE);
  do {
    m->changed = 0;
    for (size_t f = 0; f < m->nfns; f++)
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(m->fns[f]); bb;
           bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
             i = LLVMGetNextInstruction(i))
          step(m, m->fns[f], i);
  } while (m->changed);
  return m;
}

int lane_memory_fresh(const lane_memory *m, LLVMValueRef v) {
  const uint64_t *set = set_of(m, v);
  if (has(set, BEFORE))
    return 0;
  for (size_t k = 0; k < m->words; k++)
    if (set[k])
      return 1;
  return 0;
}

int lane_memory_callers_only(const lane_memory *m, LLVMValueRef v) {
  const uint64_t *set = set_of(m, v);
  if (!has(set, BEFORE) || set[0] != 1)
    return 0;
  for (size_t k = 1; k < m->words; k++)
    if (set[k])
      return 0;
  return 1;
}
