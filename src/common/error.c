#include "common/alloc.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"

/* Returned when even the error cannot be allocated; tanjit_error_free knows
 * not to free it. */
static tanjit_error out_of_memory = {.code = TANJIT_ERR_NO_MEMORY,
                                     .message = (char *)"out of memory"};

static tanjit_error *error_vnew(tanjit_error_code code, const char *fmt,
                                va_list ap) {
  tanjit_error *e = tj_malloc(sizeof *e);
  if (!e)
    return &out_of_memory;
  strbuf sb;
  sb_init(&sb);
  sb_vprintf(&sb, fmt, ap);
  if (sb.failed) {
    sb_free(&sb);
    free(e);
    return &out_of_memory;
  }
  memset(e, 0, sizeof *e);
  e->code = code;
  e->message = sb_take(&sb);
  return e;
}

tanjit_error *tj_error_new(tanjit_error_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tanjit_error *e = error_vnew(code, fmt, ap);
  va_end(ap);
  return e;
}

int tj_fail(tanjit_error **err, tanjit_error_code code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    *err = error_vnew(code, fmt, ap);
    va_end(ap);
  }
  return -1;
}

int tj_fail_llvm(tanjit_error **err, tanjit_error_code code, LLVMErrorRef e,
                 const char *what) {
  char *msg = LLVMGetErrorMessage(e); /* consumes e */
  tj_fail(err, code, "%s: %s", what, msg ? msg : "(no message)");
  LLVMDisposeErrorMessage(msg);
  return -1;
}

void tj_error_prefix(tanjit_error *e, const char *fmt, ...) {
  if (!e || e == &out_of_memory)
    return;
  strbuf sb;
  sb_init(&sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  sb_printf(&sb, ": %s", e->message);
  if (sb.failed) {
    sb_free(&sb);
    return;
  }
  free(e->message);
  e->message = sb_take(&sb);
}

tanjit_error_code tanjit_error_get_code(const tanjit_error *err) {
  return err ? err->code : TANJIT_OK;
}

const char *tanjit_error_message(const tanjit_error *err) {
  return err ? err->message : "";
}

void tanjit_error_free(tanjit_error *err) {
  if (!err || err == &out_of_memory)
    return;
  free(err->message);
  free(err->function);
  free(err->instruction);
  free(err->file);
  free(err);
}

void tj_error_set_location(tanjit_error *e, const char *function,
                           const char *instruction, const char *file,
                           unsigned line, unsigned column) {
  if (!e || e == &out_of_memory)
    return;
  free(e->function);
  free(e->instruction);
  free(e->file);
  /* out of memory leaves a field unknown: the message still says it */
  e->function = function ? tj_strdup(function) : NULL;
  e->instruction = instruction ? tj_strdup(instruction) : NULL;
  e->file = file ? tj_strdup(file) : NULL;
  e->line = line;
  e->column = column;
}

void tj_error_set_message(tanjit_error *e, const char *message) {
  char *copy;
  if (!e || e == &out_of_memory || !(copy = tj_strdup(message)))
    return;
  free(e->message);
  e->message = copy;
}

const char *tanjit_error_function(const tanjit_error *err) {
  return err ? err->function : NULL;
}
const char *tanjit_error_instruction(const tanjit_error *err) {
  return err ? err->instruction : NULL;
}
const char *tanjit_error_file(const tanjit_error *err) {
  return err ? err->file : NULL;
}
unsigned tanjit_error_line(const tanjit_error *err) { return err ? err->line : 0; }
unsigned tanjit_error_column(const tanjit_error *err) {
  return err ? err->column : 0;
}
