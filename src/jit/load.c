/*
 * Loading: bytes, files and in-process modules become a verified module in
 * a context of its own, then are handed to the session (session.c).
 *
 * Text and bitcode are told apart by content, not by file name: frontends
 * hand over buffers without names.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>

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

/* Whether a module's symbol takes a name tanjit gives its own: "tanjit."
 * (the run-time request wrappers tanjit.fwddiff.<n>, the views' anchors
 * and placeholders) or the session's renames of module-private symbols
 * (<name>.tanjit.m<N>, session.c).  A module defining or declaring one
 * could stand in for them (tanjit_fwddiff would return its function). */
static int is_reserved_name(LLVMValueRef g) {
  static const char prefix[] = "tanjit.";
  size_t n;
  const char *name = LLVMGetValueName2(g, &n);
  if (n >= sizeof prefix - 1 && memcmp(name, prefix, sizeof prefix - 1) == 0)
    return 1;
  size_t tag = sizeof TANJIT_PRIVATE_SUFFIX - 1;
  for (size_t i = 0; i + tag < n; i++)
    if (memcmp(name + i, TANJIT_PRIVATE_SUFFIX, tag) == 0 &&
        isdigit((unsigned char)name[i + tag]))
      return 1;
  return 0;
}

/* The first symbol of m with a reserved name, or NULL. */
static LLVMValueRef reserved_symbol(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (is_reserved_name(f))
      return f;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (is_reserved_name(g))
      return g;
  for (LLVMValueRef a = LLVMGetFirstGlobalAlias(m); a; a = LLVMGetNextGlobalAlias(a))
    if (is_reserved_name(a))
      return a;
  for (LLVMValueRef i = LLVMGetFirstGlobalIFunc(m); i; i = LLVMGetNextGlobalIFunc(i))
    if (is_reserved_name(i))
      return i;
  return NULL;
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
  LLVMValueRef reserved = reserved_symbol(m);
  if (reserved) {
    size_t n;
    const char *what = LLVMGetValueName2(reserved, &n);
    tj_fail(err, TANJIT_ERR_LINK,
            "%s: the module %s `%.*s`, a name reserved for tanjit's own "
            "symbols (names beginning with `tanjit.` or holding `"
            TANJIT_PRIVATE_SUFFIX "<N>`): rename it",
            name, LLVMIsDeclaration(reserved) ? "declares" : "defines",
            (int)(n > 200 ? 200 : n), what);
    LLVMDisposeModule(m);
    return -1;
  }
  jit_drop_request_stubs(m);
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
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap)
      break;
    char *grown = realloc(buf, cap *= 2);
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

int tanjit_load_memory(tanjit_session *s, const void *buf, size_t len,
                       const char *name, tanjit_error **err) {
  if (!s || (!buf && len))
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_load_memory: session and buffer are required");
  if (!name)
    name = "<memory>";
  jit_context c;
  jit_context_create(&c);
  LLVMModuleRef m;
  if (jit_parse_module(c.ctx, buf ? buf : "", len, name, &m, err)) {
    jit_context_abandon(&c);
    return -1;
  }
  return jit_session_add_module(s, &c, m, name, 0, err);
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
  char *name = malloc(len + 1);
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
    rc = tanjit_load_memory(s, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc),
                            *name ? name : "<module>", err);
  if (bc)
    LLVMDisposeMemoryBuffer(bc);
  free(name);
  return rc;
}
