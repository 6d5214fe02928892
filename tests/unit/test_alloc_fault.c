/*
 * Allocation-failure injection (issue 10), as SQLite's fault tests do: the
 * N-th allocation of tanjit's own code fails, for N = 1 .. the number of
 * allocations a session makes to load a module with an __enzyme_fwddiff
 * request, differentiate it and compile it, then make a run-time request
 * (tanjit_fwddiff) of the same function, bind a renamed ccall to a lazy
 * stub, and load bitcode through the sandboxed reader.  Each step must succeed or say
 * TANJIT_ERR_NO_MEMORY; a derivative that comes back must be right; the
 * session (or a new one, if creating it failed) must then load and compile
 * another module.  Under ASan/LSan nothing may leak.
 *
 * A run in which the fault did not fire fails: the loop's last N is one
 * past the count, and there, exactly, no fault may fire and all succeeds.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "check_main.h"
#include "common/alloc.h"
#include "tanjit/tanjit.h"

static const char request_ir[] =
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define internal double @helper(double %x) {\n"
    "  %s = call double @llvm.sin.f64(double %x)\n"
    "  %r = fmul double %s, %x\n"
    "  ret double %r\n"
    "}\n"
    "declare double @llvm.sin.f64(double)\n"
    "define double @square(double %x) {\n"
    "  %h = call double @helper(double %x)\n"
    "  %r = fmul double %x, %x\n"
    "  %t = fadd double %r, %h\n"
    "  ret double %t\n"
    "}\n"
    "define double @dsquare(double %x) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @square, double %x, double 1.0)\n"
    "  ret double %d\n"
    "}\n";

static const char later_ir[] =
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @cube(double %x) {\n"
    "  %a = fmul double %x, %x\n"
    "  %b = fmul double %a, %x\n"
    "  ret double %b\n"
    "}\n"
    "define double @dcube(double %x) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @cube, double %x, double 1.0)\n"
    "  ret double %d\n"
    "}\n";

/* An external no library provides: under lazy binding, a stub. */
static const char ccall_ir[] =
    "declare double @\"ejlstr$nope$libabsent.so\"(double)\n"
    "define double @calls_nope(double %x) {\n"
    "  %r = call double @\"ejlstr$nope$libabsent.so\"(double %x)\n"
    "  ret double %r\n"
    "}\n";

static const char bitcode_ir[] =
    "define i32 @from_bitcode(i32 %x) {\n"
    "  %r = mul i32 %x, 6\n"
    "  ret i32 %r\n"
    "}\n";

typedef double (*unary)(double);

static void ignore_unresolved(void *user, const char *symbol, const char *library,
                              const char *reason) {
  (void)user, (void)symbol, (void)library, (void)reason;
}

static tanjit_session *new_session(tanjit_error **err) {
  static const char *const dirs[] = {"/nonexistent-tanjit-dir", NULL};
  static const char *const allowed[] = {"libabsent.so", NULL};
  tanjit_options o;
  tanjit_options_init(&o);
  o.binding = TANJIT_BIND_LAZY;
  o.on_unresolved = ignore_unresolved;
  o.library_dirs = dirs;
  o.allowed_libraries = allowed;
  return tanjit_session_new(&o, err);
}

/* bitcode_ir as bitcode, written once in main (LLVM's allocations are not
 * counted, but this keeps them out of the loop). */
static char *bitcode;
static size_t bitcode_len;

/* d/dx (x^2 + x sin x) = 2x + sin x + x cos x */
static double dsquare_want(double x) { return 2 * x + __builtin_sin(x) + x * __builtin_cos(x); }

/* Outside the loop (main's counting runs) there is no test to fail: any
 * failure there is printed and the count is refused. */
static int in_main;

/* An error, if any, must be out of memory, with a message. */
static void assert_no_memory(tanjit_error *err, const char *step, unsigned long n) {
  if (in_main) {
    fprintf(stderr, "without faults, %s failed: %s\n", step,
            err ? tanjit_error_message(err) : "no error");
    tanjit_error_free(err);
    return;
  }
  ck_assert_msg(err != NULL, "allocation %lu: %s failed without an error", n, step);
  ck_assert_msg(tanjit_error_get_code(err) == TANJIT_ERR_NO_MEMORY,
                "allocation %lu: %s failed with code %d: %s", n, step,
                (int)tanjit_error_get_code(err), tanjit_error_message(err));
  ck_assert_ptr_nonnull(tanjit_error_message(err));
  tanjit_error_free(err);
}

/* Session, load, request, lookup: each step either succeeds or reports
 * out of memory (the later steps then do not run).  Returns the session,
 * or NULL if creating it failed; *complete says all succeeded. */
