#include "common/alloc.h"
#include "common/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(strbuf *sb) { memset(sb, 0, sizeof *sb); }

void sb_free(strbuf *sb) {
  free(sb->data);
  sb_init(sb);
}

static int sb_reserve(strbuf *sb, size_t extra) {
  if (sb->failed)
    return -1;
  if (sb->len + extra + 1 <= sb->cap)
    return 0;
  size_t cap = sb->cap ? sb->cap : 64;
  while (cap < sb->len + extra + 1)
    cap *= 2;
  char *p = tj_realloc(sb->data, cap);
  if (!p) {
    sb->failed = 1;
    return -1;
  }
  sb->data = p;
  sb->cap = cap;
  return 0;
}

void sb_appendn(strbuf *sb, const char *s, size_t n) {
  if (sb_reserve(sb, n))
    return;
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void sb_append(strbuf *sb, const char *s) { sb_appendn(sb, s, strlen(s)); }

void sb_vprintf(strbuf *sb, const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n < 0 || sb_reserve(sb, (size_t)n))
    return;
  vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  sb->len += (size_t)n;
}

void sb_printf(strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

char *sb_take(strbuf *sb) {
  char *p = sb->data;
  if (!p)
    p = tj_strdup("");
  sb_init(sb);
  return p;
}

char *tj_strndup(const char *s, size_t n) {
  /* at most n bytes, and none past a NUL within them (as POSIX strndup):
   * callers pass LLVM's (pointer, length) names, not always terminated,
   * and C strings with a length bound */
  size_t len = 0;
  while (len < n && s[len])
    len++;
  char *p = tj_malloc(len + 1);
  if (!p)
    return NULL;
  memcpy(p, s, len);
  p[len] = '\0';
  return p;
}

char *tj_strdup(const char *s) { return s ? tj_strndup(s, strlen(s)) : NULL; }
