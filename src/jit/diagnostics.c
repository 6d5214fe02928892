/*
 * LLVM's diagnostics, and the session's warnings.
 *
 * Without a handler LLVM prints a diagnostic to stderr and, for an error,
 * exits the process; with one that ignores them, an error (an inline-asm
 * assembler error: an invalid mnemonic) is lost and the code runs without
 * the instruction.  Every context tanjit creates gets the handler here:
 *
 *   error    kept for the operation under way on this thread (parse,
 *            optimize, codegen run on the thread that asked, see
 *            big_stack.c), which then fails with the text;
 *   warning  appended to the session's warnings (tanjit_session_warning);
 *   remark, note: dropped.
 *
 * Warnings are kept in order, at most JIT_MAX_WARNINGS of them (a host that
 * loads forever does not grow without bound); later ones are counted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Support.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

#define JIT_MAX_WARNINGS 1000

static _Thread_local strbuf thread_errors;
static _Thread_local int thread_errors_ready;

void jit_clear_diagnostic_errors(void) {
  if (thread_errors_ready)
    sb_free(&thread_errors);
  sb_init(&thread_errors);
  thread_errors_ready = 1;
}

char *jit_take_diagnostic_errors(void) {
  if (!thread_errors_ready || !thread_errors.len)
    return NULL;
  char *text = tj_strdup(thread_errors.data);
  jit_clear_diagnostic_errors();
  return text ? text : tj_strdup("out of memory");
}

_Thread_local int jit_thread_quiet_warnings;

static void add_warning_text(tanjit_session *s, char *text) {
  if (jit_thread_quiet_warnings) {
    free(text);
    return;
  }
  jit_session_lock(s);
  if (s->n_warnings >= JIT_MAX_WARNINGS) {
    s->dropped_warnings++;
    free(text);
  } else if (s->n_warnings == s->cap_warnings) {
    size_t cap = s->cap_warnings ? 2 * s->cap_warnings : 8;
    char **p = tj_realloc(s->warnings, cap * sizeof *p);
    if (p) {
      s->warnings = p;
      s->cap_warnings = cap;
      s->warnings[s->n_warnings++] = text;
    } else {
      s->dropped_warnings++;
      free(text);
    }
  } else {
    s->warnings[s->n_warnings++] = text;
  }
  jit_session_unlock(s);
}

void jit_add_warning(tanjit_session *s, const char *fmt, ...) {
  if (!s || jit_thread_quiet_warnings)
    return;
  strbuf sb;
  sb_init(&sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  char *text = sb.failed ? NULL : sb_take(&sb);
  sb_free(&sb);
  if (!text) {
    jit_session_lock(s);
    s->dropped_warnings++;
    jit_session_unlock(s);
    return;
  }
  add_warning_text(s, text);
}

static void handle_diagnostic(LLVMDiagnosticInfoRef di, void *ctx) {
  LLVMDiagnosticSeverity severity = LLVMGetDiagInfoSeverity(di);
  if (severity != LLVMDSError && severity != LLVMDSWarning)
    return;
  char *text = LLVMGetDiagInfoDescription(di);
  if (severity == LLVMDSError) {
    if (!thread_errors_ready)
      jit_clear_diagnostic_errors();
    if (thread_errors.len)
      sb_append(&thread_errors, "; ");
    sb_append(&thread_errors, text ? text : "an LLVM error");
  } else if (ctx) {
    char *copy = tj_strdup(text ? text : "an LLVM warning");
    if (copy)
      add_warning_text(ctx, copy);
  }
  LLVMDisposeMessage(text);
}

void jit_install_diagnostics(LLVMContextRef ctx, tanjit_session *s) {
  LLVMContextSetDiagnosticHandler(ctx, handle_diagnostic, s);
}

/*
 * LLVM's debug-info auto-upgrade runs inside the parsers: on a module whose
 * debug info is broken it prints the verifier's findings to stderr (and on
 * a module broken otherwise calls report_fatal_error) before dropping the
 * debug info.  It is switched off for the process; load.c drops bad debug
 * info itself and says so as a warning.  (A process-wide LLVM option: the
 * host's own LLVM use in the same process no longer auto-upgrades debug
 * info either; README, Reliability.)
 */
static pthread_once_t llvm_options_once = PTHREAD_ONCE_INIT;

static void configure_llvm(void) {
  const char *argv[] = {"tanjit", "-disable-auto-upgrade-debug-info"};
  LLVMParseCommandLineOptions(2, argv, NULL);
}

void jit_configure_llvm_once(void) { pthread_once(&llvm_options_once, configure_llvm); }

size_t tanjit_session_warning_count(tanjit_session *s) {
  if (!s)
    return 0;
  jit_session_lock(s);
  size_t n = s->n_warnings + (s->dropped_warnings ? 1 : 0);
  jit_session_unlock(s);
  return n;
}

const char *tanjit_session_warning(tanjit_session *s, size_t i) {
  if (!s)
    return NULL;
  const char *w = NULL;
  jit_session_lock(s);
  if (i < s->n_warnings) {
    w = s->warnings[i];
  } else if (i == s->n_warnings && s->dropped_warnings) {
    static const char more[] = "more warnings were dropped (the session keeps "
                               "the first 1000)";
    w = more;
  }
  jit_session_unlock(s);
  return w;
}
