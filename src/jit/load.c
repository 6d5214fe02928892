/*
 * Loading: bytes, files and in-process modules become a verified module in
 * a context of its own, then are handed to the session (session.c).
 *
 * Text and bitcode are told apart by content, not by file name: frontends
 * hand over buffers without names.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/DebugInfo.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

static int is_bitcode(const unsigned char *p, size_t len) {
  static const unsigned char raw[] = {'B', 'C', 0xC0, 0xDE};
  static const unsigned char wrapper[] = {0xDE, 0xC0, 0x17, 0x0B};
  return len >= 4 && (memcmp(p, raw, 4) == 0 || memcmp(p, wrapper, 4) == 0);
}

int jit_is_bitcode(const void *data, size_t len) { return is_bitcode(data, len); }

/*
 * The deepest nesting of (), [] and {} in IR text, outside strings and
 * comments.  LLVM's parser recurses once per level (types, constant
 * expressions, metadata): beyond JIT_MAX_TEXT_NESTING even the big stack
 * could overflow, so such text is refused before LLVM sees it.
 */
static size_t text_nesting(const char *p, size_t len) {
  size_t depth = 0, deepest = 0;
  for (size_t i = 0; i < len; i++) {
    char c = p[i];
    if (c == '"') { /* LLVM writes a quote in a string as \22 */
      while (++i < len && p[i] != '"')
        ;
    } else if (c == ';') {
      while (++i < len && p[i] != '\n')
        ;
    } else if (c == '(' || c == '[' || c == '{') {
      if (++depth > deepest)
        deepest = depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth) {
      depth--;
    }
  }
  return deepest;
}

/*
 * Debug info LLVM's auto-upgrade would have dropped (it is switched off,
 * since it prints; diagnostics.c): debug info of another version than
 * LLVM's, and debug info the verifier finds broken.  Each drop is a
 * warning.  Returns the verifier's complaint about the rest of the module
 * (caller frees), or NULL when it is valid.
 */
