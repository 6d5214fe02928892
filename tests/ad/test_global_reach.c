/*
 * Active-global discovery as a query (analysis/global_reach.c): when the
 * code a module's requests can differentiate names no mutable global, the
 * transform runs once, with no discovery runs on copies of the module; a
 * global the requests' code reaches in any way (a direct use, a callee, an
 * address-taken function behind an indirect call, a constant table, an
 * in-IR custom derivative) keeps the discovery.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "ad/ad.h"
#include "ad/analysis/globals.h"

static LLVMModuleRef parse(LLVMContextRef ctx, const char *ir) {
  LLVMModuleRef m = NULL;
  char *msg = NULL;
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "t");
  ck_assert_msg(LLVMParseIRInContext(ctx, buf, &m, &msg) == 0, "%s",
                msg ? msg : "");
  return m;
}

/* The query over the calls of @__enzyme_fwddiff in `ir`. */
static int reaches(const char *ir) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = parse(ctx, ir);
  LLVMValueRef req = LLVMGetNamedFunction(m, "__enzyme_fwddiff");
  LLVMValueRef calls[8];
  size_t n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(req); u && n < 8; u = LLVMGetNextUse(u))
    calls[n++] = LLVMGetUser(u);
  ck_assert_uint_gt(n, 0);
  int r = ad_requests_reach_mutable_global(calls, n);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return r;
}

#define REQUEST                                                              \
  "declare double @__enzyme_fwddiff(...)\n"                                \
  "define double @df(double %x, double %dx) {\n"                            \
  "  %r = call double (...) @__enzyme_fwddiff(ptr @f, double %x, double %dx)\n" \
  "  ret double %r\n"                                                        \
  "}\n"

/* A counter only main touches, as the benchmark driver's clock. */
static const char unreached_ir[] =
    "@calls = global i64 0\n"
    "declare double @sin(double)\n"
    "define internal double @g(double %x) {\n"
    "  %s = call double @sin(double %x)\n"
    "  ret double %s\n"
    "}\n"
    "define double @f(double %x) {\n"
    "  %a = call double @g(double %x)\n"
    "  %b = fmul double %a, %x\n"
    "  ret double %b\n"
    "}\n" REQUEST
    "define i32 @main() {\n"
    "  %c = load i64, ptr @calls\n"
    "  %d = add i64 %c, 1\n"
    "  store i64 %d, ptr @calls\n"
    "  %r = call double @df(double 1.0, double 1.0)\n"
    "  ret i32 0\n"
    "}\n";

START_TEST(unreached_global_needs_no_discovery) {
  ck_assert_int_eq(reaches(unreached_ir), 0);
  /* one transform: the rule lookups of one run over f's and g's calls
   * (a discovery run on a copy would count them twice) */
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = parse(ctx, unreached_ir);
  ad_engine *e = ad_engine_new();
  tanjit_error *err = NULL;
  ck_assert_msg(ad_transform_module(e, m, &err) == 0, "%s",
                err ? tanjit_error_message(err) : "");
  ck_assert_uint_eq(ad_engine_rule_lookups(e), 2); /* sin; g has none */
  ad_engine_free(e);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

START_TEST(reached_globals_keep_discovery) {
  /* used by a callee */
  ck_assert_int_eq(reaches("@s = global double 0.0\n"
                           "define internal void @g(double %x) {\n"
                           "  store double %x, ptr @s\n"
                           "  ret void\n"
                           "}\n"
                           "define double @f(double %x) {\n"
                           "  call void @g(double %x)\n"
                           "  ret double %x\n"
                           "}\n" REQUEST),
                   1);
  /* by an address-taken function, called through a pointer */
  ck_assert_int_eq(reaches("@s = global double 0.0\n"
                           "@fp = global ptr @h\n"
                           "define internal double @h(double %x) {\n"
                           "  %v = load double, ptr @s\n"
                           "  %m = fmul double %v, %x\n"
                           "  ret double %m\n"
                           "}\n"
                           "define double @f(double %x, ptr %p) {\n"
                           "  %r = call double %p(double %x)\n"
                           "  ret double %r\n"
                           "}\n"
                           "declare double @__enzyme_fwddiff(...)\n"
                           "define double @df(double %x, double %dx) {\n"
                           "  %p = load ptr, ptr @fp\n"
                           "  %r = call double (...) @__enzyme_fwddiff(ptr @f, "
                           "double %x, double %dx, ptr %p)\n"
                           "  ret double %r\n"
                           "}\n"),
                   1);
  /* through a constant table of pointers */
  ck_assert_int_eq(reaches("@s = global double 0.0\n"
                           "@t = constant [1 x ptr] [ptr @s]\n"
                           "define double @f(double %x) {\n"
                           "  %p = load ptr, ptr @t\n"
                           "  store double %x, ptr %p\n"
                           "  ret double %x\n"
                           "}\n" REQUEST),
                   1);
  /* by an in-IR custom derivative */
  ck_assert_int_eq(reaches("@s = global double 0.0\n"
                           "define internal double @dsq(double %x, double %dx) {\n"
                           "  store double %dx, ptr @s\n"
                           "  ret double %dx\n"
                           "}\n"
                           "define internal double @sq(double %x) "
                           "!enzyme_derivative !0 {\n"
                           "  %m = fmul double %x, %x\n"
                           "  ret double %m\n"
                           "}\n"
                           "define double @f(double %x) {\n"
                           "  %r = call double @sq(double %x)\n"
                           "  ret double %r\n"
                           "}\n" REQUEST "!0 = !{ptr @dsq}\n"),
                   1);
  /* by the request's own arguments */
  ck_assert_int_eq(reaches("@s = global double 0.0\n"
                           "@ds = global double 0.0\n"
                           "define double @f(ptr %p) {\n"
                           "  %v = load double, ptr %p\n"
                           "  ret double %v\n"
                           "}\n"
                           "declare double @__enzyme_fwddiff(...)\n"
                           "define double @df() {\n"
                           "  %r = call double (...) @__enzyme_fwddiff(ptr @f, "
                           "ptr @s, ptr @ds)\n"
                           "  ret double %r\n"
                           "}\n"),
                   1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("global_reach");
  TCase *t = tcase_create("query");
  tcase_add_test(t, unreached_global_needs_no_discovery);
  tcase_add_test(t, reached_globals_keep_discovery);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
