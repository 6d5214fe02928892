/*
 * __enzyme_todense lowered (src/ad/prep/todense.c) on IR written by hand,
 * run through a session: loads become calls of the load function with the
 * byte offset and the extra arguments, a vector load one call per
 * element, stores calls of the store function, a scalar of the same size
 * reinterpreted; uses it cannot lower are errors naming them.
 */
#include "test_common.h"

/* ld(off, scale) = off * scale; st(v, off, scale) logs v * scale at
 * log[off / 8]. */
#define TODENSE_DECLS                                                          \
  "declare ptr @__enzyme_todense(ptr, ptr, i64)\n"                             \
  "@log = global [8 x double] zeroinitializer\n"                               \
  "define double @ld(i64 %off, i64 %scale) {\n"                                \
  "  %f = sitofp i64 %off to double\n"                                         \
  "  %s = sitofp i64 %scale to double\n"                                       \
  "  %r = fmul double %f, %s\n"                                                \
  "  ret double %r\n"                                                          \
  "}\n"                                                                        \
  "define void @st(double %v, i64 %off, i64 %scale) {\n"                       \
  "  %i = udiv i64 %off, 8\n"                                                  \
  "  %p = getelementptr double, ptr @log, i64 %i\n"                            \
  "  %s = sitofp i64 %scale to double\n"                                       \
  "  %w = fmul double %v, %s\n"                                                \
  "  store double %w, ptr %p\n"                                                \
  "  ret void\n"                                                               \
  "}\n"

START_TEST(test_loads_and_stores_become_calls) {
  const char *ir = TODENSE_DECLS
      "define double @run(i64 %k) {\n"
      "  %p = call ptr @__enzyme_todense(ptr @ld, ptr @st, i64 2)\n"
      "  %q = getelementptr inbounds double, ptr %p, i64 %k\n"
      "  %a = load double, ptr %q\n"          /* ld(8k) */
      "  %r = getelementptr inbounds i8, ptr %q, i64 16\n"
      "  %v = load <2 x double>, ptr %r\n"    /* ld(8k+16), ld(8k+24) */
      "  %v0 = extractelement <2 x double> %v, i32 0\n"
      "  %v1 = extractelement <2 x double> %v, i32 1\n"
      "  %b = fadd double %v0, %v1\n"
      "  %i = load i64, ptr %p\n"             /* ld(0)'s bits: 0 */
      "  %c = sitofp i64 %i to double\n"
      "  %s1 = fadd double %a, %b\n"
      "  %s = fadd double %s1, %c\n"
      "  ret double %s\n"
      "}\n";
  for (int opt = 0; opt <= 2; opt += 2) {
    double (*run)(long) = (double (*)(long))jit_symbol(ir, "run", opt);
    ck_assert_close(run(3), 2.0 * (24 + 40 + 48), 0);
    ck_assert_close(run(0), 2.0 * (0 + 16 + 24), 0);
  }
}
END_TEST

START_TEST(test_stores_reach_the_store_function) {
  const char *ir = TODENSE_DECLS
      "define ptr @run() {\n"
      "  %p = call ptr @__enzyme_todense(ptr @ld, ptr @st, i64 2)\n"
      "  %w = getelementptr inbounds double, ptr %p, i64 1\n"
      "  store <2 x double> <double 5.0, double 7.0>, ptr %w\n"
      "  store i64 4613937818241073152, ptr %p\n" /* 3.0's bits */
      "  ret ptr @log\n"
      "}\n";
  double *(*run)(void) = (double *(*)(void))jit_symbol(ir, "run", 0);
  double *log = run();
  ck_assert_close(log[0], 6.0, 0);
  ck_assert_close(log[1], 10.0, 0);
  ck_assert_close(log[2], 14.0, 0);
  ck_assert_close(log[3], 0.0, 0);
}
END_TEST

