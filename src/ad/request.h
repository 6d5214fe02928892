/* request.c: one derivative request (engine.c finds them). */
#ifndef TANJIT_AD_REQUEST_H
#define TANJIT_AD_REQUEST_H

#include <llvm-c/Core.h>

#include "ad/core/context.h"

/* The operands every request (forward, reverse, batch) starts with: an
 * sret pointer where the call marks its first operand so, then the
 * function. */
typedef struct ad_request_head {
  LLVMValueRef sret; /* NULL without one */
  LLVMValueRef fn;   /* the function operand, casts stripped: not always a
                      * function (the caller says what it wants) */
  unsigned fn_at;    /* its operand index */
  unsigned nargs;    /* the call's argument operands */
} ad_request_head;
/* Reads the head of request `call` (`who` names the request in errors).
 * 0, or -1 after "<who> called without a function". */
int ad_request_head_read(ad_module_ctx *mc, LLVMValueRef call,
                         const char *who, ad_request_head *h);

/* Whether `call` is an __enzyme_augmentsize request: it becomes a
 * constant that other requests' enzyme_allocated N must read as one, so
 * engine.c rewrites it before them. */
int ad_request_is_tape_size(LLVMValueRef call);

/* Rewrites one __enzyme_fwddiff call.  0 or -1. */
int ad_rewrite_request(ad_module_ctx *mc, LLVMValueRef call);

/* batch.c: rewrites one __enzyme_batch call into one call of its
 * function per lane.  0 or -1. */
int ad_rewrite_batch(ad_module_ctx *mc, LLVMValueRef call);

#endif
