/*
 * Diagnostics: every engine error names what failed, the function it sits
 * in and, when the IR carries !dbg, the source file and line.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "common/strbuf.h"

const char *ad_value_name(LLVMValueRef v) {
  size_t n = 0;
  const char *s = v ? LLVMGetValueName2(v, &n) : NULL;
  return (s && n) ? s : "<unnamed>";
}

char *ad_value_text(LLVMValueRef v) {
  char *s = LLVMPrintValueToString(v);
  char *copy;
  size_t n = strlen(s);
  /* A whole function or a huge constant would drown the message. */
  if (n > 300)
    n = 300;
  copy = tj_strndup(s, n);
  LLVMDisposeMessage(s);
  return copy;
}

/* The function holding `where`, if any. */
static LLVMValueRef function_of(LLVMValueRef where) {
  if (!where)
    return NULL;
  if (LLVMIsAFunction(where))
    return where;
  if (LLVMIsAInstruction(where)) {
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(where);
    return bb ? LLVMGetBasicBlockParent(bb) : NULL;
  }
  if (LLVMIsAArgument(where))
    return LLVMGetParamParent(where);
  return NULL;
}

static void append_location(strbuf *sb, LLVMValueRef where) {
  LLVMValueRef fn = function_of(where);
  if (fn)
    sb_printf(sb, " in %s", ad_value_name(fn));
  if (where && LLVMIsAInstruction(where) && LLVMInstructionGetDebugLoc(where)) {
    unsigned len = 0;
    const char *file = LLVMGetDebugLocFilename(where, &len);
    unsigned line = LLVMGetDebugLocLine(where);
    if (file && len)
      sb_printf(sb, " at %.*s:%u", (int)len, file, line);
    else
      sb_printf(sb, " at line %u", line);
  }
}

void ad_strip_session_suffixes(char *s) {
  static const char tag[] = TANJIT_PRIVATE_SUFFIX;
  char *w = s;
  for (const char *r = s; *r;) {
    if (strncmp(r, tag, sizeof tag - 1) == 0 &&
        isdigit((unsigned char)r[sizeof tag - 1])) {
      r += sizeof tag - 1;
      while (isdigit((unsigned char)*r))
        r++;
      continue;
    }
    *w++ = *r++;
  }
  *w = 0;
}

/* The same location as fields of the error (tanjit_error_function ...). */
static void record_location(tanjit_error *e, LLVMValueRef where) {
  LLVMValueRef fn = function_of(where);
  char *function = fn ? tj_strdup(ad_value_name(fn)) : NULL;
  char *inst = where && LLVMIsAInstruction(where) ? ad_value_text(where) : NULL;
  char *file = NULL;
  unsigned line = 0, column = 0;
  if (inst && LLVMInstructionGetDebugLoc(where)) {
    unsigned len = 0;
    const char *f = LLVMGetDebugLocFilename(where, &len);
    file = f && len ? tj_strndup(f, len) : NULL;
    line = LLVMGetDebugLocLine(where);
    column = LLVMGetDebugLocColumn(where);
  }
  if (function)
    ad_strip_session_suffixes(function);
  if (inst)
    ad_strip_session_suffixes(inst);
  tj_error_set_location(e, function, inst ? inst + strspn(inst, " ") : NULL,
                        file, line, column);
  free(function), free(inst), free(file);
}

char *ad_location_text(LLVMValueRef where) {
  strbuf sb;
  sb_init(&sb);
  append_location(&sb, where);
  if (sb.failed) {
    sb_free(&sb);
    return NULL;
  }
  if (!sb.data)
    return tj_strdup("");
  ad_strip_session_suffixes(sb.data);
  return sb_take(&sb);
}

static int vfail(ad_module_ctx *mc, tanjit_error_code code, LLVMValueRef where,
                 const char *fmt, va_list ap) {
  if (mc->diag.failed)
    return -1;
  mc->diag.failed = 1;
  mc->diag.failed_code = code;
  strbuf sb;
  sb_init(&sb);
  sb_vprintf(&sb, fmt, ap);
  append_location(&sb, where);
  if (sb.data)
    ad_strip_session_suffixes(sb.data);
  tj_fail(mc->diag.err, code, "%s", sb.data ? sb.data : "differentiation failed");
  sb_free(&sb);
  if (mc->diag.err)
    record_location(*mc->diag.err, where);
  return -1;
}

int ad_fail(ad_module_ctx *mc, LLVMValueRef where, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(mc, TANJIT_ERR_DIFFERENTIATE, where, fmt, ap);
  va_end(ap);
  return -1;
}

int ad_fail_code(ad_module_ctx *mc, tanjit_error_code code, LLVMValueRef where,
                 const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(mc, code, where, fmt, ap);
  va_end(ap);
  return -1;
}
