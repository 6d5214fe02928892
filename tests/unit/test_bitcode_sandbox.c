/*
 * Untrusted bitcode goes through the sandboxed reader (issue 10): malformed
 * files (truncations and bit flips of a valid one, made here) are errors,
 * whatever LLVM's reader does with them, and the host process survives;
 * trusted bitcode and in-process modules skip the helper.
 *
 * CK_FORK is off in main(): a reader crash inside this process must fail
 * the run, not be absorbed by Check's per-test child.
 */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm/Config/llvm-config.h>

#include "check_main.h"
#include "tanjit/tanjit.h"

/* A module with what the reader's crash-prone parts read: a type table of
 * structs, globals with initializers, metadata, debug locations, several
 * functions with PHIs, calls and a request. */
static const char sample_ir[] =
    "%pair = type { double, i64 }\n"
    "%node = type { ptr, %pair, [4 x float] }\n"
    "@table = internal constant [3 x double] [double 1.0, double 2.0, double 3.0]\n"
    "@g = global %node zeroinitializer\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @poly(double %x) !dbg !8 {\n"
    "  %a = fmul double %x, %x, !dbg !10\n"
    "  %p = getelementptr [3 x double], ptr @table, i64 0, i64 1\n"
    "  %c = load double, ptr %p\n"
    "  %b = fadd double %a, %c, !dbg !10\n"
    "  ret double %b\n"
    "}\n"
    "define double @loop(double %x, i32 %n) {\n"
    "entry:\n"
    "  br label %head\n"
    "head:\n"
    "  %i = phi i32 [ 0, %entry ], [ %i1, %body ]\n"
    "  %s = phi double [ 0.0, %entry ], [ %s1, %body ]\n"
    "  %done = icmp sge i32 %i, %n\n"
    "  br i1 %done, label %exit, label %body\n"
    "body:\n"
    "  %v = call double @poly(double %x)\n"
    "  %s1 = fadd double %s, %v\n"
    "  %i1 = add i32 %i, 1\n"
    "  br label %head\n"
    "exit:\n"
    "  ret double %s\n"
    "}\n"
    "define double @dpoly(double %x) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @poly, double %x, double 1.0)\n"
    "  ret double %d\n"
    "}\n"
    "!llvm.dbg.cu = !{!0}\n"
    "!llvm.module.flags = !{!3, !4}\n"
    "!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: \"t\", "
    "isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)\n"
    "!1 = !DIFile(filename: \"poly.c\", directory: \"/tmp\")\n"
    "!3 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
    "!4 = !{i32 7, !\"Dwarf Version\", i32 5}\n"
    "!8 = distinct !DISubprogram(name: \"poly\", scope: !1, file: !1, line: 3, "
    "type: !9, unit: !0, spFlags: DISPFlagDefinition)\n"
    "!9 = !DISubroutineType(types: !{})\n"
    "!10 = !DILocation(line: 4, column: 3, scope: !8)\n";

static LLVMMemoryBufferRef sample_bitcode(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef text = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      sample_ir, sizeof sample_ir - 1, "sample.ll");
  LLVMModuleRef m = NULL;
  char *msg = NULL;
  ck_assert_msg(!LLVMParseIRInContext(ctx, text, &m, &msg), "%s", msg);
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return bc;
}

static tanjit_session *session_with(int trust, const char *checker) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.trust_bitcode = trust;
  o.bitcode_checker = checker;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_msg(s != NULL, "%s", err ? tanjit_error_message(err) : "");
  return s;
}

static void assert_poly_works(tanjit_session *s) {
  tanjit_error *err = NULL;
  double (*dpoly)(double) = (double (*)(double))(uintptr_t)tanjit_lookup(s, "dpoly", &err);
  ck_assert_msg(dpoly != NULL, "%s", err ? tanjit_error_message(err) : "");
  ck_assert_double_eq_tol(dpoly(1.5), 3.0, 1e-12); /* d/dx (x^2 + 2) */
}

