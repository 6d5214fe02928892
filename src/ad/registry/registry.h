/*
 * The rule registry: what a rule row looks like, and which rule a call
 * gets.  The analyses ask it what a call does to memory (activity.c, type
 * analysis); the forward emitters (rules/) fill it; the call dispatcher
 * (fwd/call.c) asks it which emitter to run.
 *
 * A family is a `lookup(name)` over its own static const table.  The
 * dispatcher asks custom rules first (rules/custom.c), then resolves a
 * call's name (the callee's "enzyme_math" attribute, then the <name> of a
 * renamed ccall `ejlstr$<name>$<lib>` / `ejlptr$<name>$<handle>`, see
 * common/rename.h, else the plain name) and asks each family in
 * registry.c's order; the first hit wins.  To add a family (as
 * rules/cuda.c did):
 *   1. write `const ad_call_rule *ad_cuda_lookup(const char *name)` returning
 *      a pointer into a `static const ad_call_rule[]`;
 *   2. declare it below and add it to the families in registry.c;
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
 *      keeps its table as ad_typed_rule entries (below) and exports a typed
 *      lookup that ad_typed_rule_of (registry.c) asks.
 * Rows are written with designated initializers.  The analyses and the
 * rules ask through ad_rule_of_call, which memoizes per module transform.
 */
#ifndef TANJIT_AD_REGISTRY_REGISTRY_H
#define TANJIT_AD_REGISTRY_REGISTRY_H

#include <stddef.h>

#include <llvm-c/Core.h>

#include "ad/core/context.h"

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
};
typedef const ad_call_rule *(*ad_call_family_lookup)(const char *name);

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
 *   -  not classified (a stream, a context)
 *   D S  a pointer to an array of doubles (D) or floats (S) from the
 *      pointer on (BLAS's vectors, matrices and Fortran's scalars)
 * A rule with `returns_allocation` makes its result a fresh object.
 */
typedef struct ad_typed_rule {
  ad_call_rule rule;
  const char *arg_types; /* NULL: nothing known */
} ad_typed_rule;

/* The rule name of a call (see above); writes into buf.  NULL for an
 * indirect call. */
const char *ad_call_rule_name(const ad_engine *e, LLVMValueRef call,
                              char *buf, size_t bufsize);
/* The rule for `call`: custom first, then the families.  NULL: none. */
const ad_call_rule *ad_find_call_rule(const ad_engine *e, LLVMValueRef call);
/* The same, asked once per call site of the module being transformed (the
 * analyses and the rules ask about the same call many times): memoized in
 * mc, which counts the lookups that reached the families. */
const ad_call_rule *ad_rule_of_call(ad_module_ctx *mc, LLVMValueRef call);
/* The typed entry (argument classes) for rule name `name`, or NULL. */
const ad_typed_rule *ad_typed_rule_of(const char *name);

/* The families, in the order registry.c asks them. */
const ad_call_rule *ad_inactive_lookup(const char *name); /* registry/inactive.c */
const ad_call_rule *ad_math_lookup(const char *name);     /* rules/math.c */
const ad_call_rule *ad_memory_lookup(const char *name);   /* rules/memory.c */
const ad_typed_rule *ad_memory_typed_lookup(const char *name);
const ad_call_rule *ad_vector_lookup(const char *name);   /* rules/vector.c */
const ad_call_rule *ad_cuda_lookup(const char *name);     /* rules/cuda.c */
const ad_typed_rule *ad_cuda_typed_lookup(const char *name);
const ad_call_rule *ad_complex_lookup(const char *name);  /* rules/complex.c */
const ad_call_rule *ad_tree_lookup(const char *name);     /* rules/tree.c */
const ad_call_rule *ad_blas_lookup(const char *name);     /* rules/blas.c */
const ad_typed_rule *ad_blas_typed_lookup(const char *name);
/* Custom rules (rules/custom.c): an inactive rule for an "enzyme_inactive"
 * callee or call site, the in-IR derivative of the callee, or the latest
 * rule registered for its plain or rule name.  NULL: none. */
const ad_call_rule *ad_custom_lookup(const ad_engine *e, LLVMValueRef call);

#endif
