/* A growable NUL-terminated string; the one way tanjit builds messages. */
#ifndef TANJIT_COMMON_STRBUF_H
#define TANJIT_COMMON_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "common/error.h"

typedef struct strbuf {
  char *data; /* NUL-terminated, or NULL while empty */
  size_t len, cap;
  int failed; /* an allocation failed: contents are truncated */
} strbuf;

void sb_init(strbuf *sb);
void sb_free(strbuf *sb);
void sb_append(strbuf *sb, const char *s);
void sb_appendn(strbuf *sb, const char *s, size_t n);
void sb_printf(strbuf *sb, const char *fmt, ...) TJ_PRINTF(2, 3);
void sb_vprintf(strbuf *sb, const char *fmt, va_list ap);
/* Hands the buffer to the caller (free()); the strbuf is left empty. */
char *sb_take(strbuf *sb);
/* tj_strdup, tj_strndup: common/alloc.h */
#include "common/alloc.h"

#endif
