/*
 * The `tanjit` command end to end: exit status is the entry's return value,
 * C files go through clang, renamed ccalls reach a library by absolute path,
 * and bad input gives one clear line on stderr and a nonzero status.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "../common/run_cli.h"

static char output[8192];

/* The CLI, run with `args`; its output lands in `output`. */
static int run_cli(const char *const *args) {
  return run_tanjit_cli(args, output, sizeof output);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

START_TEST(run_c_returns_exit_code) {
  write_file("exit.c",
             "#include <stdio.h>\n#include <stdlib.h>\n"
             "int main(int argc, char **argv) {\n"
             "  printf(\"args=%d %s\\n\", argc, argv[1]);\n"
             "  return atoi(argv[1]) + argc;\n}\n");
  const char *args[] = {"run", "exit.c", "--", "40", NULL};
  ck_assert_int_eq(run_cli(args), 42);
  ck_assert_ptr_nonnull(strstr(output, "args=2 40"));
  const char *o0[] = {"run", "exit.c", "-O0", "--", "7", NULL};
  ck_assert_int_eq(run_cli(o0), 9);
}
END_TEST

START_TEST(run_ll_with_renamed_ccall_by_path) {
  char ir[2048];
  const char *lib = getenv("TJTEST_LIB");
  snprintf(ir, sizeof ir,
           "declare i32 @\"ejlstr$tjtest_triple$%s\"(i32) #0\n"
           "define i32 @main() {\n"
           "  %%r = call i32 @\"ejlstr$tjtest_triple$%s\"(i32 11)\n"
           "  ret i32 %%r\n}\n"
           "attributes #0 = { \"enzyme_math\"=\"tjtest_triple\" }\n",
           lib, lib);
  write_file("renamed.ll", ir);
  const char *args[] = {"run", "renamed.ll", NULL};
  ck_assert_int_eq(run_cli(args), 33);
}
END_TEST

START_TEST(run_with_lib_and_entry) {
  write_file("entry.ll",
             "declare i32 @tjtest_triple(i32)\n"
             "define i32 @start() {\n"
             "  %r = call i32 @tjtest_triple(i32 4)\n  ret i32 %r\n}\n");
  const char *args[] = {"run", "entry.ll", "--entry", "start",
                        "--lib", getenv("TJTEST_LIB"), NULL};
  ck_assert_int_eq(run_cli(args), 12);
}
END_TEST

START_TEST(emit_prints_optimized_ir) {
  write_file("emit.ll",
             "define i32 @five() {\n  %a = add i32 2, 3\n  ret i32 %a\n}\n");
  const char *args[] = {"emit", "emit.ll", NULL};
  ck_assert_int_eq(run_cli(args), 0);
  ck_assert_ptr_nonnull(strstr(output, "ret i32 5"));
  /* A write that fails is an error, not a silent success. */
  const char *full[] = {"emit", "emit.ll", "-o", "/dev/full", NULL};
  ck_assert_int_eq(run_cli(full), 1);
  ck_assert_ptr_nonnull(strstr(output, "cannot write /dev/full"));
}
END_TEST

START_TEST(errors_are_one_clear_line) {
  const char *missing[] = {"run", "/nonexistent/x.ll", NULL};
  ck_assert_int_eq(run_cli(missing), 1);
  ck_assert_ptr_nonnull(strstr(output, "tanjit: cannot open /nonexistent/x.ll"));

  write_file("bad.ll", "define i32 @main() {\n  ret i32 %nope\n}\n");
  const char *bad[] = {"run", "bad.ll", NULL};
  ck_assert_int_eq(run_cli(bad), 1);
  ck_assert_ptr_nonnull(strstr(output, "bad.ll:2:"));

  write_file("noentry.ll", "define i32 @other() {\n  ret i32 0\n}\n");
  const char *noentry[] = {"run", "noentry.ll", NULL};
  ck_assert_int_eq(run_cli(noentry), 1);
  ck_assert_ptr_nonnull(strstr(output, "no symbol 'main'"));

  const char *badlib[] = {"run", "noentry.ll", "--lib",
                          "libnot-there.so.9", NULL};
  ck_assert_int_eq(run_cli(badlib), 1);
  ck_assert_ptr_nonnull(strstr(output, "libnot-there.so.9"));

  const char *usage[] = {"frobnicate", NULL};
  ck_assert_int_eq(run_cli(usage), 2);
  ck_assert_ptr_nonnull(strstr(output, "unknown command"));

  const char *level[] = {"run", "x.ll", "-O", "9", NULL};
  ck_assert_int_eq(run_cli(level), 2);

  const char *unknown_last[] = {"run", "x.ll", "--bogus", NULL};
  ck_assert_int_eq(run_cli(unknown_last), 2);
  ck_assert_ptr_nonnull(strstr(output, "unknown option --bogus"));

  const char *not_for_emit[] = {"emit", "x.ll", "--lazy", NULL};
  ck_assert_int_eq(run_cli(not_for_emit), 2);
  ck_assert_ptr_nonnull(strstr(output, "--lazy is not for emit"));

  const char *not_for_run[] = {"run", "x.ll", "-o", "out.ll", NULL};
  ck_assert_int_eq(run_cli(not_for_run), 2);
  ck_assert_ptr_nonnull(strstr(output, "-o is not for run"));
}
END_TEST

/* Requests users get wrong in C, with an error that says how to fix them. */
START_TEST(request_errors_say_what_to_do) {
  write_file("sret.c",
             "typedef struct { double x, y, z; } vec3;\n"
             "vec3 __enzyme_fwddiff_v3(void *, ...) __asm__(\"__enzyme_fwddiff\");\n"
             "vec3 curve(double t) { vec3 v = {t, t * t, 3 * t}; return v; }\n"
             "int main(void) { vec3 d = __enzyme_fwddiff_v3((void *)curve, 1.0, 1.0);\n"
             "  return d.y != 2.0; }\n");
  const char *sret[] = {"run", "sret.c", NULL};
  ck_assert_int_eq(run_cli(sret), 1);
  ck_assert_ptr_nonnull(strstr(output, "hidden first pointer"));

  write_file("variadic.c",
             "#include <stdarg.h>\n#include <stdio.h>\n"
             "double __enzyme_fwddiff(void *, ...);\n"
             "__attribute__((noinline)) double sum(int n, ...) {\n"
             "  va_list ap; va_start(ap, n); double s = 0;\n"
             "  for (int i = 0; i < n; i++) s += va_arg(ap, double);\n"
             "  va_end(ap); return s; }\n"
             "double f(double x) { return sum(2, x, x * x); }\n"
             "int main(void) { return __enzyme_fwddiff((void *)f, 1.0, 1.0) != 3.0; }\n");
  const char *variadic[] = {"run", "variadic.c", "-O0", NULL};
  ck_assert_int_eq(run_cli(variadic), 1);
  ck_assert_ptr_nonnull(strstr(output, "variadic function sum"));
}
END_TEST

START_TEST(stats_line_counts_requests) {
  write_file("stats.ll",
             "declare double @__enzyme_fwddiff(ptr, ...)\n"
             "define double @cube(double %x) {\n  %a = fmul double %x, %x\n"
             "  %b = fmul double %a, %x\n  ret double %b\n}\n"
             "define i32 @main() {\n"
             "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @cube, "
             "double 2.0, double 1.0)\n"
             "  %i = fptosi double %d to i32\n  ret i32 %i\n}\n");
  /* (no cache: a cached object would skip what is counted) */
  const char *args[] = {"run", "stats.ll", "--stats", "--no-cache", NULL};
  ck_assert_int_eq(run_cli(args), 12); /* 3 x^2 at 2 */
  ck_assert_msg(strstr(output, "tanjit: stats: 1 module, 1 derivative request;"),
                "%s", output);
  ck_assert_ptr_nonnull(strstr(output, "differentiate / (optimize + codegen) = "));
  const char *plain[] = {"run", "stats.ll", NULL};
  ck_assert_int_eq(run_cli(plain), 12);
  ck_assert_ptr_null(strstr(output, "stats:"));
}
END_TEST

START_TEST(help_lists_every_option) {
  const char *args[] = {"--help", NULL};
  ck_assert_int_eq(run_cli(args), 0);
  const char *options[] = {"run", "emit", "--entry", "--lib", "-L", "-O",
                           "--lazy", "--stats", "-o", "-Xclang-arg"};
  for (size_t i = 0; i < sizeof options / sizeof *options; i++)
    ck_assert_msg(strstr(output, options[i]), "--help lacks %s", options[i]);
}
END_TEST

int main(void) {
  /* Scratch files live in a directory of this run's own, so concurrent
   * builds running the suite do not trample each other. */
  char scratch[] = "/tmp/tanjit-cli-XXXXXX";
  if (!mkdtemp(scratch) || chdir(scratch) != 0)
    return EXIT_FAILURE;
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, run_c_returns_exit_code);
  tcase_add_test(tc, run_ll_with_renamed_ccall_by_path);
  tcase_add_test(tc, run_with_lib_and_entry);
  tcase_add_test(tc, emit_prints_optimized_ir);
  tcase_add_test(tc, errors_are_one_clear_line);
  tcase_add_test(tc, stats_line_counts_requests);
  tcase_add_test(tc, help_lists_every_option);
  tcase_add_test(tc, request_errors_say_what_to_do);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
