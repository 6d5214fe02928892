/*
 * The forward rules: one instruction's tangent (inst.c), the call families
 * (math, memory, vector, cuda, complex, tree: each file exports one
 * ad_rule_family that registry/registry.c registers), custom rules, and the
 * one copy rule they share.
 */
#ifndef TANJIT_AD_RULES_RULES_H
#define TANJIT_AD_RULES_RULES_H

#include <stddef.h>

#include <llvm-c/Core.h>

#include "ad/core/context.h"

/* ---- inst.c: one instruction's primal clone and tangent ---- */
/* Emits the clone (unless the rule replaces it) and the tangent of primal
 * instruction `inst` (not a call: fwd/call.c) at fc->b.  0 or -1. */
int ad_emit_instruction(ad_fn_ctx *fc, LLVMValueRef inst);

/* ---- math.c: the table, for its self-check and the tests ---- */
/* Every entry's programs parse and check (the table is parsed once).  0 or
 * -1 with the first problem in why. */
int ad_math_table_check(char *why, size_t whysize);
/* The check one row's program gets, for a function of `arity` arguments
 * whose integer arguments are int_args' bits.  0 or -1 with why. */
int ad_math_program_check(const char *program, unsigned arity,
                          unsigned int_args, char *why, size_t whysize);
/* The math table as (name, arity, float-arg mask) rows. */
size_t ad_math_table_size(void);
const char *ad_math_table_name(size_t i, unsigned which); /* 0 d,1 f,2 l,3 llvm */
unsigned ad_math_table_arity(size_t i);
/* Bit k set: argument k is an integer (not differentiated). */
unsigned ad_math_table_int_args(size_t i);
/* Bit k set: argument k points to an integer the call writes (remquo's
 * quotient; not differentiated, and no partial reads it). */
unsigned ad_math_table_out_args(size_t i);

/* Reverse mode reads the same rows: whether `rule` is a row of the math
 * table, and its partials d result / d argument k at fc->b, with the
 * call's arguments and result given as values of the body being built
 * (an out-parameter's argument may be NULL: no partial reads it); the
 * partials are NULL for integer arguments and out-parameters, and with
 * *chooses set (fmin, fmax) partial 0 is the indicator that argument 0 is
 * chosen, the others NULL.  0 or -1. */
struct ad_call_rule;
/* Whether float v is never negative (positive too when `positive`) by
 * its expression (NaN allowed): a sum of squares plus a positive
 * constant, n-body's softened r2. */
int ad_math_never_negative(LLVMValueRef v, int positive);
int ad_math_is_row(const struct ad_call_rule *rule);
/* Whether `rule` is sqrt's row (reverse mode folds k / sqrt(x)). */
int ad_math_is_sqrt(const struct ad_call_rule *rule);
int ad_math_partials(ad_fn_ctx *fc, const struct ad_call_rule *rule,
                     LLVMValueRef call, LLVMValueRef *args,
                     LLVMValueRef result, LLVMValueRef *partials,
                     int *chooses);

/* ---- complex.c: reverse mode reads the complex rows too ----
 * Whether `rule` is a row of rules/complex.c, and the adjoint each
 * argument of `call` receives (dargs[k], in the argument's own type) from
 * dres, the adjoint of the result, at fc->b, from the call's arguments
 * and result given as values of the body being built.  0 or -1. */
int ad_complex_is_rule(const struct ad_call_rule *rule);
int ad_complex_adjoints(ad_fn_ctx *fc, const struct ad_call_rule *rule,
                        LLVMValueRef call, LLVMValueRef *args,
                        LLVMValueRef result, LLVMValueRef dres,
                        LLVMValueRef *dargs);

/* Evaluates a partial written in the rows' language (x y z the
 * arguments, r the result, all of float type t) at fc->b.  NULL (error in
 * fc) if it does not parse. */
LLVMValueRef ad_math_eval_text(ad_fn_ctx *fc, const char *program,
                               unsigned arity, LLVMTypeRef t,
                               LLVMValueRef *args, LLVMValueRef result);

/* ---- inst.c: the float arithmetic instructions' partials as rows ----
 * d result / d operand k of fadd, fsub, fneg, fmul, fdiv, frem: `negate`
 * times `program` (NULL: 1), in the rows' language (x, y the operands, r
 * the result).  Forward mode and reverse mode both read them.  0 when
 * `op` has no row or k is past its operands. */
typedef struct ad_inst_partial {
  const char *program;
  int negate;
} ad_inst_partial;
int ad_inst_partial_of(LLVMOpcode op, unsigned k, ad_inst_partial *out);
/* The value of a floating-point constant, scalar or splat vector, exact
 * as a double: 1, or 0 when v is none. */
int ad_const_fp_splat(LLVMValueRef v, double *out);

