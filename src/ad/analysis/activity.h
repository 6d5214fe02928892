/* Activity: which primal values may carry a tangent. */
#ifndef TANJIT_AD_ANALYSIS_ACTIVITY_H
#define TANJIT_AD_ANALYSIS_ACTIVITY_H

#include <llvm-c/Core.h>

#include "ad/core/context.h"

/* activity.c: fills fc->active for fc->sig's function (fixpoint over the
 * body). */
int ad_activity_analyze(ad_fn_ctx *fc);
/* TANJIT_AD_NO_ACTIVITY is set (read once per process): assume every
 * integer and stack slot may carry a derivative, for measuring. */
int ad_activity_disabled(void);
int ad_is_active(const ad_fn_ctx *fc, LLVMValueRef primal);
/* Strips GEPs and casts from a pointer: the allocation it points into. */
LLVMValueRef ad_pointer_root(LLVMValueRef p);
/* Whether defined function `fn`, or one it calls directly, uses an
 * active global: its calls need its derivative even with no active
 * argument. */
int ad_function_touches_active_globals(ad_module_ctx *mc, LLVMValueRef fn);

/* pointer_access.c: whether `call` (an instruction of a function with a
 * body) may write memory that its pointer operand k reaches, through its
 * callees' bodies: 0 only when no code it may run stores there or lets the
 * pointer escape where that cannot be seen.  Out of memory answers 1. */
int ad_call_may_write_argument(ad_module_ctx *mc, LLVMValueRef call,
                               unsigned k);
/* pointer_access.c: whether parameter `param` of a function with a body
 * points to memory that the function, or code it may call, may read
 * (reads by known-inactive functions aside): 0 only when every way the
 * pointer goes is seen and none reads.  Out of memory answers 1. */
int ad_function_may_read_parameter(ad_module_ctx *mc, LLVMValueRef param);
/* pointer_access.c: whether p points into the memory of a parameter of
 * fn that its activity (nparams entries) marks constant (activity[k] == 0:
 * AD_ARG_CONST and AD_REV_CONST alike) and that nothing fn runs reads
 * back: active values
 * written there carry no derivative anything reads.  p counts as the
 * parameter's when moved by GEPs and casts from it, or from a load of a
 * local slot that only ever holds it (clang -O0).  Both modes ask it of a
 * store into memory with no shadow in a request's own function
 * (rev/aug.c, rules/inst.c). */
int ad_points_into_unread_constant(ad_module_ctx *mc, LLVMValueRef fn,
                                   const unsigned char *activity,
                                   unsigned nparams, LLVMValueRef p);

/* unneeded_memory.c: whether pointer p (a primal value of fc's function)
 * reaches only memory whose primal the caller does not need: an
 * enzyme_dupnoneed parameter of fc's signature moved by GEPs and casts,
 * through PHIs and selects all of whose inputs are such pointers.  Forward
 * mode drops primal stores, copies and sets there (fwd/unneeded.c). */
int ad_points_only_into_unneeded(const ad_fn_ctx *fc, LLVMValueRef p);
/* The same question's parameters: bit i for enzyme_dupnoneed parameter i
 * (bit 63 for any past 62) that p may point into; 0 when p may point
 * elsewhere too. */
unsigned long long ad_unneeded_parameters(const ad_fn_ctx *fc, LLVMValueRef p);

/* default_activity.c: Enzyme's default activity for an unmarked request
 * argument (whatType): float, pointer and aggregates of them are
 * duplicated, integers constant. */
ad_arg_activity ad_type_default_activity(LLVMTypeRef t);

#endif
