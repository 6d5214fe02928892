/*
 * Shared helpers of the engine's Check suites: run IR text through a tanjit
 * session (the JIT calls the engine as it compiles), or through the engine
 * alone to read its error, and compare numbers.
 */
#ifndef TANJIT_TESTS_AD_COMMON_H
#define TANJIT_TESTS_AD_COMMON_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "ad/ad.h"
#include "tanjit/tanjit.h"

#define MAX_SESSIONS 512
static tanjit_session *open_sessions[MAX_SESSIONS];
static int n_open_sessions;

__attribute__((unused)) static void close_sessions(void) {
  for (int i = 0; i < n_open_sessions; i++)
    tanjit_session_free(open_sessions[i]);
  n_open_sessions = 0;
}

/* Loads `ir` into a new session at optimization level `opt` and returns the
 * address of `sym`; fails the test with the session's message otherwise. */
__attribute__((unused)) static void *jit_symbol(const char *ir, const char *sym, int opt) {
  tanjit_options o;
  tanjit_error *err = NULL;
  tanjit_options_init(&o);
  o.opt_level = opt;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_msg(s, "session: %s", err ? tanjit_error_message(err) : "?");
  if (n_open_sessions == MAX_SESSIONS)
    close_sessions();
  open_sessions[n_open_sessions++] = s;
  ck_assert_msg(tanjit_load_memory(s, ir, strlen(ir), "test.ll", &err) == 0,
                "load: %s\n%s", err ? tanjit_error_message(err) : "?", ir);
  void *p = tanjit_lookup(s, sym, &err);
  ck_assert_msg(p, "lookup %s: %s\n%s", sym,
                err ? tanjit_error_message(err) : "?", ir);
  return p;
}

/* Runs only the engine on `ir`; returns its error (caller frees) or NULL. */
__attribute__((unused)) static tanjit_error *engine_error(const char *ir) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      ir, strlen(ir), "test.ll");
  LLVMModuleRef m;
  char *msg = NULL;
  ck_assert_msg(LLVMParseIRInContext(ctx, buf, &m, &msg) == 0, "parse: %s", msg);
  ad_engine *e = ad_engine_new();
  tanjit_error *err = NULL;
  int rc = ad_transform_module(e, m, &err);
  ck_assert(rc == 0 || err);
  ad_engine_free(e);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return err;
}

#define ck_assert_close(got, want, rtol)                                       \
  do {                                                                         \
    double g_ = (got), w_ = (want);                                            \
    ck_assert_msg(fabs(g_ - w_) <= (rtol) * fmax(1.0, fabs(w_)),               \
                  "%s = %.17g, expected %.17g (%s:%d)", #got, g_, w_,          \
                  __FILE__, __LINE__);                                         \
  } while (0)

/* The common preamble of hand-written request IR. */
#define REQ_DECLS                                                              \
  "@enzyme_dup = external global i32\n"                                        \
  "@enzyme_const = external global i32\n"                                      \
  "@enzyme_dupnoneed = external global i32\n"                                  \
  "@enzyme_width = external global i32\n"                                      \
  "@enzyme_primal_return = external global i32\n"                              \
  "declare double @__enzyme_fwddiff(ptr, ...)\n"

#endif