START_TEST(valid_bitcode_goes_through_the_checker) {
  LLVMMemoryBufferRef bc = sample_bitcode();
  tanjit_session *s = session_with(0, NULL);
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_load_memory(s, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc),
                                   "sample.bc", &err) == 0,
                "%s", err ? tanjit_error_message(err) : "");
  assert_poly_works(s);
  tanjit_session_free(s);
  LLVMDisposeMemoryBuffer(bc);
}
END_TEST

/* Every truncation point in steps, and bit flips at pseudo-random places
 * (a fixed xorshift seed, so a failure reproduces): each load is an error
 * or a success, never the end of this process. */
START_TEST(malformed_bitcode_never_takes_the_host_down) {
  LLVMMemoryBufferRef bc = sample_bitcode();
  const unsigned char *good = (const unsigned char *)LLVMGetBufferStart(bc);
  size_t len = LLVMGetBufferSize(bc);
  unsigned char *bad = malloc(len);
  ck_assert_ptr_nonnull(bad);
  tanjit_session *s = session_with(0, NULL);
  unsigned loaded = 0, rejected = 0, crashed = 0;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (unsigned trial = 0; trial < 240; trial++) {
    size_t n = len;
    memcpy(bad, good, len);
    if (trial < 64) {
      n = 4 + (len - 4) * trial / 64; /* keep the magic: reach the reader */
    } else {
      unsigned flips = 1 + trial % 8;
      for (unsigned k = 0; k < flips; k++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        size_t at = 4 + (size_t)(state % (len - 4));
        bad[at] ^= (unsigned char)(1u << ((state >> 32) % 8));
      }
    }
    char name[32];
    snprintf(name, sizeof name, "bad%u.bc", trial);
    tanjit_error *err = NULL;
    if (tanjit_load_memory(s, bad, n, name, &err) == 0) {
      loaded++;
      /* A module that parsed and verified is an ordinary module; drop it
       * from the picture by using a fresh session next time. */
      tanjit_session_free(s);
      s = session_with(0, NULL);
      continue;
    }
    tanjit_error_code code = tanjit_error_get_code(err);
    ck_assert_msg(code == TANJIT_ERR_PARSE || code == TANJIT_ERR_VERIFY,
                  "trial %u: code %d: %s", trial, (int)code, tanjit_error_message(err));
    ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), name));
    if (strstr(tanjit_error_message(err), "the bitcode reader crashed on this input (signal")) {
      printf("trial %u: %s\n", trial, tanjit_error_message(err));
      crashed++;
    }
    rejected++;
    tanjit_error_free(err);
  }
  printf("malformed bitcode: %u loaded, %u rejected (%u crashed the reader)\n",
         loaded, rejected, crashed);
  ck_assert_uint_eq(loaded + rejected, 240);
  ck_assert_uint_gt(rejected, 180);
#if LLVM_VERSION_MAJOR == 19
  /* Trial 234 segfaults LLVM 19's reader (in metadata loading): the
   * sandbox really contained a crash. */
  ck_assert_uint_ge(crashed, 1);
#endif
  /* The session that saw the failures is still usable. */
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_load_memory(s, good, len, "sample.bc", &err) == 0, "%s",
                err ? tanjit_error_message(err) : "");
  assert_poly_works(s);
  tanjit_session_free(s);
  free(bad);
  LLVMDisposeMemoryBuffer(bc);
}
END_TEST

/* Hosts are threaded: sessions on several threads load untrusted bitcode
 * at once, each reader process waited for by its own thread. */
typedef struct load_job {
  const char *data;
  size_t len;
  int loaded, correct;
} load_job;

static void *load_on_thread(void *arg) {
  load_job *job = arg;
  for (int k = 0; k < 4; k++) {
    tanjit_options o;
    tanjit_options_init(&o);
    tanjit_session *s = tanjit_session_new(&o, NULL);
    if (!s)
      continue;
    if (tanjit_load_memory(s, job->data, job->len, "threads.bc", NULL) == 0) {
      job->loaded++;
      double (*dpoly)(double) =
          (double (*)(double))(uintptr_t)tanjit_lookup(s, "dpoly", NULL);
      job->correct += dpoly && dpoly(2.0) == 4.0;
    }
    tanjit_session_free(s);
  }
  return NULL;
}