/* ---- custom.c: custom rules (in-IR registrations, tanjit_register_fwd_rule,
 * the enzyme_inactive attribute); consulted before the built-in tables
 * (ad_custom_lookup, registry/registry.h) ---- */
typedef struct ad_custom_registry ad_custom_registry;
ad_custom_registry *ad_custom_registry_new(void); /* NULL on out of memory */
void ad_custom_registry_free(ad_custom_registry *r); /* NULL-tolerant */
/* Whether any rule was registered through the API (NULL: none). */
int ad_custom_registry_has_rules(ad_custom_registry *r);
/* ad_custom_read_registrations: declared in ad.h (the loader calls it). */
/* Whether a custom rule answers direct calls of fn by itself (an in-IR
 * forward derivative, the enzyme_inactive attribute on fn, a rule
 * registered under fn's name): an indirect call that may reach fn
 * dispatches to a direct call of it, which takes the rule. */
int ad_custom_answers_function(const ad_engine *e, LLVMValueRef fn);

/* ---- copy.c: one copy rule for host and device memory ----
 *
 * memcpy/memmove and every CUDA transfer differentiate the same way; only
 * how bytes are moved or zeroed differs, which an emitter says.  Addresses
 * an emitter receives have the types of the call's own operands (a pointer,
 * or an integer holding a device pointer).  The segment rules are those of
 * ad_copy_layout_of (analysis/types.h). */
typedef struct ad_copy_emitter ad_copy_emitter;
struct ad_copy_emitter {
  /* Emits a copy of `n` bytes from `src` to `dst` at fc->b: the call
   * `clone` replayed on these operands (for an LLVM memcpy, the intrinsic;
   * for CUDA, the same API call with its kind and stream).  0 or -1. */
  int (*copy)(ad_fn_ctx *fc, const ad_copy_emitter *em, LLVMValueRef clone,
              LLVMValueRef dst, LLVMValueRef src, LLVMValueRef n);
  /* Emits the zeroing of `n` bytes at `dst` (memset, cuMemsetD8_v2, ...).
   * 0 or -1. */
  int (*zero)(ad_fn_ctx *fc, const ad_copy_emitter *em, LLVMValueRef clone,
              LLVMValueRef dst, LLVMValueRef n);
  const void *data; /* the emitter's own (e.g. a CUDA rule's operands) */
};
/* inst.c: whether pointer p, which has no shadow, points into the memory
 * of an enzyme_const parameter of the function whose derivative a request
 * calls itself (sig.direct) that nothing the function runs reads back:
 * active values written there carry no tangent anything depends on (the
 * caller declared the memory constant), so the write is taken without
 * one, as Enzyme does.  A derivative reached by a call never takes it: its
 * caller may read the memory after the call. */
int ad_fwd_into_unread_constant(ad_fn_ctx *fc, LLVMValueRef p);
/* Differentiates the copy `call` (primal; `clone` its clone, the builder
 * after it) of `len` bytes from `src` to `dst` (primal operands of call).
 * Emits nothing when the destination has no shadow; fails when active
 * bytes would land in memory with no shadow.  0 or -1. */
int ad_differentiate_copy(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef clone,
                          LLVMValueRef dst, LLVMValueRef src, LLVMValueRef len,
                          const ad_copy_emitter *em);
/* The same with float bytes left alone (their shadows untouched): reverse
 * mode's augmented pass, where the shadow of float memory holds adjoints
 * that the reverse of the copy moves (rev/memory.c).  0 or -1. */
int ad_copy_non_float_shadows(ad_fn_ctx *fc, LLVMValueRef call,
                              LLVMValueRef clone, LLVMValueRef dst,
                              LLVMValueRef src, LLVMValueRef len,
                              const ad_copy_emitter *em);
/* `addr` + `off` bytes, for a pointer or for an integer that holds one
 * (inttoptr, GEP, ptrtoint: device pointers are offset as pointers). */
LLVMValueRef ad_offset_address(ad_fn_ctx *fc, LLVMValueRef addr,
                               LLVMValueRef off);
/* Converts an address between pointer and integer forms (`to` either). */
LLVMValueRef ad_address_as(ad_fn_ctx *fc, LLVMValueRef addr, LLVMTypeRef to);
/* Emits a copy of call `clone` at fc->b with operand ops[i] replaced by
 * vals[i] (converted to the operand's pointer or integer type; n <= 8):
 * same callee, attributes, calling convention and !dbg, except the
 * alignment and dereferenceability claims of replaced operands (a piece of
 * a copy does not inherit them).  NULL if n > 8. */
LLVMValueRef ad_replay_call(ad_fn_ctx *fc, LLVMValueRef clone,
                            const unsigned *ops, LLVMValueRef *vals,
                            unsigned n);

#endif
