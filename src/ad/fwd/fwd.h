/* Derivative functions and their bodies: the cache, the body walk, and
 * calls (a rule from the registry, else the callee's own derivative). */
#ifndef TANJIT_AD_FWD_FWD_H
#define TANJIT_AD_FWD_FWD_H

#include <llvm-c/Core.h>

#include "ad/core/context.h"
#include "ad/core/map.h"

/* ---- derivative.c ---- */
typedef struct ad_cache_entry {
  ad_signature sig;
  LLVMValueRef derivative;
  size_t prev_same_fn; /* 1 + index of the previous entry for sig.fn, or 0 */
  int built;           /* its body exists (else it waits on the worklist) */
} ad_cache_entry;

/* The derivatives made so far (a part of the module context): every
 * derivative begun, in creation order; the ones not yet built are the
 * worklist, so that a chain of calls is differentiated by a loop, not by
 * one nested build per callee. */
typedef struct ad_derivative_cache {
  ad_cache_entry *entries;
  size_t n, cap;
  ad_map index; /* primal fn -> 1 + index of its latest entry */
  size_t built; /* entries below it are all built */
} ad_derivative_cache;
void ad_derivative_cache_init(ad_derivative_cache *c);
void ad_derivative_cache_free(ad_derivative_cache *c);

/* The derivative function for `sig` (cached; created with internal linkage).
 * A new one is only declared: its body is built by ad_build_derivatives,
 * so a derivative calling others (or itself) never nests their builds.
 * `where` locates errors.  NULL on failure with the error in mc. */
LLVMValueRef ad_get_derivative(ad_module_ctx *mc, const ad_signature *sig,
                               LLVMValueRef where);
/* Builds the bodies of every derivative begun at cache index `from` or
 * later, including those their bodies begin (a worklist, in creation
 * order).  0, or -1 with the error in mc. */
int ad_build_derivatives(ad_module_ctx *mc, size_t from);
/* Forgets the derivatives begun at cache index `mark` or later: their
 * functions are deleted (uses replaced by poison) and their entries freed. */
void ad_forget_derivatives(ad_module_ctx *mc, size_t mark);
/* Copies the primal's by-value (byval + align) parameter attributes to the
 * matching parameters of a derivative function or of a call to it (a
 * by-value struct's shadow is passed by value too; batched shadows travel
 * as arrays of pointers, so only the primal is by value there). */
void ad_copy_abi_attrs(const ad_signature *sig, LLVMValueRef target);
/* Derivative's type for a signature. */
LLVMTypeRef ad_derivative_type(ad_module_ctx *mc, const ad_signature *sig);

/* ---- openmp.c ---- */
/* libomp calls with a forward-mode step of their own: a fork of a parallel
 * region (`__kmpc_fork_call`: the outlined function's derivative forked
 * instead) and a reduction's calls (`__kmpc_reduce*`: combined under the
 * lock).  1 when call is neither, else 0 or -1. */
int ad_fwd_openmp_call(ad_fn_ctx *fc, LLVMValueRef call);

/* ---- call.c: a call's tangent (rule, else derivative of the callee) ---- */
int ad_emit_call(ad_fn_ctx *fc, LLVMValueRef call);
/* Emits a call to the derivative of `fn` for the activities the arguments
 * of `call` have here; its primal result (or NULL for void) and its shadow
 * (NULL when the result is inactive).  0 or -1. */
/* build_now: the derivative (and those it calls) is built before the call
 * is emitted, not later from the worklist, so that a failure leaves no call
 * behind (an indirect call's candidate, indirect.c). */
int ad_derivative_call(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef fn,
                       int build_now, LLVMValueRef *primal_out,
                       LLVMValueRef *shadow_out);

/* ---- exceptions.c: invoke, landingpad (Itanium EH) ---- */
/* An invoke: the call's tangent work, its calls that may unwind made
 * invokes to a pad of this invoke (recorded in fc->exit_block under the
 * primal invoke), then a branch to the normal destination.  0 or -1. */
int ad_emit_invoke(ad_fn_ctx *fc, LLVMValueRef inv);
/* A landingpad: a PHI of the pads that unwind to its block, filled by
 * ad_fill_landing_pad once every block is built.  0 or -1. */
int ad_emit_landing_pad(ad_fn_ctx *fc, LLVMValueRef lp);
void ad_fill_landing_pad(ad_fn_ctx *fc, LLVMValueRef lp);
/* A request reached through invoke: rewritten by `rewrite` as a call (which
 * must leave the instructions before the call in place), then
 * each call it left that may unwind made an invoke to the original unwind
 * destination, the rest of the block moved to its normal path.  0 or -1. */
int ad_rewrite_through_invoke(ad_module_ctx *mc, LLVMValueRef inv,
                              int (*rewrite)(ad_module_ctx *, LLVMValueRef));

/* ---- indirect.c ---- */
/* An indirect call with active arguments: dispatch on the target. */
int ad_emit_indirect_call(ad_fn_ctx *fc, LLVMValueRef call);

#endif