START_TEST(threads_load_untrusted_bitcode_at_once) {
  LLVMMemoryBufferRef bc = sample_bitcode();
  enum { N = 4 };
  pthread_t t[N];
  load_job jobs[N];
  for (int i = 0; i < N; i++) {
    jobs[i] = (load_job){LLVMGetBufferStart(bc), LLVMGetBufferSize(bc), 0, 0};
    ck_assert_int_eq(pthread_create(&t[i], NULL, load_on_thread, &jobs[i]), 0);
  }
  for (int i = 0; i < N; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(jobs[i].loaded, 4);
    ck_assert_int_eq(jobs[i].correct, 4);
  }
  LLVMDisposeMemoryBuffer(bc);
}
END_TEST

/* A checker that dies by a signal: the error names it. */
START_TEST(a_crashing_reader_is_an_error) {
  LLVMMemoryBufferRef bc = sample_bitcode();
  tanjit_session *s = session_with(0, getenv("CRASHING_CHECKER"));
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_load_memory(s, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc),
                                      "sample.bc", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_PARSE);
  ck_assert_msg(strstr(tanjit_error_message(err),
                       "sample.bc: the bitcode reader crashed on this input (signal 11") != NULL,
                "%s", tanjit_error_message(err));
  tanjit_error_free(err);
  tanjit_session_free(s);
  LLVMDisposeMemoryBuffer(bc);
}
END_TEST

START_TEST(a_missing_checker_is_a_clear_error_and_trust_skips_it) {
  LLVMMemoryBufferRef bc = sample_bitcode();
  tanjit_session *s = session_with(0, "/nonexistent/tanjit-bitcode-check");
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_load_memory(s, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc),
                                      "sample.bc", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_IO);
  ck_assert_msg(strstr(tanjit_error_message(err), "was not found (tried "
                       "/nonexistent/tanjit-bitcode-check)") != NULL,
                "%s", tanjit_error_message(err));
  tanjit_error_free(err);
  err = NULL;
  /* IR text never needs the checker. */
  ck_assert_int_eq(tanjit_load_memory(s, sample_ir, sizeof sample_ir - 1, "sample.ll", &err), 0);
  assert_poly_works(s);
  tanjit_session_free(s);

  s = session_with(1, "/nonexistent/tanjit-bitcode-check");
  ck_assert_msg(tanjit_load_memory(s, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc),
                                   "sample.bc", &err) == 0,
                "%s", err ? tanjit_error_message(err) : "");
  assert_poly_works(s);
  tanjit_session_free(s);

  /* An in-process module is bitcode tanjit writes itself: trusted. */
  s = session_with(0, "/nonexistent/tanjit-bitcode-check");
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = NULL;
  ck_assert(!LLVMParseBitcodeInContext2(ctx, bc, &m));
  ck_assert_msg(tanjit_load_module(s, m, &err) == 0, "%s",
                err ? tanjit_error_message(err) : "");
  assert_poly_works(s);
  tanjit_session_free(s);
  LLVMContextDispose(ctx);
  LLVMDisposeMemoryBuffer(bc);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("bitcode_sandbox");
  TCase *tc = tcase_create("sandbox");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, valid_bitcode_goes_through_the_checker);
  tcase_add_test(tc, malformed_bitcode_never_takes_the_host_down);
  tcase_add_test(tc, threads_load_untrusted_bitcode_at_once);
  tcase_add_test(tc, a_crashing_reader_is_an_error);
  tcase_add_test(tc, a_missing_checker_is_a_clear_error_and_trust_skips_it);
  suite_add_tcase(suite, tc);
  SRunner *sr = srunner_create(suite);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
