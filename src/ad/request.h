/* request.c: one derivative request (engine.c finds them). */
#ifndef TANJIT_AD_REQUEST_H
#define TANJIT_AD_REQUEST_H

#include <llvm-c/Core.h>

#include "ad/core/context.h"

/* Rewrites one __enzyme_fwddiff call.  0 or -1. */
int ad_rewrite_request(ad_module_ctx *mc, LLVMValueRef call);

/* batch.c: rewrites one __enzyme_batch call into one call of its
 * function per lane.  0 or -1. */
int ad_rewrite_batch(ad_module_ctx *mc, LLVMValueRef call);

#endif
