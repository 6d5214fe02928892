/* Errors that say what, where and why (core/diag.c). */
#ifndef TANJIT_AD_CORE_DIAG_H
#define TANJIT_AD_CORE_DIAG_H

#include <llvm-c/Core.h>

#include "common/error.h"

typedef struct ad_module_ctx ad_module_ctx; /* core/context.h */

/* A transform's error state, part of its module context (context.h): the
 * first error is stored, later ones are dropped. */
typedef struct ad_diag {
  tanjit_error **err; /* where the error goes; may be NULL */
  int failed;         /* an error is already stored in *err */
  tanjit_error_code failed_code; /* its code, also when err is NULL */
} ad_diag;

/* Fails with TANJIT_ERR_DIFFERENTIATE: "<message> in <function> at
 * <file>:<line>" (the location from `where`'s !dbg when present; `where` may
 * be an instruction, a function, or NULL).  Returns -1; never overwrites an
 * error already stored. */
int ad_fail(ad_module_ctx *mc, LLVMValueRef where, const char *fmt, ...)
    TJ_PRINTF(3, 4);
int ad_fail_code(ad_module_ctx *mc, tanjit_error_code code, LLVMValueRef where,
                 const char *fmt, ...) TJ_PRINTF(4, 5);
/* Where `where` is, as errors say it: " in <function> at <file>:<line>"
 * (the line when the IR carries !dbg; "" when nothing is known).  Caller
 * frees; NULL on out of memory. */
char *ad_location_text(LLVMValueRef where);
/* The printed text of a value, truncated for messages (caller frees). */
char *ad_value_text(LLVMValueRef v);
/* The name of a value ("<unnamed>" when it has none); borrowed. */
const char *ad_value_name(LLVMValueRef v);
/* Names the session gave module-private symbols at load
 * (<name>.tanjit.m<N>, src/jit/session.c) made, in place, as the frontend
 * wrote them: for text a user reads. */
void ad_strip_session_suffixes(char *s);

#endif
