/*
 * The rule registry: what a rule row looks like, and which rule a call
 * gets.  The analyses ask it what a call does to memory (activity.c, type
 * analysis); the forward emitters (rules/) fill it; the call dispatcher
 * (fwd/call.c) asks it which emitter to run.
 *
 * A family is one file holding a `static const` table of rows and
 * exporting one `const ad_rule_family` descriptor (its name and lookup);
 * registry.c's AD_RULE_FAMILIES lists the descriptors in the order they are
 * asked, custom rules (rules/custom.c) first.  The registry resolves a
 * call's rule name once (the callee's "enzyme_math" attribute, then the
 * <name> of a renamed ccall `ejlstr$<name>$<lib>` / `ejlptr$<name>$<handle>`,
 * see common/rename.h, else the plain name) and asks each family in that
 * order; the first that answers wins, the later ones are not asked.  To add
 * a family (as rules/cuda.c did):
 *   1. write a `static const ad_call_rule[]` (or ad_typed_rule[]) table and
 *      a lookup over it, and export
 *      `const ad_rule_family ad_cuda_family = {.name = "cuda",
 *      .lookup = cuda_lookup, .typed_lookup = cuda_typed_lookup};`;
 *   2. add `X(cuda)` to AD_RULE_FAMILIES in registry.c, where it is to be
 *      asked;
 *   3. each rule's emit() receives the primal call and its context; the
 *      primal clone (`clone`, already inserted, operands remapped) exists,
 *      the builder is positioned right after it; emit shadow work there
 *      (before the clone: LLVMPositionBuilderBefore(fc->b, clone)) and
 *      record the call's shadow with ad_set_shadow when the call is active.
 *      Helpers next to the call come from ad_get_or_insert_helper (ir/).
 *      Use ad_shadow_or_null / ad_shadow_value / ad_lane for operands,
 *      ad_is_active for activity, ad_fail for errors.
 *   4. activity: rules with `writes_pointer_args` make the roots of their
 *      pointer arguments active when any argument is active;
 *      `returns_allocation` makes the result an allocation root (active
 *      when it receives active data).
 *   5. types: a family whose calls take pointers, sizes or out-parameters
 *      keeps its table as ad_typed_rule entries (below) and sets
 *      `typed_lookup`, which ad_typed_rule_of asks (in the same order).
 * Rows are written with designated initializers.  The analyses and the
 * rules ask through ad_rule_of_call, which memoizes per module transform.
 */
#ifndef TANJIT_AD_REGISTRY_REGISTRY_H
#define TANJIT_AD_REGISTRY_REGISTRY_H

#include <stddef.h>

#include <llvm-c/Core.h>

#include "ad/core/context.h"
#include "ad/core/map.h"

typedef struct ad_call_rule ad_call_rule;
struct ad_call_rule {
  const char *name;
  /* Emits the tangent work of `call` (primal) next to `clone`.  0 or -1. */
  int (*emit)(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
              LLVMValueRef clone);
  const void *data; /* family-specific (e.g. the math table entry) */
  unsigned char writes_pointer_args;
  unsigned char returns_allocation;
  unsigned char inactive; /* no derivative effect at all */
  /* frees the memory its first argument points to (free, delete,
   * realloc): what ran before may not read it again */
  unsigned char frees_argument;
  /* 1 + the argument whose memory the call updates in place, reading its
   * old contents into its new ones alone (a BLAS or LAPACK output array:
   * axpy's y, gemm's C, trtrs's B); 0: none.  Those reads do not read the
   * memory back (analysis/pointer_access.c). */
  unsigned char updates_in_place;
  /* 1 + the pointer argument whose object the result addresses (Julia's
   * julia.pointer_from_objref: the object's own address, untracked): a
   * shadow demanded of the result is demanded of that argument, and the
   * result's shadow is the same call on the argument's shadow; 0: none */
  unsigned char views_argument;
};

