/*
 * Error objects shared by every layer.  A fallible internal function returns
 * 0/-1 (or NULL) and fills `tanjit_error **err` when err is non-NULL, so the
 * public API can hand the same object straight to the caller.
 */
#ifndef TANJIT_COMMON_ERROR_H
#define TANJIT_COMMON_ERROR_H

#include <llvm-c/Error.h>

#include "tanjit/tanjit.h"

#define TJ_PRINTF(f, a) __attribute__((format(printf, f, a)))

struct tanjit_error {
  tanjit_error_code code;
  char *message;
  /* where, when known (tanjit_error_function and friends); owned */
  char *function, *instruction, *file;
  unsigned line, column;
};

/* A new error; never NULL (falls back to a static out-of-memory object). */
tanjit_error *tj_error_new(tanjit_error_code code, const char *fmt, ...)
    TJ_PRINTF(2, 3);
/* Sets *err (if err) to a new error and returns -1, for `return tj_fail(...)`. */
int tj_fail(tanjit_error **err, tanjit_error_code code, const char *fmt, ...)
    TJ_PRINTF(3, 4);
/* Consumes an LLVMErrorRef into *err with `what: <llvm message>`; returns -1. */
int tj_fail_llvm(tanjit_error **err, tanjit_error_code code, LLVMErrorRef e,
                 const char *what);
/* Records where an error arose (each string copied; any may be NULL). */
void tj_error_set_location(tanjit_error *e, const char *function,
                           const char *instruction, const char *file,
                           unsigned line, unsigned column);
/* Replaces an error's message. */
void tj_error_set_message(tanjit_error *e, const char *message);
/* Prefixes an existing error's message: "<prefix>: <message>". */
void tj_error_prefix(tanjit_error *e, const char *fmt, ...) TJ_PRINTF(2, 3);

#endif