static char *verify_dropping_bad_debug_info(tanjit_session *s, LLVMModuleRef m,
                                            const char *name) {
  unsigned version = LLVMGetModuleDebugMetadataVersion(m);
  if (version != LLVMDebugMetadataVersion() && LLVMStripModuleDebugInfo(m))
    jit_add_warning(s,
                    "%s: debug info of version %u (not LLVM's %u) was dropped",
                    name, version, LLVMDebugMetadataVersion());
  char *msg = NULL;
  if (!LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    LLVMDisposeMessage(msg);
    return NULL;
  }
  char *first = NULL;
  if (LLVMStripModuleDebugInfo(m)) {
    char *again = NULL;
    if (!LLVMVerifyModule(m, LLVMReturnStatusAction, &again)) {
      size_t n = msg ? strcspn(msg, "\n") : 0;
      jit_add_warning(s, "%s: invalid debug info was dropped: %.*s", name,
                      (int)n, msg ? msg : "");
      LLVMDisposeMessage(again);
      LLVMDisposeMessage(msg);
      return NULL;
    }
    first = tj_strdup(again ? again : "");
    LLVMDisposeMessage(again);
  } else {
    first = tj_strdup(msg ? msg : "");
  }
  LLVMDisposeMessage(msg);
  return first ? first : tj_strdup("");
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

int jit_parse_module(tanjit_session *s, LLVMContextRef ctx, const void *data,
                     size_t len, const char *name, LLVMModuleRef *out,
                     tanjit_error **err) {
  *out = NULL;
  int bitcode = is_bitcode(data, len);
  if (!bitcode && text_nesting(data, len) > JIT_MAX_TEXT_NESTING)
    return tj_fail(err, TANJIT_ERR_PARSE,
                   "%s: brackets nest more than %d deep, more than tanjit "
                   "lets LLVM's recursive parser take",
                   name, JIT_MAX_TEXT_NESTING);
  /* The copy is NUL-terminated, which the text parser requires. */
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(data, len, name);
  char *msg = NULL;
  LLVMModuleRef m = NULL;
  jit_install_diagnostics(ctx, s);
  jit_clear_diagnostic_errors();
  LLVMBool failed = bitcode ? LLVMParseBitcodeInContext2(ctx, buf, &m)
                            : jit_parse_ir_text(ctx, buf, name, &m, &msg);
  char *diagnostics = jit_take_diagnostic_errors();
  LLVMDisposeMemoryBuffer(buf);
  if (failed || diagnostics) {
    if (bitcode)
      tj_fail(err, TANJIT_ERR_PARSE,
              "%s: invalid or truncated LLVM bitcode (%zu bytes): %s", name,
              len, diagnostics ? diagnostics : "unreadable");
    else
      tj_fail(err, TANJIT_ERR_PARSE, "malformed LLVM IR: %s",
              msg ? msg : diagnostics ? diagnostics : name);
    LLVMDisposeMessage(msg);
    free(diagnostics);
    if (!failed && m)
      LLVMDisposeModule(m);
    return -1;
  }
  LLVMDisposeMessage(msg);
  char *broken = verify_dropping_bad_debug_info(s, m, name);
  if (broken) {
    tj_fail(err, TANJIT_ERR_VERIFY, "%s: the module fails LLVM's verifier: %s",
            name, broken);
    free(broken);
    LLVMDisposeModule(m);
    return -1;
  }
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
  /* the session's record id (session.c): a module bringing one could pass
   * for another module when it is compiled */
  if (LLVMGetNamedMetadata(m, JIT_MODULE_ID_METADATA,
                           sizeof JIT_MODULE_ID_METADATA - 1)) {
    tj_fail(err, TANJIT_ERR_LINK,
            "%s: the module holds the named metadata `!" JIT_MODULE_ID_METADATA
            "`, reserved for tanjit's own use: drop it",
            name);
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
  *out = m;
  return 0;
}

/*
 * Only a regular file is read, and only up to max_bytes: a device
 * (/dev/zero), a FIFO or a terminal would be read until memory runs out.
 * The size is taken from the open file itself, so a file swapped after
 * the check is not read past it.
 */
int jit_read_file(const char *path, size_t max_bytes, char **data, size_t *len,
                  tanjit_error **err) {
  *data = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return tj_fail(err, TANJIT_ERR_IO, "cannot open %s: %s", path,
                   strerror(errno));
  struct stat st;
  if (fstat(fd, &st)) {
    int e = errno;
    close(fd);
    return tj_fail(err, TANJIT_ERR_IO, "cannot read %s: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return tj_fail(err, TANJIT_ERR_IO,
                   "cannot read %s: not a regular file (a %s)", path,
                   S_ISDIR(st.st_mode)    ? "directory"
                   : S_ISCHR(st.st_mode)  ? "character device"
                   : S_ISBLK(st.st_mode)  ? "block device"
                   : S_ISFIFO(st.st_mode) ? "pipe"
                   : S_ISSOCK(st.st_mode) ? "socket"
                                          : "special file");
  }
  if ((unsigned long long)st.st_size > max_bytes) {
    close(fd);
    return tj_fail(err, TANJIT_ERR_IO,
                   "cannot read %s: %lld bytes, more than the limit of %zu "
                   "(tanjit_options.max_input_bytes)",
                   path, (long long)st.st_size, max_bytes);
  }
  size_t size = (size_t)st.st_size;
  char *buf = tj_malloc(size ? size : 1);
  if (!buf) {
    close(fd);
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory reading %s (%zu bytes)",
                   path, size);
  }
  size_t n = 0;
  while (n < size) {
    ssize_t got = read(fd, buf + n, size - n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      int e = got < 0 ? errno : 0;
      close(fd);
      free(buf);
      return tj_fail(err, TANJIT_ERR_IO, "cannot read %s: %s", path,
                     e ? strerror(e) : "the file shrank while being read");
    }
    n += (size_t)got;
  }
  close(fd);
  *data = buf;
  *len = n;
  return 0;
}

typedef struct load_job {
  tanjit_session *session;
  const void *buf;
  size_t len;
  const char *name;
  LLVMModuleRef module; /* tanjit_load_module: serialized on the big stack */
  tanjit_error **err;
  int rc;
} load_job;

/* Parse, verify, validate and add, on a big stack: each of them (and the
 * bitcode writer keeping the pristine copy) recurses on nesting. */
static void load_on_big_stack(void *p) {
  load_job *job = p;
  LLVMMemoryBufferRef bc = NULL;
  if (job->module) {
    jit_canonicalize_markers(job->module); /* before bitcode drops them */
    bc = LLVMWriteBitcodeToMemoryBuffer(job->module);
    LLVMDisposeModule(job->module); /* ownership was ours from the call */
    job->module = NULL;
    if (!bc) {
      job->rc = tj_fail(job->err, TANJIT_ERR_NO_MEMORY,
                        "out of memory copying a module");
      return;
    }
    job->buf = LLVMGetBufferStart(bc);
    job->len = LLVMGetBufferSize(bc);
  }
  jit_context c;
  jit_context_create(&c);
  LLVMModuleRef m;
  if (jit_parse_module(job->session, c.ctx, job->buf ? job->buf : "", job->len,
                       job->name, &m, job->err) ||
      jit_validate_module(job->session, m, job->name, job->err)) {
    if (m)
      LLVMDisposeModule(m);
    jit_context_abandon(&c);
    job->rc = -1;
  } else {
    job->rc = jit_session_add_loaded(job->session, &c, m, job->name, job->buf,
                                     job->len, job->err);
  }
  if (bc)
    LLVMDisposeMemoryBuffer(bc);
}

int tanjit_load_memory(tanjit_session *s, const void *buf, size_t len,
                       const char *name, tanjit_error **err) {
  if (!s || (!buf && len))
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_load_memory: session and buffer are required");
  if (!name)
    name = "<memory>";
  /* Untrusted bitcode is read in the helper process first; what is parsed
   * here is its output (bitcode_sandbox.c).  tanjit_load_module's copy is
   * LLVM's own writing and does not come this way. */
  char *checked = NULL;
  if (jit_bitcode_untrusted(s, buf, len)) {
    if (jit_bitcode_sanitize(s, buf, len, name, &checked, &len, err))
      return -1;
    buf = checked;
  }
  load_job job = {s, buf, len, name, NULL, err, -1};
  jit_run_on_big_stack(load_on_big_stack, &job);
  free(checked);
  return job.rc;
}

int tanjit_load_file(tanjit_session *s, const char *path, tanjit_error **err) {
  if (!s || !path)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_load_file: session and path are required");
  char *data;
  size_t len;
  if (jit_read_file(path, s->max_input_bytes, &data, &len, err))
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
  int rc;
  if (!s || !name) {
    LLVMDisposeModule(m); /* ownership was ours from the call */
    rc = !s ? tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                      "tanjit_load_module: session is required")
            : tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory copying a module");
  } else {
    load_job job = {s, NULL, 0, *name ? name : "<module>", m, err, -1};
    jit_run_on_big_stack(load_on_big_stack, &job);
    rc = job.rc;
  }
  free(name);
  return rc;
}
