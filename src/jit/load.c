/*
 * Loading: bytes, files and in-process modules become a verified module in
 * a context of its own, then are handed to the session (session.c).
 *
 * Text and bitcode are told apart by content, not by file name: frontends
 * hand over buffers without names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

static int is_bitcode(const unsigned char *p, size_t len) {
  static const unsigned char raw[] = {'B', 'C', 0xC0, 0xDE};
  static const unsigned char wrapper[] = {0xDE, 0xC0, 0x17, 0x0B};
  return len >= 4 && (memcmp(p, raw, 4) == 0 || memcmp(p, wrapper, 4) == 0);
}

/*
 * LLVM's default diagnostic handler prints and calls exit(1) on an error
 * (LLVMParseBitcodeInContext2 reports through it): capture the text while
 * parsing, and ignore afterwards rather than exit.
 */
static void capture_diagnostic(LLVMDiagnosticInfoRef di, void *ctx) {
  if (!ctx || LLVMGetDiagInfoSeverity(di) != LLVMDSError)
    return;
  char *text = LLVMGetDiagInfoDescription(di);
  strbuf *sb = ctx;
  if (sb->len)
    sb_append(sb, "; ");
  sb_append(sb, text);
  LLVMDisposeMessage(text);
}

void jit_silence_diagnostics(LLVMContextRef ctx) {
  LLVMContextSetDiagnosticHandler(ctx, capture_diagnostic, NULL);
}

int jit_parse_module(LLVMContextRef ctx, const void *data, size_t len,
                     const char *name, LLVMModuleRef *out, tanjit_error **err) {
  *out = NULL;
  int bitcode = is_bitcode(data, len);
  /* The copy is NUL-terminated, which the text parser requires. */
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(data, len, name);
  char *msg = NULL;
  LLVMModuleRef m = NULL;
  strbuf diagnostics;
  sb_init(&diagnostics);
  LLVMContextSetDiagnosticHandler(ctx, capture_diagnostic, &diagnostics);
  LLVMBool failed = bitcode ? LLVMParseBitcodeInContext2(ctx, buf, &m)
                            : jit_parse_ir_text(ctx, buf, name, &m, &msg);
  jit_silence_diagnostics(ctx);
  LLVMDisposeMemoryBuffer(buf);
  if (failed) {
    if (bitcode)
      tj_fail(err, TANJIT_ERR_PARSE,
              "%s: invalid or truncated LLVM bitcode (%zu bytes): %s", name,
              len, diagnostics.data ? diagnostics.data : "unreadable");
    else
      tj_fail(err, TANJIT_ERR_PARSE, "malformed LLVM IR: %s",
              msg ? msg : name);
    LLVMDisposeMessage(msg);
    sb_free(&diagnostics);
    return -1;
  }
  LLVMDisposeMessage(msg);
  sb_free(&diagnostics);
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    tj_fail(err, TANJIT_ERR_VERIFY, "%s: the module fails LLVM's verifier: %s",
            name, msg ? msg : "");
    LLVMDisposeMessage(msg);
    LLVMDisposeModule(m);
    return -1;
  }
  LLVMDisposeMessage(msg);
  /* Julia's GOTs are bound here, before anything copies the module, so every
   * later view of it (the JIT's, a derivative's) sees direct calls. */
  jit_canonicalize_markers(m);
  /* Registrations become metadata now, before anything copies the module
   * (the pristine copy behind tanjit_fwddiff keeps no global initializers). */
  jit_drop_julia_gc_preserve(m);
  if (ad_custom_read_registrations(m, 1, err) || jit_bind_julia_plt(m, err)) {
    LLVMDisposeModule(m);
    return -1;
  }
  if (!*LLVMGetTarget(m)) {
    char *triple = LLVMGetDefaultTargetTriple();
    LLVMSetTarget(m, triple);
    LLVMDisposeMessage(triple);
  }
  *out = m;
  return 0;
}

int jit_read_file(const char *path, char **data, size_t *len,
                  tanjit_error **err) {
  *data = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f)
    return tj_fail(err, TANJIT_ERR_IO, "cannot open %s: %s", path,
                   strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = tj_malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap)
      break;
    char *grown = tj_realloc(buf, cap *= 2);
    if (!grown)
      free(buf);
    buf = grown;
  }
  int read_error = ferror(f) ? errno : 0;
  fclose(f);
  if (!buf)
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory reading %s", path);
  if (read_error) {
    free(buf);
    return tj_fail(err, TANJIT_ERR_IO, "cannot read %s: %s", path,
                   strerror(read_error));
  }
  *data = buf;
  *len = n;
  return 0;
}

int jit_is_bitcode(const void *data, size_t len) {
  return is_bitcode(data, len);
}

/* `trusted`: the bytes come from tanjit's own bitcode writer (or the
 * caller said to trust them), so they skip the sandboxed reader. */
static int load_memory(tanjit_session *s, const void *buf, size_t len,
                       const char *name, int trusted, tanjit_error **err) {
  if (!s || (!buf && len))
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_load_memory: session and buffer are required");
  if (!name)
    name = "<memory>";
  char *checked = NULL;
  if (!trusted && jit_bitcode_untrusted(s, buf, len)) {
    if (jit_bitcode_sanitize(s, buf, len, name, &checked, &len, err))
      return -1;
    buf = checked;
  }
  jit_context c;
  jit_context_create(&c);
  LLVMModuleRef m;
  int rc = jit_parse_module(c.ctx, buf ? buf : "", len, name, &m, err);
  free(checked);
  if (rc) {
    jit_context_abandon(&c);
    return -1;
  }
  return jit_session_add_module(s, &c, m, name, 0, err);
}

int tanjit_load_memory(tanjit_session *s, const void *buf, size_t len,
                       const char *name, tanjit_error **err) {
  return load_memory(s, buf, len, name, 0, err);
}

int tanjit_load_file(tanjit_session *s, const char *path, tanjit_error **err) {
  if (!s || !path)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_load_file: session and path are required");
  char *data;
  size_t len;
  if (jit_read_file(path, &data, &len, err))
    return -1;
  int rc = tanjit_load_memory(s, data, len, path, err);
  free(data);
  return rc;
}

/*
 * The frontend's module lives in the frontend's context, which tanjit cannot
 * own; a bitcode round trip moves it into a context of tanjit's own.
 */
int tanjit_load_module(tanjit_session *s, struct LLVMOpaqueModule *m,
                       tanjit_error **err) {
  if (!m)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_load_module: module is required");
  size_t len;
  const char *ident = LLVMGetModuleIdentifier(m, &len);
  char *name = tj_malloc(len + 1);
  if (name) {
    memcpy(name, ident, len);
    name[len] = '\0';
  }
  jit_canonicalize_markers(m); /* before bitcode drops them */
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
  LLVMDisposeModule(m); /* ownership was ours from the call */
  int rc;
  if (!s)
    rc = tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                 "tanjit_load_module: session is required");
  else if (!bc || !name)
    rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory copying a module");
  else
    /* Written just now by LLVM from a module already in memory: trusted. */
    rc = load_memory(s, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc),
                     *name ? name : "<module>", 1, err);
  if (bc)
    LLVMDisposeMemoryBuffer(bc);
  free(name);
  return rc;
}