/* through a PHI and a select of the same pointer, at -O0 (no folding) */
START_TEST(test_phi_and_select_of_the_pointer) {
  const char *ir = TODENSE_DECLS
      "define double @run(i64 %n, i1 %c) {\n"
      "entry:\n"
      "  %p = call ptr @__enzyme_todense(ptr @ld, ptr @st, i64 1)\n"
      "  br label %loop\n"
      "loop:\n"
      "  %q = phi ptr [ %p, %entry ], [ %q2, %loop ]\n"
      "  %i = phi i64 [ 0, %entry ], [ %i2, %loop ]\n"
      "  %acc = phi double [ 0.0, %entry ], [ %acc2, %loop ]\n"
      "  %x = load double, ptr %q\n"
      "  %acc2 = fadd double %acc, %x\n"
      "  %q2 = getelementptr inbounds double, ptr %q, i64 1\n"
      "  %i2 = add i64 %i, 1\n"
      "  %done = icmp eq i64 %i2, %n\n"
      "  br i1 %done, label %out, label %loop\n"
      "out:\n"
      "  %e = getelementptr inbounds double, ptr %p, i64 10\n"
      "  %s = select i1 %c, ptr %e, ptr %q2\n"
      "  %y = load double, ptr %s\n"
      "  %r = fadd double %acc2, %y\n"
      "  ret double %r\n"
      "}\n";
  double (*run)(long, int) = (double (*)(long, int))jit_symbol(ir, "run", 0);
  /* offsets 0, 8, .., 8(n-1), then 80 or 8n */
  ck_assert_close(run(4, 1), 0 + 8 + 16 + 24 + 80, 0);
  ck_assert_close(run(4, 0), 0 + 8 + 16 + 24 + 32, 0);
}
END_TEST

static void expect_error(const char *ir, const char *fragment) {
  tanjit_error *err = engine_error(ir);
  ck_assert_msg(err, "no error (wanted \"%s\")", fragment);
  const char *msg = tanjit_error_message(err);
  ck_assert_msg(strstr(msg, fragment), "\"%s\" not in: %s", fragment, msg);
  tanjit_error_free(err);
}

START_TEST(test_uses_it_cannot_lower_are_errors) {
  expect_error(TODENSE_DECLS
               "declare void @keep(ptr)\n"
               "define void @run() {\n"
               "  %p = call ptr @__enzyme_todense(ptr @ld, ptr @st, i64 1)\n"
               "  call void @keep(ptr %p)\n"
               "  ret void\n"
               "}\n",
               "is used by `call void @keep(ptr %p)`");
  expect_error(TODENSE_DECLS
               "@slot = global ptr null\n"
               "define void @run() {\n"
               "  %p = call ptr @__enzyme_todense(ptr @ld, ptr @st, i64 1)\n"
               "  store ptr %p, ptr @slot\n"
               "  ret void\n"
               "}\n",
               "as the value stored");
  expect_error(TODENSE_DECLS
               "define double @run(i1 %c, ptr %real) {\n"
               "  %p = call ptr @__enzyme_todense(ptr @ld, ptr @st, i64 1)\n"
               "  %s = select i1 %c, ptr %p, ptr %real\n"
               "  %x = load double, ptr %s\n"
               "  ret double %x\n"
               "}\n",
               "joins the pointer of __enzyme_todense (not memory) with "
               "another value");
  /* ld takes (offset, scale): one extra argument, not two */
  expect_error(TODENSE_DECLS
               "declare ptr @__enzyme_todense2(ptr, ptr, i64, i64)\n"
               "define double @run() {\n"
               "  %p = call ptr @__enzyme_todense2(ptr @ld, ptr @st, i64 1, "
               "i64 2)\n"
               "  %x = load double, ptr %p\n"
               "  ret double %x\n"
               "}\n",
               "the load function ld of __enzyme_todense2 takes 2 parameters");
  /* a float load through a function returning i32 */
  expect_error("declare ptr @__enzyme_todense(ptr, ptr)\n"
               "define i32 @ld(i64 %off) {\n"
               "  ret i32 0\n"
               "}\n"
               "define void @st(double %v, i64 %off) {\n"
               "  ret void\n"
               "}\n"
               "define double @run() {\n"
               "  %p = call ptr @__enzyme_todense(ptr @ld, ptr @st)\n"
               "  %x = load double, ptr %p\n"
               "  ret double %x\n"
               "}\n",
               "its function ld takes or returns i32, which is not the type "
               "accessed");
}
END_TEST

int main(void) {
  Suite *s = suite_create("todense");
  TCase *t = tcase_create("lowering");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, test_loads_and_stores_become_calls);
  tcase_add_test(t, test_stores_reach_the_store_function);
  tcase_add_test(t, test_phi_and_select_of_the_pointer);
  tcase_add_test(t, test_uses_it_cannot_lower_are_errors);
  suite_add_tcase(s, t);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  close_sessions();
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