/*
 * A rule with what type analysis learns from its calls' arguments, kept in
 * the same table entry so that a call the rules handle is never one type
 * analysis knows nothing about.  One letter per argument (arguments past
 * the string's end are not classified):
 *   p  a pointer (for an integer: a device pointer, CUdeviceptr)
 *   i  an integer (sizes, flags, directions, byte values)
 *   d s n  a transfer's destination and source (pointers) and byte count
 *      (an integer): the layouts of the two sides are exchanged
 *   P  an out-parameter that receives a pointer (8 bytes at offset 0)
 *   I  an out-parameter that receives an int (4 bytes)
 *   Z  an out-parameter that receives a size_t (pointer-sized integer)
 *   F  an out-parameter that receives a float of the call's result type
 *   -  not classified
 *   h  a handle (a stream, context, event, a cuBLAS handle): opaque, no
 *      data the derivative reads or writes through it, so it never needs
 *      a shadow (activity does not demand one: a stream kept in a mutable
 *      global the program set does not make that global active)
 *   D S  a pointer to an array of doubles (D) or floats (S) from the
 *      pointer on (BLAS's vectors, matrices and Fortran's scalars)
 * A rule with `returns_allocation` makes its result a fresh object.
 */
typedef struct ad_typed_rule {
  ad_call_rule rule;
  const char *arg_types; /* NULL: nothing known */
} ad_typed_rule;

/*
 * One family of rules, as registry.c registers it.  A family answers by
 * the call's rule name (`lookup`) or, for custom rules, which read the
 * call and the engine's registrations, by the call itself (`lookup_call`);
 * exactly one of the two is set.  NULL: the family has no rule for it.
 */
typedef struct ad_rule_family {
  const char *name; /* as ARCHITECTURE.md and the tests name it */
  const ad_call_rule *(*lookup)(const char *rule_name);
  const ad_call_rule *(*lookup_call)(const ad_engine *e, LLVMValueRef call);
  /* the typed entry for a rule name, for a family of ad_typed_rule rows;
   * NULL for the others */
  const ad_typed_rule *(*typed_lookup)(const char *rule_name);
} ad_rule_family;

/* The registered families, in the order they are asked (registry.c). */
size_t ad_rule_family_count(void);
const ad_rule_family *ad_rule_family_at(size_t i);

/* The rule name of a call (see above); writes into buf.  NULL for an
 * indirect call. */
const char *ad_call_rule_name(const ad_engine *e, LLVMValueRef call,
                              char *buf, size_t bufsize);
/* The rule for `call`: the registered families in order, custom first.
 * NULL: none. */
const ad_call_rule *ad_find_call_rule(const ad_engine *e, LLVMValueRef call);
/* The same over `families` (n of them), which the registry's own table is
 * one instance of; for tests. */
const ad_call_rule *ad_find_call_rule_in(const ad_rule_family *const *families,
                                         size_t n, const ad_engine *e,
                                         LLVMValueRef call);
/* The call -> rule memo of one transform (a part of the module context):
 * call -> its rule (or "none"), and call -> the callee it had then (a call
 * erased and another made at its address is looked up again); the lookups
 * that missed it and reached the families. */
typedef struct ad_rule_memo {
  ad_map rule, callee;
  size_t lookups;
} ad_rule_memo;
void ad_rule_memo_init(ad_rule_memo *m);
void ad_rule_memo_free(ad_rule_memo *m);
/* The same, asked once per call site of the module being transformed (the
 * analyses and the rules ask about the same call many times): memoized in
 * mc, which counts the lookups that reached the families. */
const ad_call_rule *ad_rule_of_call(ad_module_ctx *mc, LLVMValueRef call);
/* The direct-call wrapper of declared function `f` (ir.h's
 * `tanjit.direct.<f>`) when f may be the target of indirect call `call`
 * and a rule covers the wrapper's call of f (*rule: that rule), else NULL
 * (a wrapper made only to ask is deleted again).  *oom is set on out of
 * memory.  The indirect-call rules and activity analysis agree through it
 * on which declared functions an indirect call may reach. */
LLVMValueRef ad_declared_target_with_rule(ad_module_ctx *mc, LLVMValueRef call,
                                          LLVMValueRef f,
                                          const ad_call_rule **rule, int *oom);
/* The typed entry (argument classes) for rule name `name`, or NULL: the
 * first family in order with typed rows that has one. */
const ad_typed_rule *ad_typed_rule_of(const char *name);
/* The arguments rule r (a row ad_rule_of_call gave) classifies as
 * handles ('h' above): bit k for argument k (the first 64).  0 for rules
 * without argument types. */
unsigned long long ad_rule_handle_args(const ad_call_rule *r);

/* Custom rules (rules/custom.c, the first family): an inactive rule for an
 * "enzyme_inactive" callee or call site, the in-IR derivative of the
 * callee, or the latest rule registered for its plain or rule name.  NULL:
 * none.  request.c asks it directly for a request's callee. */
const ad_call_rule *ad_custom_lookup(const ad_engine *e, LLVMValueRef call);

#endif
