/* Derivative functions and their bodies: the cache, the body walk, and
 * calls (a rule from the registry, else the callee's own derivative). */
#ifndef TANJIT_AD_FWD_FWD_H
#define TANJIT_AD_FWD_FWD_H

#include <llvm-c/Core.h>

#include "ad/core/context.h"

/* ---- derivative.c ---- */
/* The derivative function for `sig` (cached; created with internal linkage,
 * declaration first so recursion terminates).  `where` locates errors.
 * NULL on failure with the error in mc. */
LLVMValueRef ad_get_derivative(ad_module_ctx *mc, const ad_signature *sig,
                               LLVMValueRef where);
/* Copies the primal's by-value (byval + align) parameter attributes to the
 * matching parameters of a derivative function or of a call to it (a
 * by-value struct's shadow is passed by value too; batched shadows travel
 * as arrays of pointers, so only the primal is by value there). */
void ad_copy_abi_attrs(const ad_signature *sig, LLVMValueRef target);
/* Derivative's type for a signature. */
LLVMTypeRef ad_derivative_type(ad_module_ctx *mc, const ad_signature *sig);

/* ---- call.c: a call's tangent (rule, else derivative of the callee) ---- */
int ad_emit_call(ad_fn_ctx *fc, LLVMValueRef call);
/* Emits a call to the derivative of `fn` for the activities the arguments
 * of `call` have here; its primal result (or NULL for void) and its shadow
 * (NULL when the result is inactive).  0 or -1. */
int ad_derivative_call(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef fn,
                       LLVMValueRef *primal_out, LLVMValueRef *shadow_out);

/* ---- indirect.c ---- */
/* An indirect call with active arguments: dispatch on the target. */
int ad_emit_indirect_call(ad_fn_ctx *fc, LLVMValueRef call);

#endif
