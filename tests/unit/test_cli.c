/*
 * The `tanjit` command end to end: exit status is the entry's return value,
 * C and C++ files go through clang, renamed ccalls reach a library by
 * absolute path, and bad input gives one clear line on stderr and a nonzero
 * status (2 for a usage error, with the nearest spelling).  One test per
 * command-line convention: getopt spellings, '-' for stdin (size-limited),
 * '-o -', several modules, source locations first, hints, --version.
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
  ck_assert_str_eq(output, "tanjit: unknown command 'frobnicate' (tanjit --help)\n");

  const char *level[] = {"run", "x.ll", "-O", "9", NULL};
  ck_assert_int_eq(run_cli(level), 2);
  ck_assert_str_eq(output, "tanjit: -O takes 0, 1, 2 or 3, not '9' (tanjit --help)\n");

  const char *unknown_last[] = {"run", "x.ll", "--bogus", NULL};
  ck_assert_int_eq(run_cli(unknown_last), 2);
  ck_assert_str_eq(output, "tanjit: unknown option '--bogus' (tanjit --help)\n");

  const char *not_for_emit[] = {"emit", "x.ll", "--lazy", NULL};
  ck_assert_int_eq(run_cli(not_for_emit), 2);
  ck_assert_str_eq(output, "tanjit: option '--lazy' is not for emit (tanjit --help)\n");

  const char *not_for_run[] = {"run", "x.ll", "-o", "out.ll", NULL};
  ck_assert_int_eq(run_cli(not_for_run), 2);
  ck_assert_str_eq(output, "tanjit: option '-o' is not for run (tanjit --help)\n");
}
END_TEST

/* Usage errors: one line, exit status 2, the nearest spelling suggested. */
START_TEST(usage_errors_suggest) {
  static const struct {
    const char *args[6];
    const char *line;
  } cases[] = {
      {{"run", "x.ll", "--lzy"},
       "tanjit: unknown option '--lzy'; did you mean '--lazy'? (tanjit --help)\n"},
      {{"run", "x.ll", "-lazy"},
       "tanjit: unknown option '-lazy'; did you mean '--lazy'? (tanjit --help)\n"},
      {{"run", "x.ll", "--entyr=f"},
       "tanjit: unknown option '--entyr=f'; did you mean '--entry'? (tanjit --help)\n"},
      {{"emit", "x.ll", "-Xclang-ar", "-g"},
       "tanjit: unknown option '-Xclang-ar'; did you mean '-Xclang-arg'? (tanjit --help)\n"},
      {{"run", "x.ll", "-extra-module", "y.ll"},
       "tanjit: unknown option '-extra-module'; pass each module as one more FILE "
       "(tanjit --help)\n"},
      {{"rn", "x.ll"}, "tanjit: unknown command 'rn'; did you mean 'run'? (tanjit --help)\n"},
      {{"x.ll"},
       "tanjit: unknown command 'x.ll'; did you mean 'tanjit run x.ll'? (tanjit --help)\n"},
      {{"--lazy", "run", "x.ll"},
       "tanjit: missing command (run or emit) before '--lazy' (tanjit --help)\n"},
      {{"run", "x.ll", "--lazy=1"}, "tanjit: option '--lazy' takes no value (tanjit --help)\n"},
      {{"run", "x.ll", "--entry"}, "tanjit: option '--entry' needs a value (tanjit --help)\n"},
      {{"run", "x.ll", "-Xclang-arg"},
       "tanjit: option '-Xclang-arg' needs a value (tanjit --help)\n"},
      {{"run", "x.ll", "--l"},
       "tanjit: option '--l' is ambiguous; it may be --lib --lazy (tanjit --help)\n"},
      {{"run"}, "tanjit: missing FILE (tanjit --help)\n"},
      {{"emit", "a.ll", "b.ll"}, "tanjit: emit takes one FILE, not 'b.ll' too (tanjit --help)\n"},
      {{"emit", "a.ll", "--", "x"},
       "tanjit: program arguments (after --) are for run (tanjit --help)\n"},
      {{"run", "-", "-"},
       "tanjit: standard input ('-') can be only one FILE (tanjit --help)\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    ck_assert_msg(run_cli(cases[i].args) == 2, "case %zu: %s", i, output);
    ck_assert_str_eq(output, cases[i].line);
  }
}
END_TEST

/* --x=v and --x v; short options glued or not; unique prefixes. */
START_TEST(getopt_spellings) {
  write_file("entry2.ll",
             "declare i32 @tjtest_triple(i32)\n"
             "define i32 @start() {\n"
             "  %r = call i32 @tjtest_triple(i32 5)\n  ret i32 %r\n}\n");
  char lib_eq[4200];
  snprintf(lib_eq, sizeof lib_eq, "--lib=%s", getenv("TJTEST_LIB"));
  const char *equals[] = {"run", "--entry=start", lib_eq, "-O0", "entry2.ll", NULL};
  ck_assert_int_eq(run_cli(equals), 15);
  const char *spaced[] = {"run", "entry2.ll", "--ent", "start", "-O", "1", "--lib",
                          getenv("TJTEST_LIB"), NULL};
  ck_assert_int_eq(run_cli(spaced), 15);
  /* -L glued, and a bare soname found there. */
  char dir[4200];
  snprintf(dir, sizeof dir, "-L%s", getenv("TJTEST_LIB_DIR"));
  const char *glued[] = {"run", "entry2.ll", dir, "--entry", "start", "--lib",
                         "libtjtest.so", NULL};
  ck_assert_int_eq(run_cli(glued), 15);
}
END_TEST

/* Several modules: calls between them link; argv[0] is the first FILE. */
START_TEST(run_several_modules) {
  write_file("caller.ll",
             "declare i32 @times10(i32)\n"
             "define i32 @main(i32 %argc, ptr %argv) {\n"
             "  %r = call i32 @times10(i32 %argc)\n  ret i32 %r\n}\n");
  write_file("callee.ll",
             "define i32 @times10(i32 %x) {\n  %r = mul i32 %x, 10\n  ret i32 %r\n}\n");
  const char *args[] = {"run", "caller.ll", "callee.ll", "--", "a", "b", NULL};
  ck_assert_int_eq(run_cli(args), 30);
  const char *alone[] = {"run", "caller.ll", NULL};
  ck_assert_int_eq(run_cli(alone), 1);
  /* lli's habit, arguments right after the module, is answered. */
  const char *lli_style[] = {"run", "callee.ll", "40", NULL};
  ck_assert_int_eq(run_cli(lli_style), 1);
  ck_assert_str_eq(output, "tanjit: cannot open 40: No such file or directory\n"
                           "tanjit: hint: every FILE is a module; the program's "
                           "arguments go after --: tanjit run callee.ll -- 40\n");
}
END_TEST

/* '-' reads IR from standard input, within TANJIT_INPUT_LIMIT. */
START_TEST(stdin_input_with_limit) {
  write_file("five.ll", "define i32 @main() {\n  ret i32 5\n}\n");
  const char *args[] = {"run", "-", NULL};
  ck_assert_int_eq(run_tanjit_cli_stdin(args, "five.ll", output, sizeof output), 5);
  const char *emit[] = {"emit", "-", NULL};
  ck_assert_int_eq(run_tanjit_cli_stdin(emit, "five.ll", output, sizeof output), 0);
  ck_assert_ptr_nonnull(strstr(output, "; ModuleID = '<stdin>'"));

  setenv("TANJIT_INPUT_LIMIT", "16", 1);
  int rc = run_tanjit_cli_stdin(args, "five.ll", output, sizeof output);
  setenv("TANJIT_INPUT_LIMIT", "1K", 1);
  int rc_k = run_tanjit_cli_stdin(args, "five.ll", output + 4096, 4096);
  unsetenv("TANJIT_INPUT_LIMIT");
  ck_assert_int_eq(rc, 1);
  ck_assert_str_eq(output, "tanjit: standard input is larger than 16 bytes "
                           "(TANJIT_INPUT_LIMIT); save it to a file and pass its path\n");
  ck_assert_int_eq(rc_k, 5);

  /* The same limit holds for a FILE (the library reads it). */
  const char *file[] = {"run", "five.ll", NULL};
  setenv("TANJIT_INPUT_LIMIT", "16", 1);
  rc = run_cli(file);
  unsetenv("TANJIT_INPUT_LIMIT");
  ck_assert_int_eq(rc, 1);
  ck_assert_msg(strstr(output, "more than the limit of 16"), "%s", output);
  ck_assert_msg(strstr(output, "\ntanjit: hint: TANJIT_INPUT_LIMIT sets the limit (e.g. "
                               "TANJIT_INPUT_LIMIT=4G)\n"),
                "%s", output);
}
END_TEST

/* -o - is standard output, not a file named '-'. */
START_TEST(output_dash_is_stdout) {
  write_file("seven.ll", "define i32 @seven() {\n  %a = add i32 3, 4\n  ret i32 %a\n}\n");
  unlink("-");
  const char *args[] = {"emit", "seven.ll", "-o", "-", NULL};
  ck_assert_int_eq(run_cli(args), 0);
  ck_assert_ptr_nonnull(strstr(output, "ret i32 7"));
  ck_assert_int_ne(access("-", F_OK), 0);
  const char *to_file[] = {"emit", "seven.ll", "--output=seven.out.ll", NULL};
  ck_assert_int_eq(run_cli(to_file), 0);
  ck_assert_str_eq(output, "");
  ck_assert_int_eq(access("seven.out.ll", F_OK), 0);
}
END_TEST

/* C++ by any of its suffixes, through clang++ with libstdc++. */
START_TEST(cxx_input_compiled) {
  static const char program[] =
      "#include <chrono>\n#include <vector>\n"
      "double __enzyme_fwddiff(void *, ...);\n"
      "template <typename T> static T cube(T x) { return x * x * x; }\n"
      "static double f(double x) { return cube(x); }\n"
      "int main() {\n"
      "  std::vector<double> v(3, 2.0);\n" /* operator new, from libstdc++ */
      "  auto t = std::chrono::steady_clock::now();\n"
      "  (void)t;\n"
      "  return (int)__enzyme_fwddiff((void *)f, v[1], 1.0);\n" /* 3 x^2 = 12 */
      "}\n";
  static const char *const names[] = {"prog.cpp", "prog.cc", "prog.cxx", "prog.C"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    write_file(names[i], program);
    const char *args[] = {"run", names[i], NULL};
    ck_assert_msg(run_cli(args) == 12, "%s: %s", names[i], output);
  }
}
END_TEST

/* Library errors with a source location print it first, compiler style:
 * C gets line tables without being asked. */
START_TEST(errors_carry_source_location) {
  write_file("nodiff.c",
             "double __enzyme_fwddiff(void *, ...);\n"
             "double unknown(double);\n"
             "double f(double x) {\n"
             "  return unknown(x) * 2;\n"
             "}\n"
             "int main(void) { return __enzyme_fwddiff((void *)f, 1.0, 1.0) > 0; }\n");
  const char *args[] = {"run", "nodiff.c", NULL};
  ck_assert_int_eq(run_cli(args), 1);
  /* Line and column of the call (`unknown(x)` starts at column 10). */
  ck_assert_msg(!strncmp(output, "nodiff.c:4:10: error: ", strlen("nodiff.c:4:10: error: ")),
                "%s", output);
  ck_assert_ptr_nonnull(strstr(output, "derivative for call to unknown"));
  ck_assert_ptr_null(strstr(output, " at nodiff.c"));

  write_file("parse.ll", "define i32 @main() {\n  ret i32 %nope\n}\n");
  const char *parse[] = {"run", "parse.ll", NULL};
  ck_assert_int_eq(run_cli(parse), 1);
  static const char parse_line[] =
      "parse.ll:2:11: error: malformed LLVM IR: use of undefined value '%nope'\n";
  ck_assert_msg(!strncmp(output, parse_line, strlen(parse_line)), "%s", output);
}
END_TEST

/* -g: full debug info from clang; line tables only without it. */
START_TEST(debug_flag_reaches_clang) {
  write_file("dbg.c", "int twice(int x) { int y = 2 * x; return y; }\n");
  const char *plain[] = {"emit", "dbg.c", "-O0", NULL};
  ck_assert_int_eq(run_cli(plain), 0);
  ck_assert_ptr_nonnull(strstr(output, "!DILocation(line: 1"));
  ck_assert_ptr_null(strstr(output, "DILocalVariable"));
  const char *full[] = {"emit", "dbg.c", "-O0", "-g", NULL};
  ck_assert_int_eq(run_cli(full), 0);
  ck_assert_ptr_nonnull(strstr(output, "!DILocalVariable(name: \"y\""));
}
END_TEST

/* A clang that cannot start is named, with the way to name another. */
START_TEST(missing_clang_is_named) {
  write_file("any.c", "int main(void) { return 0; }\n");
  setenv("TANJIT_CLANG", "/nonexistent/clang", 1);
  const char *args[] = {"run", "any.c", NULL};
  int rc = run_cli(args);
  unsetenv("TANJIT_CLANG");
  ck_assert_int_eq(rc, 1);
  ck_assert_str_eq(output, "tanjit: cannot run /nonexistent/clang to compile any.c: "
                           "No such file or directory (TANJIT_CLANG names another)\n");
}
END_TEST

/* Unresolved CUDA calls hint at libcuda and the simulator; others at --lib. */
START_TEST(unresolved_externals_hint) {
  write_file("cuda.ll",
             "declare i32 @cuInit(i32)\ndeclare i32 @cuDeviceGet(ptr, i32)\n"
             "declare i32 @cuCtxCreate_v2(ptr, i32, i32)\n"
             "declare i32 @cuMemAlloc_v2(ptr, i64)\n"
             "define i32 @main() {\n"
             "  %a = call i32 @cuInit(i32 0)\n"
             "  %b = call i32 @cuDeviceGet(ptr null, i32 0)\n"
             "  %c = call i32 @cuCtxCreate_v2(ptr null, i32 0, i32 0)\n"
             "  %d = call i32 @cuMemAlloc_v2(ptr null, i64 8)\n"
             "  ret i32 %a\n}\n");
  const char *args[] = {"run", "cuda.ll", NULL};
  ck_assert_int_eq(run_cli(args), 1);
  char hint[4300];
  snprintf(hint, sizeof hint,
           " and others: pass --lib libcuda.so.1 (add -L %s for tanjit's CUDA "
           "simulator)\n",
           getenv("CUDASIM_DIR"));
  ck_assert_msg(strstr(output, "\ntanjit: hint: CUDA driver calls cu"), "%s", output);
  ck_assert_msg(strstr(output, hint), "%s", output);
  ck_assert_ptr_null(strstr(output, "--lazy"));

  /* A renamed ccall whose library is not found: -L, and where the simulator is. */
  write_file("renamed_cuda.ll",
             "declare i32 @\"ejlstr$cuInit$libcuda.so.1\"(i32)\n"
             "define i32 @main() {\n"
             "  %a = call i32 @\"ejlstr$cuInit$libcuda.so.1\"(i32 0)\n  ret i32 %a\n}\n");
  const char *renamed[] = {"run", "renamed_cuda.ll", NULL};
  ck_assert_int_eq(run_cli(renamed), 1);
  snprintf(hint, sizeof hint,
           "\ntanjit: hint: -L DIR searches DIR for libcuda.so.1 (add -L %s for "
           "tanjit's CUDA simulator)\n",
           getenv("CUDASIM_DIR"));
  ck_assert_msg(strstr(output, hint), "%s", output);

  write_file("host.ll",
             "declare i32 @host_scale(i32)\n"
             "define i32 @main() {\n"
             "  %a = call i32 @host_scale(i32 2)\n  ret i32 %a\n}\n");
  const char *host[] = {"run", "host.ll", NULL};
  ck_assert_int_eq(run_cli(host), 1);
  ck_assert_msg(strstr(output, "\ntanjit: hint: host_scale is defined in no module, "
                               "--lib library or the process: pass --lib LIB for the "
                               "library that defines it (-L DIR to search DIR for a "
                               "bare soname), or --lazy to fail only if it is called\n"),
                "%s", output);
}
END_TEST

START_TEST(version_names_tanjit_and_llvm) {
  const char *args[] = {"--version", NULL};
  ck_assert_int_eq(run_cli(args), 0);
  ck_assert_str_eq(output, "tanjit " TANJIT_TEST_VERSION " (LLVM " TANJIT_TEST_LLVM_VERSION
                           ")\n");
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
  /* the request returns through sret too: its result is the tangent, as
   * in Enzyme (d = {1, 2t, 3} at t = 1) */
  const char *sret[] = {"run", "sret.c", NULL};
  ck_assert_int_eq(run_cli(sret), 0);

  /* ... but a request that does not leaves the hidden pointer unpassed */
  write_file("sret_scalar.c",
             "typedef struct { double x, y, z; } vec3;\n"
             "double __enzyme_fwddiff(void *, ...);\n"
             "vec3 curve(double t) { vec3 v = {t, t * t, 3 * t}; return v; }\n"
             "int main(void) { return __enzyme_fwddiff((void *)curve, 1.0, 1.0) != 2.0; }\n");
  const char *sret_scalar[] = {"run", "sret_scalar.c", NULL};
  ck_assert_int_eq(run_cli(sret_scalar), 1);
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

/* The stats line counts the rule families' lookups against the call sites
 * of the modules differentiated: each call site's rule is looked up once,
 * however often the analyses and the rules ask. */
START_TEST(stats_line_counts_rule_lookups_per_call_site) {
  write_file("lookups.ll",
             "declare double @__enzyme_fwddiff(ptr, ...)\n"
             "declare double @sin(double)\ndeclare double @cos(double)\n"
             "declare double @exp(double)\n"
             "define internal double @g(double %x) {\n"
             "  %a = call double @exp(double %x)\n"
             "  %b = call double @exp(double %a)\n  ret double %b\n}\n"
             "define double @f(double %x) {\n"
             "  %s = call double @sin(double %x)\n"
             "  %c = call double @cos(double %x)\n"
             "  %p = fmul double %s, %c\n"
             "  %e = call double @g(double %p)\n"
             "  %r = fadd double %p, %e\n  ret double %r\n}\n"
             "define i32 @main() {\n"
             "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, "
             "double 0.0, double 1.0)\n"
             "  %i = fptosi double %d to i32\n  ret i32 %i\n}\n");
  const char *args[] = {"run", "lookups.ll", "--stats", "--no-cache", NULL};
  /* d/dx (sin x cos x + exp(exp(sin x cos x))) at 0 = 1 + e */
  ck_assert_int_eq(run_cli(args), 3);
  /* six call sites: sin, cos, g and the two exp in the functions
   * differentiated, and the request; the five in f and g are looked up
   * once each (the request is decoded, not looked up) */
  ck_assert_msg(strstr(output, "; 5 rule lookups for 6 call sites"), "%s",
                output);
}
END_TEST

START_TEST(help_lists_every_option) {
  const char *args[] = {"--help", NULL};
  ck_assert_int_eq(run_cli(args), 0);
  const char *options[] = {"run", "emit", "--entry=NAME", "--lib=LIB", "-L DIR", "-O N",
                           "--lazy", "--stats", "-g ", "-Xclang-arg ARG",
                           "-o, --output=OUT", "--help", "--version", "TANJIT_CLANG",
                           "TANJIT_INPUT_LIMIT", ".cpp", "'-'"};
  for (size_t i = 0; i < sizeof options / sizeof *options; i++)
    ck_assert_msg(strstr(output, options[i]), "--help lacks %s", options[i]);
  /* Short: one screen (40 lines), no line past 80 columns. */
  int lines = 0;
  for (const char *p = output; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    ck_assert_msg(len <= 80, "--help line longer than 80: %.*s", (int)len, p);
    lines++;
    p += len + (nl != NULL);
  }
  ck_assert_int_le(lines, 40);
  const char *in_command[] = {"run", "x.ll", "--help", NULL};
  static char first[sizeof output];
  strcpy(first, output);
  ck_assert_int_eq(run_cli(in_command), 0);
  ck_assert_str_eq(output, first);
}
END_TEST

/* --pre-ad names the passes run on C before differentiation: a pipeline
 * LLVM cannot parse is an error naming it; '' runs none; -O0 runs none
 * whatever it says.  `rolled`, and `clang` under --strict-derivatives, are
 * pass text from -O2 on (src/cli/pipeline_text.c), which this LLVM must
 * parse. */
START_TEST(pre_ad_pipeline_is_named) {
  write_file("twice.c", "int main(void) { return 2 * 21; }\n");
  const char *bogus[] = {"run", "twice.c", "--pre-ad=no-such-pass", NULL};
  ck_assert_int_eq(run_cli(bogus), 1);
  ck_assert_msg(strstr(output, "tanjit: the passes before differentiation "
                               "('no-such-pass') failed on twice.c: "),
                "%s", output);
  const char *none[] = {"run", "twice.c", "--pre-ad=", NULL};
  ck_assert_int_eq(run_cli(none), 42);
  const char *o0[] = {"run", "twice.c", "-O0", "--pre-ad=no-such-pass", NULL};
  ck_assert_int_eq(run_cli(o0), 42);
  const char *written[][6] = {
      {"run", "twice.c", "-O2", "--pre-ad=rolled", NULL},
      {"run", "twice.c", "-O3", "--pre-ad=rolled", NULL},
      {"run", "twice.c", "-O2", "--strict-derivatives", NULL},
      {"run", "twice.c", "-O3", "--pre-ad=clang", "--strict-derivatives", NULL}};
  for (size_t i = 0; i < sizeof written / sizeof *written; i++)
    ck_assert_msg(run_cli(written[i]) == 42, "%s %s: %s", written[i][2], written[i][3],
                  output);
}
END_TEST

/* Reads a file `emit` wrote into buf (NUL-terminated); its length. */
static size_t read_file(const char *path, char *buf, size_t size) {
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(buf, 1, size - 1, f);
  fclose(f);
  buf[n] = 0;
  return n;
}

/* A vector-mode request whose function's rolled loop, differentiated,
 * would hold more pointers than x86-64 has registers (two streams, p's row
 * and q: 2 x (8 + 1) + 1 > 15) differentiates a copy left rolled before
 * differentiation (src/cli/wide_copy.c), named F.tanjit.wide; a width-4
 * request of the same function (2 x 5 + 1) and a width-8 request of a
 * one-stream loop (1 x 9 + 1) keep clang's form; --pre-ad-wide=off takes
 * no copy, =all every vector-mode one; a function reading a mutable
 * static gets none (a copy would be a second variable).
 * tests/programs/wide_rolled_copy.c checks the numbers. */
START_TEST(wide_requests_take_a_rolled_copy) {
  write_file("wide.c",
             "extern int enzyme_dup, enzyme_width;\n"
             "void __enzyme_fwddiff(void *, ...);\n"
             "static double scale = 1.0;\n"
             "__attribute__((noinline)) void dist(const double *p, const double *q,\n"
             "                                    double *d) {\n"
             "  for (int r = 0; r < 6; r++) {\n"
             "    double s = 0;\n"
             "    for (int c = 0; c < 40; c++) s += (p[r * 40 + c] - q[c]) * (p[r * 40 + c] - q[c]);\n"
             "    d[r] = s;\n"
             "  }\n"
             "}\n"
             "__attribute__((noinline)) void norm(const double *p, double *d) {\n"
             "  for (int r = 0; r < 6; r++) {\n"
             "    double s = 0;\n"
             "    for (int c = 0; c < 40; c++) s += p[r * 40 + c] * p[r * 40 + c];\n"
             "    d[r] = s;\n"
             "  }\n"
             "}\n"
             "__attribute__((noinline)) void scaled(const double *p, const double *q,\n"
             "                                      double *d) {\n"
             "  for (int r = 0; r < 6; r++) {\n"
             "    double s = 0;\n"
             "    for (int c = 0; c < 40; c++) s += scale * p[r * 40 + c] * q[c];\n"
             "    d[r] = s;\n"
             "  }\n"
             "}\n"
             "double p[240], q[40], d[6], a[8][240], b[8][40], t[8][6];\n"
             "int main(int argc, char **argv) {\n"
             "  (void)argv; scale = argc;\n"
             "  __enzyme_fwddiff((void *)dist, enzyme_width, 8, enzyme_dup, p, a[0], a[1],\n"
             "    a[2], a[3], a[4], a[5], a[6], a[7], enzyme_dup, q, b[0], b[1], b[2], b[3],\n"
             "    b[4], b[5], b[6], b[7], enzyme_dup, d, t[0], t[1], t[2], t[3], t[4], t[5],\n"
             "    t[6], t[7]);\n"
             "  __enzyme_fwddiff((void *)dist, enzyme_width, 4, enzyme_dup, p, a[0], a[1],\n"
             "    a[2], a[3], enzyme_dup, q, b[0], b[1], b[2], b[3], enzyme_dup, d, t[0],\n"
             "    t[1], t[2], t[3]);\n"
             "  __enzyme_fwddiff((void *)norm, enzyme_width, 8, enzyme_dup, p, a[0], a[1],\n"
             "    a[2], a[3], a[4], a[5], a[6], a[7], enzyme_dup, d, t[0], t[1], t[2], t[3],\n"
             "    t[4], t[5], t[6], t[7]);\n"
             "  __enzyme_fwddiff((void *)scaled, enzyme_width, 8, enzyme_dup, p, a[0], a[1],\n"
             "    a[2], a[3], a[4], a[5], a[6], a[7], enzyme_dup, q, b[0], b[1], b[2], b[3],\n"
             "    b[4], b[5], b[6], b[7], enzyme_dup, d, t[0], t[1], t[2], t[3], t[4], t[5],\n"
             "    t[6], t[7]);\n"
             "  return 0;\n"
             "}\n");
  static char ir[1 << 20];
  const char *auto_mode[] = {"emit", "wide.c", "-o", "wide-auto.ll", NULL};
  ck_assert_int_eq(run_cli(auto_mode), 0);
  read_file("wide-auto.ll", ir, sizeof ir);
  ck_assert_ptr_nonnull(strstr(ir, "@fwddiffe8dist.tanjit.wide"));
  ck_assert_ptr_nonnull(strstr(ir, "@fwddiffe4dist("));
  ck_assert_ptr_null(strstr(ir, "@fwddiffe4dist.tanjit.wide"));
  ck_assert_ptr_nonnull(strstr(ir, "@fwddiffe8norm("));
  ck_assert_ptr_null(strstr(ir, "norm.tanjit.wide"));
  ck_assert_ptr_null(strstr(ir, "scaled.tanjit.wide"));
  const char *off[] = {"emit", "wide.c", "--pre-ad-wide=off", "-o", "wide-off.ll", NULL};
  ck_assert_int_eq(run_cli(off), 0);
  read_file("wide-off.ll", ir, sizeof ir);
  ck_assert_ptr_null(strstr(ir, ".tanjit.wide"));
  ck_assert_ptr_nonnull(strstr(ir, "@fwddiffe8dist("));
  const char *all[] = {"emit", "wide.c", "--pre-ad-wide=all", "-o", "wide-all.ll", NULL};
  ck_assert_int_eq(run_cli(all), 0);
  read_file("wide-all.ll", ir, sizeof ir);
  ck_assert_ptr_nonnull(strstr(ir, "@fwddiffe4dist.tanjit.wide"));
  ck_assert_ptr_nonnull(strstr(ir, "@fwddiffe8norm.tanjit.wide"));
  ck_assert_ptr_null(strstr(ir, "scaled.tanjit.wide"));
  const char *bad[] = {"emit", "wide.c", "--pre-ad-wide=8", NULL};
  ck_assert_int_eq(run_cli(bad), 2);
  ck_assert_msg(strstr(output, "--pre-ad-wide takes 'auto', 'off' or 'all', not '8'"),
                "%s", output);
}
END_TEST

/* The same in C++, where the request is an invoke (a vector with a
 * destructor is live across it) and the function calls an inline
 * template: the copy is taken, and its tangents are exact. */
START_TEST(wide_requests_in_cxx_take_a_rolled_copy) {
  write_file("wide.cpp",
             "#include <cstdio>\n"
             "#include <vector>\n"
             "extern int enzyme_dup, enzyme_width;\n"
             "extern \"C\" void __enzyme_fwddiff(void *, ...);\n"
             "template <int C> inline double dot(const double *a, const double *b) {\n"
             "  double s = 0; for (int c = 0; c < C; c++) s += a[c] * b[c]; return s;\n"
             "}\n"
             "struct Mat { std::vector<double> v; };\n"
             "__attribute__((noinline)) void rows(const double *p, const double *q, double *d) {\n"
             "  for (int r = 0; r < 6; r++) d[r] = dot<40>(p + 40 * r, q);\n"
             "}\n"
             "double p[240], q[40], d[6], a[8][240], b[8][40], t[8][6];\n"
             "int main() {\n"
             "  Mat m; m.v.assign(3, 1.0);\n"
             "  for (int i = 0; i < 240; i++) { p[i] = i * 0.01; for (int l = 0; l < 8; l++) a[l][i] = l == 0; }\n"
             "  for (int i = 0; i < 40; i++) { q[i] = 1 + i; for (int l = 0; l < 8; l++) b[l][i] = l == 1; }\n"
             "  __enzyme_fwddiff((void *)rows, enzyme_width, 8, enzyme_dup, p, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7],\n"
             "    enzyme_dup, q, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], enzyme_dup, d, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]);\n"
             "  double want0 = 0, want1 = 0; for (int c = 0; c < 40; c++) { want0 += q[c]; want1 += p[40 + c]; }\n"
             "  std::printf(\"%g %g | %g %g | %g\\n\", t[0][0], want0, t[1][1], want1, m.v[2]);\n"
             "  return !(t[0][0] == want0 && t[1][1] == want1);\n"
             "}\n");
  const char *run[] = {"run", "wide.cpp", NULL};
  ck_assert_int_eq(run_cli(run), 0);
  ck_assert_ptr_nonnull(strstr(output, "820 820 | 23.8 23.8 | 1"));
  static char ir[1 << 20];
  const char *emit[] = {"emit", "wide.cpp", "-o", "wide-cpp.ll", NULL};
  ck_assert_int_eq(run_cli(emit), 0);
  read_file("wide-cpp.ll", ir, sizeof ir);
  ck_assert_ptr_nonnull(strstr(ir, "@fwddiffe8_Z4rowsPKdS0_Pd.tanjit.wide"));
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
  tcase_add_test(tc, stats_line_counts_rule_lookups_per_call_site);
  tcase_add_test(tc, help_lists_every_option);
  tcase_add_test(tc, request_errors_say_what_to_do);
  tcase_add_test(tc, usage_errors_suggest);
  tcase_add_test(tc, getopt_spellings);
  tcase_add_test(tc, run_several_modules);
  tcase_add_test(tc, stdin_input_with_limit);
  tcase_add_test(tc, output_dash_is_stdout);
  tcase_add_test(tc, cxx_input_compiled);
  tcase_add_test(tc, errors_carry_source_location);
  tcase_add_test(tc, debug_flag_reaches_clang);
  tcase_add_test(tc, missing_clang_is_named);
  tcase_add_test(tc, unresolved_externals_hint);
  tcase_add_test(tc, version_names_tanjit_and_llvm);
  tcase_add_test(tc, pre_ad_pipeline_is_named);
  tcase_add_test(tc, wide_requests_take_a_rolled_copy);
  tcase_add_test(tc, wide_requests_in_cxx_take_a_rolled_copy);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
