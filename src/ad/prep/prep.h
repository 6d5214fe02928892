/* Module passes before differentiation (engine.c runs them on a module that
 * requests derivatives), and the lowering of __enzyme_todense after it. */
#ifndef TANJIT_AD_PREP_PREP_H
#define TANJIT_AD_PREP_PREP_H

#include <llvm-c/Core.h>

#include "common/error.h"

/* preprocess.c: drops optnone and promotes stack slots (SROA).  0, or -1
 * with *err set. */
int ad_preprocess_module(LLVMModuleRef m, tanjit_error **err);
/* signbits.c: fabs, fneg, copysign written as masks on a float's bits. */
void ad_rewrite_sign_bit_operations(LLVMModuleRef m);

/* todense.c: whether f is a declaration of __enzyme_todense or
 * __enzyme_post_sparse_todense (a name holding either: C, C++ manglings). */
int ad_is_todense_function(LLVMValueRef f);
/* todense.c: why a lowering failed: the instruction it names (may be NULL)
 * and the message (owned; NULL on out of memory). */
typedef struct ad_todense_failure {
  LLVMValueRef where;
  char *message;
} ad_todense_failure;
/* todense.c: inlines the functions __enzyme_todense pointers are passed
 * to, then turns each load and store through them into a call of the
 * user's load or store function with the byte offset.  0, or -1 with *f
 * filled (the caller frees f->message). */
int ad_lower_todense(LLVMModuleRef m, ad_todense_failure *f);

#endif
