/* Module passes before differentiation (engine.c runs them on a module that
 * requests derivatives). */
#ifndef TANJIT_AD_PREP_PREP_H
#define TANJIT_AD_PREP_PREP_H

#include <llvm-c/Core.h>

#include "common/error.h"

/* preprocess.c: drops optnone and promotes stack slots (SROA).  0, or -1
 * with *err set. */
int ad_preprocess_module(LLVMModuleRef m, tanjit_error **err);
/* signbits.c: fabs, fneg, copysign written as masks on a float's bits. */
void ad_rewrite_sign_bit_operations(LLVMModuleRef m);

#endif