static tanjit_session *scenario(unsigned long n, int *complete) {
  *complete = 0;
  tanjit_error *err = NULL;
  tanjit_session *s = new_session(&err);
  if (!s) {
    assert_no_memory(err, "tanjit_session_new", n);
    return NULL;
  }
  if (tanjit_load_memory(s, request_ir, sizeof request_ir - 1, "request.ll", &err)) {
    assert_no_memory(err, "tanjit_load_memory", n);
    return s;
  }
  unary d = (unary)(uintptr_t)tanjit_lookup(s, "dsquare", &err);
  if (!d) {
    assert_no_memory(err, "tanjit_lookup", n);
    return s;
  }
  double got = d(0.7);
  if (!in_main)
    ck_assert_double_eq_tol(got, dsquare_want(0.7), 1e-12);
  /* A run-time request: the pristine copies, views, a generated module. */
  tanjit_activity dup = TANJIT_DUP;
  double (*dh)(double, double) =
      (double (*)(double, double))(uintptr_t)tanjit_fwddiff(s, "square", &dup, 1, 1, &err);
  if (!dh) {
    assert_no_memory(err, "tanjit_fwddiff", n);
    return s;
  }
  double got2 = dh(0.7, 2.0);
  if (!in_main)
    ck_assert_double_eq_tol(got2, 2.0 * dsquare_want(0.7), 1e-12);
  /* A renamed ccall bound to a lazy stub (library search, allow-list). */
  if (tanjit_load_memory(s, ccall_ir, sizeof ccall_ir - 1, "ccall.ll", &err)) {
    assert_no_memory(err, "tanjit_load_memory (ccall)", n);
    return s;
  }
  if (!tanjit_lookup(s, "calls_nope", &err)) {
    assert_no_memory(err, "tanjit_lookup (lazy stub)", n);
    return s;
  }
  /* Untrusted bitcode: the sandboxed reader. */
  if (tanjit_load_memory(s, bitcode, bitcode_len, "six.bc", &err)) {
    assert_no_memory(err, "tanjit_load_memory (bitcode)", n);
    return s;
  }
  int (*six)(int) = (int (*)(int))(uintptr_t)tanjit_lookup(s, "from_bitcode", &err);
  if (!six) {
    assert_no_memory(err, "tanjit_lookup (bitcode)", n);
    return s;
  }
  if (!in_main)
    ck_assert_int_eq(six(7), 42);
  *complete = __builtin_fabs(got - dsquare_want(0.7)) < 1e-12 &&
              __builtin_fabs(got2 - 2.0 * dsquare_want(0.7)) < 1e-12 && six(7) == 42;
  return s;
}

static unsigned long allocations_in_scenario;

START_TEST(fail_one_allocation) {
  unsigned long n = (unsigned long)_i;
  int complete;
  tj_alloc_fail_at(n, 0);
  tanjit_session *s = scenario(n, &complete);
  unsigned long fired = tj_alloc_faults();
  tj_alloc_fail_at(0, 0);
  if (n <= allocations_in_scenario)
    ck_assert_msg(fired == 1, "allocation %lu of %lu: the fault did not fire", n,
                  allocations_in_scenario);
  else
    ck_assert_msg(fired == 0 && complete,
                  "allocation %lu: past the count, yet a fault fired or a step failed", n);

  /* Usable afterwards: a later load and lookup in the same session. */
  tanjit_error *err = NULL;
  if (!s)
    s = new_session(&err);
  ck_assert_msg(s != NULL, "%s", err ? tanjit_error_message(err) : "");
  ck_assert_msg(tanjit_load_memory(s, later_ir, sizeof later_ir - 1, "later.ll", &err) == 0,
                "allocation %lu: later load: %s", n, tanjit_error_message(err));
  unary dcube = (unary)(uintptr_t)tanjit_lookup(s, "dcube", &err);
  ck_assert_msg(dcube != NULL, "allocation %lu: later lookup: %s", n,
                tanjit_error_message(err));
  ck_assert_double_eq_tol(dcube(2.0), 12.0, 1e-12);
  tanjit_session_free(s);
}
END_TEST

/* Fails every allocation from the N-th on (persistent): still only success
 * or out of memory, and nothing leaks. */
START_TEST(fail_from_allocation_on) {
  unsigned long n = 1 + (unsigned long)_i * 7;
  int complete;
  tj_alloc_fail_at(n, 1);
  tanjit_session *s = scenario(n, &complete);
  unsigned long fired = tj_alloc_faults();
  tj_alloc_fail_at(0, 0);
  ck_assert_msg(fired >= 1 || n > allocations_in_scenario,
                "allocation %lu: the fault did not fire", n);
  tanjit_session_free(s);
}
END_TEST

int main(void) {
  /* Once to warm up what a process initializes once (LLVM's targets), once
   * to count; the loop runs in forked children of this state. */
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = NULL;
  char *msg = NULL;
  if (LLVMParseIRInContext(ctx, LLVMCreateMemoryBufferWithMemoryRangeCopy(
                                    bitcode_ir, sizeof bitcode_ir - 1, "six.ll"),
                           &m, &msg)) {
    fprintf(stderr, "%s\n", msg);
    return EXIT_FAILURE;
  }
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
  bitcode_len = LLVMGetBufferSize(bc);
  bitcode = malloc(bitcode_len);
  memcpy(bitcode, LLVMGetBufferStart(bc), bitcode_len);
  LLVMDisposeMemoryBuffer(bc);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);

  int complete;
  in_main = 1;
  tanjit_session_free(scenario(0, &complete));
  tj_alloc_fail_at(0, 0);
  tanjit_session_free(scenario(0, &complete));
  allocations_in_scenario = tj_alloc_count();
  if (!complete || allocations_in_scenario == 0) {
    fprintf(stderr, "the scenario does not run without faults\n");
    return EXIT_FAILURE;
  }
  in_main = 0;
  printf("load + request + lookup + ccall + bitcode: %lu allocations\n", allocations_in_scenario);

  Suite *suite = suite_create("alloc_fault");
  TCase *tc = tcase_create("fault");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, fail_one_allocation, 1, (int)allocations_in_scenario + 2);
  tcase_add_loop_test(tc, fail_from_allocation_on, 0,
                      (int)(allocations_in_scenario / 7) + 2);
  suite_add_tcase(suite, tc);
  int rc = run_suite(suite);
  free(bitcode);
  return rc;
}
