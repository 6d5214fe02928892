/*
 * The names a renamed ccall carries (Julia-style lazy binding), parsed in
 * one place for the JIT that binds them (src/jit/resolve.c) and the engine
 * that reads a call's rule name through them (src/ad):
 *   ejlstr$<fn>$<lib>     fn from library lib (a soname or a path), opened
 *                         RTLD_LOCAL
 *   ejlptr$<fn>$<handle>  fn from a library already open (its handle)
 * lib runs to the end of the name, so a path holding '$' still works.
 */
#ifndef TANJIT_COMMON_RENAME_H
#define TANJIT_COMMON_RENAME_H

#include <stddef.h>

#define TJ_RENAME_LIBRARY "ejlstr$"
#define TJ_RENAME_HANDLE "ejlptr$"

typedef enum tj_rename_kind {
  TJ_RENAME_FROM_LIBRARY, /* ejlstr$ */
  TJ_RENAME_FROM_HANDLE   /* ejlptr$ */
} tj_rename_kind;

typedef struct tj_rename {
  tj_rename_kind kind;
  const char *prefix; /* TJ_RENAME_LIBRARY or TJ_RENAME_HANDLE (static) */
  const char *fn;     /* fn_len bytes into the name, not NUL-terminated */
  size_t fn_len;
  const char *lib;    /* NUL-terminated: the rest of the name */
} tj_rename;

/* 1: `name` is a rename, parts in *out (may be NULL); 0: it is not; -1: it
 * has a rename's prefix but not its shape (an empty fn or lib: nothing can
 * bind it). */
int tj_parse_rename(const char *name, tj_rename *out);

#endif
