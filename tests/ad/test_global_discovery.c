/*
 * Active globals settled by analysis before emission
 * (analysis/global_discovery.c), where a copy of the module used to be
 * transformed until the set stopped growing: a global made active by a
 * callee and read by another function whose call has no active argument,
 * one reached through a pointer kept in memory, one only written, one
 * written with a tangent from a rule registered by symbol.  Each
 * derivative is checked against its analytic value, and the rule lookups
 * show that the transform ran once (a copy run looks every call up again).
 */
#include "test_common.h"

/* Every module's request: df(x) = f'(x), x seeded with 1. */
#define DF_OF_F                                                                \
  "define double @df(double %x) {\n"                                           \
  "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, "        \
  "double 1.0)\n"                                                              \
  "  ret double %r\n"                                                          \
  "}\n"

/* put(x) writes x*x into @s (only written there); f reads it through
 * get(), called with no argument: f = x^3. */
static const char callee_ir[] =
    "@s = internal global double 0.0\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "declare double @__enzyme_autodiff(ptr, ...)\n"
    "define internal void @put(double %x) noinline {\n"
    "  %m = fmul double %x, %x\n"
    "  store double %m, ptr @s\n"
    "  ret void\n"
    "}\n"
    "define internal double @get() noinline {\n"
    "  %v = load double, ptr @s\n"
    "  ret double %v\n"
    "}\n"
    "define double @f(double %x) {\n"
    "  call void @put(double %x)\n"
    "  %v = call double @get()\n"
    "  %r = fmul double %v, %x\n"
    "  ret double %r\n"
    "}\n"
    DF_OF_F
    "define double @gf(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)\n"
    "  ret double %r\n"
    "}\n";

START_TEST(global_made_active_by_a_callee) {
  double (*df)(double) = (double (*)(double))jit_symbol(callee_ir, "df", 0);
  double (*gf)(double) = (double (*)(double))jit_symbol(callee_ir, "gf", 0);
  for (double x = -1.5; x < 2; x += 0.75) {
    ck_assert_close(df(x), 3 * x * x, 1e-12);
    ck_assert_close(gf(x), 3 * x * x, 1e-12);
  }
  close_sessions();
}
END_TEST

/* keep() stores @s's address into @slot, f stores x through the pointer
 * it loads back and squares what @s holds: f = x^2.  @s becomes active
 * only because a pointer to it lands in @slot, active once f stores an
 * active value through what @slot holds. */
static const char stored_pointer_ir[] =
    "@s = internal global double 0.0\n"
    "@slot = internal global ptr null\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define internal void @keep() noinline {\n"
    "  store ptr @s, ptr @slot\n"
    "  ret void\n"
    "}\n"
    "define double @f(double %x) {\n"
    "  call void @keep()\n"
    "  %p = load ptr, ptr @slot\n"
    "  store double %x, ptr %p\n"
    "  %v = load double, ptr @s\n"
    "  %r = fmul double %v, %v\n"
    "  ret double %r\n"
    "}\n"
    DF_OF_F;

START_TEST(global_reached_through_a_stored_pointer) {
  double (*df)(double) =
      (double (*)(double))jit_symbol(stored_pointer_ir, "df", 0);
  for (double x = -1.5; x < 2; x += 0.75)
    ck_assert_close(df(x), 2 * x, 1e-12);
  close_sessions();
}
END_TEST

/* A global written and never read: its tangent goes nowhere, the result's
 * is f' = 3x^2. */
static const char written_only_ir[] =
    "@log = internal global double 0.0\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define internal void @note(double %v) noinline {\n"
    "  store double %v, ptr @log\n"
    "  ret void\n"
    "}\n"
    "define double @f(double %x) {\n"
    "  %m = fmul double %x, %x\n"
    "  call void @note(double %m)\n"
    "  %r = fmul double %m, %x\n"
    "  ret double %r\n"
    "}\n"
    DF_OF_F;

START_TEST(global_only_written) {
  double (*df)(double) = (double (*)(double))jit_symbol(written_only_ir, "df", 0);
  ck_assert_close(df(1.25), 3 * 1.25 * 1.25, 1e-12);
  close_sessions();
}
END_TEST

/* twice(x) = 2x has a rule registered by symbol whose tangent is 3 dx (on
 * purpose not twice's, so that the rule shows): f stores twice(x) into @s
 * and squares it through sq(), f = 4x^2, f' by the rule = 2 (2x) 3 = 12x. */
static const char registered_ir[] =
    "@s = internal global double 0.0\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @twice(double %x) noinline {\n"
    "  %r = fmul double %x, 2.0\n"
    "  ret double %r\n"
    "}\n"
    "define double @twice_rule(double %x, double %dx) noinline {\n"
    "  %r = fmul double %dx, 3.0\n"
    "  ret double %r\n"
    "}\n"
    "define internal double @sq() noinline {\n"
    "  %v = load double, ptr @s\n"
    "  %r = fmul double %v, %v\n"
    "  ret double %r\n"
    "}\n"
    "define double @f(double %x) {\n"
    "  %t = call double @twice(double %x)\n"
    "  store double %t, ptr @s\n"
    "  %r = call double @sq()\n"
    "  ret double %r\n"
    "}\n"
    DF_OF_F;

START_TEST(global_read_after_a_registered_rule) {
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(NULL, &err);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(
      tanjit_register_fwd_rule(s, "twice", "twice_rule", 0, &err), 0);
  ck_assert_msg(tanjit_load_memory(s, registered_ir, strlen(registered_ir),
                                   "rule.ll", &err) == 0,
                "%s", err ? tanjit_error_message(err) : "");
  double (*df)(double) = (double (*)(double))tanjit_lookup(s, "df", &err);
  ck_assert_msg(df, "%s", err ? tanjit_error_message(err) : "");
  for (double x = -1.5; x < 2; x += 0.75)
    ck_assert_close(df(x), 12 * x, 1e-12);
  /* one transform: the calls of f (twice, sq) and of sq (none) looked up
   * once each */
  tanjit_stats st;
  tanjit_session_stats(s, &st);
  ck_assert_uint_eq(st.rule_lookups, 2);
  tanjit_session_free(s);
}
END_TEST

/* The engine alone on callee_ir: every call site of the differentiated
 * code is looked up once (f: put, get), as one transform does; a run on
 * a copy of the module would look them up again. */
START_TEST(no_copy_runs) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      callee_ir, strlen(callee_ir), "callee.ll");
  LLVMModuleRef m;
  char *msg = NULL;
  ck_assert_msg(LLVMParseIRInContext(ctx, buf, &m, &msg) == 0, "%s", msg);
  ad_engine *e = ad_engine_new();
  tanjit_error *err = NULL;
  ck_assert_msg(ad_transform_module(e, m, &err) == 0, "%s",
                err ? tanjit_error_message(err) : "");
  ck_assert_uint_eq(ad_engine_rule_lookups(e), 2);
  ck_assert_ptr_nonnull(LLVMGetNamedGlobal(m, "s_shadow"));
  ad_engine_free(e);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("global_discovery");
  TCase *t = tcase_create("discovery");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, global_made_active_by_a_callee);
  tcase_add_test(t, global_reached_through_a_stored_pointer);
  tcase_add_test(t, global_only_written);
  tcase_add_test(t, global_read_after_a_registered_rule);
  tcase_add_test(t, no_copy_runs);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
