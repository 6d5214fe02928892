/*
 * Hostile modules (issue 10): each class that used to abort, crash, print or
 * run wrong code is refused with its exact error, or runs right; nothing is
 * written to stderr; the session still runs a valid module afterwards.
 * Reverse requests of the wrong shape (section 12) are refused naming the
 * request, the function and the caller.
 */
#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/run_cli.h"
#include "../unit/check_main.h"
#include <llvm-c/Core.h>

#include "tanjit/tanjit.h"

static tanjit_session *session_with(const tanjit_options *o) {
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(o, &err);
  ck_assert_msg(s, "session: %s", tanjit_error_message(err));
  return s;
}

static tanjit_session *new_session(void) { return session_with(NULL); }

static void load_ok(tanjit_session *s, const char *ir, const char *name) {
  tanjit_error *err = NULL;
  int rc = tanjit_load_memory(s, ir, strlen(ir), name, &err);
  ck_assert_msg(rc == 0, "load %s: %s", name, tanjit_error_message(err));
}

/* Expects load to fail with `code` and a message holding `needle`. */
static void load_fails(tanjit_session *s, const char *ir, tanjit_error_code code,
                       const char *needle) {
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_load_memory(s, ir, strlen(ir), "hostile.ll", &err), -1);
  ck_assert_ptr_nonnull(err);
  ck_assert_msg(strstr(tanjit_error_message(err), needle), "message: %s",
                tanjit_error_message(err));
  ck_assert_int_eq(tanjit_error_get_code(err), code);
  tanjit_error_free(err);
}

static void lookup_fails(tanjit_session *s, const char *symbol,
                         tanjit_error_code code, const char *needle) {
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, symbol, &err));
  ck_assert_ptr_nonnull(err);
  ck_assert_msg(strstr(tanjit_error_message(err), needle), "message: %s",
                tanjit_error_message(err));
  ck_assert_int_eq(tanjit_error_get_code(err), code);
  tanjit_error_free(err);
}

static int call_int(tanjit_session *s, const char *symbol) {
  tanjit_error *err = NULL;
  int (*f)(void) = (int (*)(void))(uintptr_t)tanjit_lookup(s, symbol, &err);
  ck_assert_msg(f, "lookup %s: %s", symbol, tanjit_error_message(err));
  return f();
}

static void assert_still_usable(tanjit_session *s) {
  static int n;
  char ir[200], name[32];
  snprintf(name, sizeof name, "usable%d", n++);
  snprintf(ir, sizeof ir, "define i32 @%s() {\n  ret i32 12\n}\n", name);
  load_ok(s, ir, name);
  ck_assert_int_eq(call_int(s, name), 12);
}

static int has_warning(tanjit_session *s, const char *needle) {
  for (size_t i = 0; i < tanjit_session_warning_count(s); i++)
    if (strstr(tanjit_session_warning(s, i), needle))
      return 1;
  return 0;
}

/* fd 2 goes to a file from capture_stderr() to captured_stderr(), which
 * returns what was written there (static buffer). */
static int saved_stderr = -1, capture_fd = -1;
static void capture_stderr(void) {
  char path[] = "/tmp/tanjit-stderr-XXXXXX";
  capture_fd = mkstemp(path);
  ck_assert_int_ge(capture_fd, 0);
  unlink(path);
  fflush(stderr);
  saved_stderr = dup(2);
  dup2(capture_fd, 2);
}
static const char *captured_stderr(void) {
  static char text[4096];
  fflush(stderr);
  dup2(saved_stderr, 2);
  close(saved_stderr);
  lseek(capture_fd, 0, SEEK_SET);
  ssize_t n = read(capture_fd, text, sizeof text - 1);
  text[n > 0 ? n : 0] = '\0';
  close(capture_fd);
  return text;
}

/* ---- 1: what LLVM aborts on -------------------------------------------- */

/* Whether /proc/cpuinfo lists `flag` for this machine's CPU. */
static int cpu_has_flag(const char *flag) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[8192];
  int found = 0;
  while (f && !found && fgets(line, sizeof line, f))
    if (strncmp(line, "flags", 5) == 0) {
      char key[64];
      snprintf(key, sizeof key, " %s", flag);
      char *at = strstr(line, key);
      found = at && (at[strlen(key)] == ' ' || at[strlen(key)] == '\n');
      break;
    }
  if (f)
    fclose(f);
  return found;
}

START_TEST(cpu_for_32bit_x86_is_refused) {
  tanjit_session *s = new_session();
  load_fails(s,
             "define i32 @main() #0 {\n  ret i32 7\n}\n"
             "attributes #0 = { \"target-cpu\"=\"i686\" "
             "\"target-features\"=\"+cx8,+fxsr,+mmx,+sse,+sse2,+x87\" }\n",
             TANJIT_ERR_UNSUPPORTED, "target-cpu \"i686\" is a 32-bit CPU");
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

/* One-byte changes of "x86-64" and unknown features: dropped with a
 * warning, never printed, and the code runs. */
START_TEST(unknown_cpu_and_features_are_dropped_quietly) {
  static const char *const cpus[] = {"x86-65", "x86_64", "x86-6", "y86-64",
                                     "x86-64-v9"};
  tanjit_session *s = new_session();
  capture_stderr();
  for (size_t i = 0; i < sizeof cpus / sizeof *cpus; i++) {
    char ir[512], name[16];
    snprintf(name, sizeof name, "cpu%zu", i);
    snprintf(ir, sizeof ir,
             "define i32 @%s() #0 {\n  ret i32 %zu\n}\n"
             "attributes #0 = { \"target-cpu\"=\"%s\" \"tune-cpu\"=\"%s\" "
             "\"target-features\"=\"+notafeature,-sse2,+sse2\" }\n",
             name, i + 40, cpus[i], cpus[i]);
    load_ok(s, ir, name);
    ck_assert_int_eq(call_int(s, name), (int)i + 40);
  }
  const char *printed = captured_stderr();
  ck_assert_msg(!*printed, "stderr: %s", printed);
  ck_assert(has_warning(s, "target-cpu \"x86-65\" is neither this host's CPU"));
  ck_assert(has_warning(s, "target feature \"+notafeature\""));
  ck_assert(has_warning(s, "target feature \"-sse2\" turns off"));
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(feature_the_host_lacks_is_refused) {
  tanjit_session *s = new_session();
  const char *ir = "define i32 @main() #0 {\n  ret i32 7\n}\n"
                   "attributes #0 = { \"target-features\"=\"+avx512f\" }\n";
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    load_ok(s, ir, "avx512.ll");
    ck_assert_int_eq(call_int(s, "main"), 7);
  } else {
    load_fails(s, ir, TANJIT_ERR_UNSUPPORTED,
               "function main needs the CPU feature avx512f");
  }
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(intrinsics_of_other_targets_are_refused) {
  tanjit_session *s = new_session();
  load_fails(s,
             "declare void @llvm.aarch64.isb(i32 immarg)\n"
             "define i32 @f() {\n  call void @llvm.aarch64.isb(i32 15)\n"
             "  ret i32 1\n}\n",
             TANJIT_ERR_UNSUPPORTED,
             "function f uses llvm.aarch64.isb, an intrinsic of another "
             "target (aarch64)");
  if (!cpu_has_flag("rtm"))
    load_fails(s,
               "declare i32 @llvm.x86.xbegin()\n"
               "define i32 @t() {\n  %r = call i32 @llvm.x86.xbegin()\n"
               "  ret i32 %r\n}\n",
               TANJIT_ERR_UNSUPPORTED,
               "function t uses llvm.x86.xbegin, which needs the CPU feature rtm");
  load_fails(s,
             "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
             "define i32 @g() {\n  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
             "  ret i32 %t\n}\n",
             TANJIT_ERR_UNSUPPORTED, "an intrinsic of another target (nvvm)");
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(scalable_vectors_are_refused_in_load_and_emit) {
  static const char *const irs[] = {
      "define i32 @f() {\n  %a = alloca <vscale x 4 x i32>\n  ret i32 1\n}\n",
      "define void @f(<vscale x 2 x i64> %v) {\n  ret void\n}\n",
      "define i32 @f(ptr %p) {\n  %v = load <vscale x 4 x i32>, ptr %p\n"
      "  %e = extractelement <vscale x 4 x i32> %v, i32 0\n  ret i32 %e\n}\n",
      "define i64 @f() {\n  %n = extractelement <vscale x 2 x i64> "
      "zeroinitializer, i32 0\n  ret i64 %n\n}\n"};
  tanjit_session *s = new_session();
  load_fails(s,
             "declare i64 @llvm.vscale.i64()\ndefine i64 @n() {\n"
             "  %v = call i64 @llvm.vscale.i64()\n  ret i64 %v\n}\n",
             TANJIT_ERR_UNSUPPORTED,
             "function n uses llvm.vscale.i64, but this host's target (x86_64) "
             "has no scalable vectors");
  if (!cpu_has_flag("amx_tile"))
    load_fails(s,
               "define void @amx(ptr %p) {\n  %t = load volatile x86_amx, ptr %p\n"
               "  store volatile x86_amx %t, ptr %p\n  ret void\n}\n",
               TANJIT_ERR_UNSUPPORTED,
               "function amx uses the x86_amx type, which needs the CPU feature "
               "amx-tile");
  for (size_t i = 0; i < sizeof irs / sizeof *irs; i++) {
    load_fails(s, irs[i], TANJIT_ERR_UNSUPPORTED, "uses a scalable vector type");
    tanjit_error *err = NULL;
    ck_assert_ptr_null(tanjit_emit_memory(s, irs[i], strlen(irs[i]), "e.ll", &err));
    ck_assert_msg(strstr(tanjit_error_message(err), "scalable vector"), "%s",
                  tanjit_error_message(err));
    tanjit_error_free(err);
  }
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(a_module_without_triple_or_layout_gets_the_hosts) {
  tanjit_session *s = new_session();
  load_fails(s,
             "target triple = \"aarch64-unknown-linux-gnu\"\n"
             "define i32 @f() {\n  ret i32 1\n}\n",
             TANJIT_ERR_UNSUPPORTED, "target triple \"aarch64-unknown-linux-gnu\"");
  load_fails(s,
             "target datalayout = \"E-m:e-i64:64-n32:64-S128\"\n"
             "define i32 @f() {\n  ret i32 1\n}\n",
             TANJIT_ERR_UNSUPPORTED, "is not this host's");
  load_ok(s, "define i32 @plain() {\n  ret i32 5\n}\n", "plain.ll");
  ck_assert_int_eq(call_int(s, "plain"), 5);
  tanjit_session_free(s);
}
END_TEST

/* ---- 3: deep nesting ----------------------------------------------------- */

/* `open` repeated n times, `middle`, `close` repeated n times. */
static char *nest(const char *prefix, const char *open, const char *middle,
                  const char *close, const char *suffix, int n) {
  size_t len = strlen(prefix) + strlen(middle) + strlen(suffix) +
               (size_t)n * (strlen(open) + strlen(close)) + 1;
  char *text = malloc(len), *p = text;
  ck_assert_ptr_nonnull(text);
  p = stpcpy(p, prefix);
  for (int i = 0; i < n; i++)
    p = stpcpy(p, open);
  p = stpcpy(p, middle);
  for (int i = 0; i < n; i++)
    p = stpcpy(p, close);
  stpcpy(p, suffix);
  return text;
}

/* 10,000 nested constant GEPs: parsed, optimized and compiled on the big
 * stack (they overflowed an 8 MiB stack), with the right value. */
START_TEST(deep_constant_expressions_compile_right) {
  char *ir = nest("@g = global [4 x i8] zeroinitializer\n@p = global ",
                  "ptr getelementptr (i8, ", "ptr @g", ", i64 1)",
                  "\ndefine i64 @offset() {\n  %v = load ptr, ptr @p\n"
                  "  %a = ptrtoint ptr %v to i64\n"
                  "  %b = ptrtoint ptr @g to i64\n  %d = sub i64 %a, %b\n"
                  "  ret i64 %d\n}\n",
                  10000);
  tanjit_session *s = new_session();
  load_ok(s, ir, "deep_constexpr.ll");
  free(ir);
  tanjit_error *err = NULL;
  long (*offset)(void) = (long (*)(void))(uintptr_t)tanjit_lookup(s, "offset", &err);
  ck_assert_msg(offset, "%s", tanjit_error_message(err));
  ck_assert_int_eq(offset(), 10000);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

/* Selects that each name the pointer below twice, 60 deep: the walk that
 * finds what an address is based on (src/ad/ir/alias_scopes.c) once
 * doubled per level, and the load never finished.  The derivative of
 * x[0]^2 through them is 2 x[0] dx[0]. */
START_TEST(a_diamond_chain_of_selects_differentiates) {
  static char ir[8192];
  size_t n = (size_t)snprintf(ir, sizeof ir, "define double @sq(ptr %%x, i1 %%c) {\nentry:\n"
                              "  %%s0 = select i1 %%c, ptr %%x, ptr %%x\n");
  for (int i = 1; i < 60; i++)
    n += (size_t)snprintf(ir + n, sizeof ir - n,
                          "  %%s%d = select i1 %%c, ptr %%s%d, ptr %%s%d\n", i, i - 1, i - 1);
  n += (size_t)snprintf(ir + n, sizeof ir - n, "%s",
            "  %v = load double, ptr %s59\n  %r = fmul double %v, %v\n  ret double %r\n}\n"
            "declare double @__enzyme_fwddiff(ptr, ...)\n"
            "define double @dsq(ptr %x, ptr %dx, i1 %c) {\n"
            "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @sq, metadata !\"enzyme_dup\", "
            "ptr %x, ptr %dx, metadata !\"enzyme_const\", i1 %c)\n  ret double %d\n}\n");
  ck_assert_uint_lt(n, sizeof ir);
  tanjit_session *s = new_session();
  load_ok(s, ir, "diamond.ll");
  tanjit_error *err = NULL;
  double (*dsq)(double *, double *, _Bool) =
      (double (*)(double *, double *, _Bool))(uintptr_t)tanjit_lookup(s, "dsq", &err);
  ck_assert_msg(dsq, "%s", tanjit_error_message(err));
  double x = 3.0, dx = 0.5;
  ck_assert_double_eq_tol(dsq(&x, &dx, 1), 3.0, 1e-15);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

/* Offsets near 2^63 in a branch never taken (a fuzzer's mutation): type
 * analysis adds them up as a GEP does, modulo 2^64, where signed
 * arithmetic overflowed (UBSan, type_memory.c).  The gradient of x[0]^2
 * taken the other way is 2 x[0], added into dx. */
START_TEST(huge_constant_offsets_differentiate) {
  static const char ir[] =
      "define double @sq(ptr %x, i1 %far) {\n"
      "entry:\n"
      "  %v = load double, ptr %x\n"
      "  br i1 %far, label %away, label %done\n"
      "away:\n"
      "  %i = add i64 9223372036854775807, 9223372036854775807\n"
      "  %j = mul i64 %i, 4611686018427387904\n"
      "  %p = getelementptr [4 x double], ptr %x, i64 9223372036854775807, i64 %j\n"
      "  %q = getelementptr { double, [2 x double] }, ptr %p, i64 -9223372036854775807, i32 1, i64 3\n"
      "  %w = load double, ptr %q\n"
      "  br label %done\n"
      "done:\n"
      "  %r = phi double [ %v, %entry ], [ %w, %away ]\n"
      "  %s = fmul double %r, %r\n"
      "  ret double %s\n"
      "}\n"
      "declare void @__enzyme_autodiff(ptr, ...)\n"
      "define void @dsq(ptr %x, ptr %dx) {\n"
      "  call void (ptr, ...) @__enzyme_autodiff(ptr @sq, metadata !\"enzyme_dup\", "
      "ptr %x, ptr %dx, metadata !\"enzyme_const\", i1 false)\n"
      "  ret void\n"
      "}\n";
  tanjit_session *s = new_session();
  load_ok(s, ir, "offsets.ll");
  tanjit_error *err = NULL;
  void (*dsq)(double *, double *) =
      (void (*)(double *, double *))(uintptr_t)tanjit_lookup(s, "dsq", &err);
  ck_assert_msg(dsq, "%s", tanjit_error_message(err));
  double x = 3.0, dx = 0.25;
  dsq(&x, &dx);
  ck_assert_double_eq_tol(dx, 6.25, 1e-15);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(deep_array_types_and_metadata_are_refused) {
  tanjit_session *s = new_session();
  char *arrays = nest("@a = global ", "[1 x ", "i8", "]",
                      " zeroinitializer\ndefine i32 @f() {\n  ret i32 0\n}\n",
                      50000);
  load_fails(s, arrays, TANJIT_ERR_PARSE, "brackets nest more than 20000 deep");
  free(arrays);
  char *md = nest("define i32 @f() {\n  ret i32 0, !foo !0\n}\n!0 = ", "!{",
                  "!{}", "}", "\n", 100000);
  load_fails(s, md, TANJIT_ERR_PARSE, "brackets nest more than 20000 deep");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_emit_memory(s, md, strlen(md), "md.ll", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_PARSE);
  tanjit_error_free(err);
  free(md);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

/* A frontend's own module has no text to bound: 60,000 nested constant
 * GEPs built in-process (alternating element types, so none fold) are
 * serialized, parsed, optimized and compiled on the big stack; codegen
 * overflowed an 8 MiB stack on them. */
START_TEST(deep_module_built_in_process_compiles_right) {
  enum { DEPTH = 60000 };
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("deep_frontend", ctx);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx), i16 = LLVMInt16TypeInContext(ctx);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMValueRef g = LLVMAddGlobal(m, LLVMArrayType2(i8, 4), "g");
  LLVMSetInitializer(g, LLVMConstNull(LLVMArrayType2(i8, 4)));
  LLVMValueRef chain = g, one = LLVMConstInt(i64, 1, 0);
  for (int i = 0; i < DEPTH; i++)
    chain = LLVMConstGEP2(i % 2 ? i16 : i8, chain, &one, 1);
  LLVMValueRef p = LLVMAddGlobal(m, ptr, "p");
  LLVMSetInitializer(p, chain);
  LLVMValueRef f = LLVMAddFunction(m, "offset", LLVMFunctionType(i64, NULL, 0, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  LLVMValueRef v = LLVMBuildLoad2(b, ptr, p, "v");
  LLVMBuildRet(b, LLVMBuildSub(b, LLVMBuildPtrToInt(b, v, i64, "a"),
                               LLVMBuildPtrToInt(b, g, i64, "b"), "d"));
  LLVMDisposeBuilder(b);
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_load_module(s, m, &err) == 0, "%s", tanjit_error_message(err));
  long (*offset)(void) = (long (*)(void))(uintptr_t)tanjit_lookup(s, "offset", &err);
  ck_assert_msg(offset, "%s", tanjit_error_message(err));
  ck_assert_int_eq(offset(), DEPTH / 2 * (1 + 2));
  assert_still_usable(s);
  tanjit_session_free(s);
  LLVMContextDispose(ctx);
}
END_TEST

/* Within the bound, metadata deep enough to overflow a small stack loads. */
START_TEST(metadata_nested_within_the_bound_loads) {
  char *md = nest("define i32 @f() {\n  ret i32 3, !foo !0\n}\n!0 = ", "!{",
                  "!{}", "}", "\n", 19000);
  tanjit_session *s = new_session();
  load_ok(s, md, "md.ll");
  free(md);
  ck_assert_int_eq(call_int(s, "f"), 3);
  tanjit_session_free(s);
}
END_TEST

/* ---- 5: symbols of the wrong kind ----------------------------------------- */

START_TEST(data_declared_as_a_function_is_not_called) {
  tanjit_session *s = new_session();
  load_ok(s,
          "declare i32 @\"ejlstr$environ$libc.so.6\"()\n"
          "define i32 @main() {\n  %r = call i32 @\"ejlstr$environ$libc.so.6\"()\n"
          "  ret i32 %r\n}\n",
          "environ.ll");
  lookup_fails(s, "main", TANJIT_ERR_SYMBOL,
               "the IR calls it as a function, but environ is data");
  load_ok(s,
          "declare i32 @environ()\n"
          "define i32 @main2() {\n  %r = call i32 @environ()\n  ret i32 %r\n}\n",
          "environ2.ll");
  lookup_fails(s, "main2", TANJIT_ERR_SYMBOL, "but environ is data");
  /* once those modules are gone, data declared as data binds */
  load_ok(s,
          "@environ = external global ptr\n"
          "define i32 @has_environment() {\n  %e = load ptr, ptr @environ\n"
          "  %z = icmp ne ptr %e, null\n  %r = zext i1 %z to i32\n  ret i32 %r\n}\n",
          "environ3.ll");
  ck_assert_int_eq(call_int(s, "has_environment"), 1);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(an_entry_point_must_be_a_function) {
  tanjit_session *s = new_session();
  load_ok(s, "@g = global i32 5\ndefine i32 @h() {\n  ret i32 6\n}\n", "g.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup_function(s, "g", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  ck_assert_str_eq(tanjit_error_message(err),
                   "'g' is a global variable, not a function: it cannot be called");
  tanjit_error_free(err);
  ck_assert_int_eq(*(int *)tanjit_lookup(s, "g", NULL), 5);
  ck_assert_ptr_nonnull(tanjit_lookup_function(s, "h", NULL));
  tanjit_session_free(s);

  char path[] = "/tmp/tanjit-entry-XXXXXX.ll";
  int fd = mkstemps(path, 3);
  ck_assert_int_ge(fd, 0);
  const char ir[] = "@g = global i32 5\ndefine i32 @main() {\n  ret i32 0\n}\n";
  ck_assert_int_eq(write(fd, ir, sizeof ir - 1), (ssize_t)(sizeof ir - 1));
  close(fd);
  char out[4096];
  const char *args[] = {"run", path, "--entry", "g", NULL};
  int rc = run_tanjit_cli(args, out, sizeof out);
  unlink(path);
  ck_assert_int_eq(rc, 1);
  ck_assert_msg(strstr(out, "'g' is a global variable, not a function"), "%s", out);
}
END_TEST

/* ---- 7: errors swallowed --------------------------------------------------- */

START_TEST(inline_asm_errors_fail_the_lookup) {
  tanjit_session *s = new_session();
  load_ok(s,
          "define i32 @main() {\n"
          "  call void asm sideeffect \"notaninstruction %eax\", \"\"()\n"
          "  ret i32 42\n}\n",
          "asm.ll");
  capture_stderr();
  lookup_fails(s, "main", TANJIT_ERR_LINK,
               "code generation failed: <inline asm>:1:2: invalid instruction "
               "mnemonic 'notaninstruction'");
  const char *printed = captured_stderr();
  ck_assert_msg(!*printed, "stderr: %s", printed);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

/* ---- 8: thread-locals, ifuncs --------------------------------------------- */

START_TEST(thread_locals_and_ifuncs_are_refused_by_name) {
  tanjit_session *s = new_session();
  load_fails(s,
             "@counter = thread_local global i32 1\n"
             "define i32 @f() {\n  %v = load i32, ptr @counter\n  ret i32 %v\n}\n",
             TANJIT_ERR_UNSUPPORTED,
             "hostile.ll: thread-local variables are not supported: counter");
  load_fails(s, "@errno_like = external thread_local global i32\n",
             TANJIT_ERR_UNSUPPORTED, "not supported: errno_like");
  load_fails(s,
             "define i32 @impl() {\n  ret i32 1\n}\n"
             "define internal ptr @resolve() {\n  ret ptr @impl\n}\n"
             "@picked = ifunc i32 (), ptr @resolve\n",
             TANJIT_ERR_UNSUPPORTED, "hostile.ll: ifuncs are not supported: picked");
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

/* ---- 9: the library prints ------------------------------------------------- */

START_TEST(bad_debug_info_is_a_warning_not_stderr) {
  const char ir[] =
      "define i32 @main() !dbg !3 {\n  ret i32 3, !dbg !7\n}\n"
      "define i32 @other() !dbg !8 {\n  ret i32 4, !dbg !9\n}\n"
      "!llvm.module.flags = !{!0}\n!llvm.dbg.cu = !{!1}\n"
      "!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
      "!1 = distinct !DICompileUnit(language: DW_LANG_C99, file: !2, "
      "emissionKind: FullDebug)\n"
      "!2 = !DIFile(filename: \"a.c\", directory: \"/\")\n"
      "!3 = distinct !DISubprogram(name: \"main\", scope: !2, file: !2, line: 1, "
      "type: !4, unit: !1, spFlags: DISPFlagDefinition)\n"
      "!4 = !DISubroutineType(types: !{})\n"
      "!7 = !DILocation(line: 1, scope: !8)\n"
      "!8 = distinct !DISubprogram(name: \"other\", scope: !2, file: !2, line: 2, "
      "type: !4, unit: !1, spFlags: DISPFlagDefinition)\n"
      "!9 = !DILocation(line: 2, scope: !8)\n";
  tanjit_session *s = new_session();
  capture_stderr();
  load_ok(s, ir, "dbg.ll");
  const char *printed = captured_stderr();
  ck_assert_msg(!*printed, "stderr: %s", printed);
  ck_assert_uint_eq(tanjit_session_warning_count(s), 1);
  ck_assert_str_eq(tanjit_session_warning(s, 0),
                   "dbg.ll: invalid debug info was dropped: !dbg attachment "
                   "points at wrong subprogram for function");
  ck_assert_ptr_null(tanjit_session_warning(s, 1));
  ck_assert_int_eq(call_int(s, "main"), 3);
  tanjit_session_free(s);

  /* the CLI prints them as warnings */
  char path[] = "/tmp/tanjit-dbg-XXXXXX.ll";
  int fd = mkstemps(path, 3);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, ir, sizeof ir - 1), (ssize_t)(sizeof ir - 1));
  close(fd);
  char out[4096];
  const char *args[] = {"run", path, NULL};
  int rc = run_tanjit_cli(args, out, sizeof out);
  unlink(path);
  ck_assert_int_eq(rc, 3);
  ck_assert_msg(strstr(out, "tanjit: warning: ") &&
                    strstr(out, "invalid debug info was dropped") &&
                    !strstr(out, "DISubprogram"),
                "%s", out);
}
END_TEST

/* ---- 10: the allow-list and paths ----------------------------------------- */

static char *renamed_call_ir(const char *library) {
  static char ir[10000];
  snprintf(ir, sizeof ir,
           "declare i32 @\"ejlstr$tjtest_triple$%s\"(i32)\n"
           "define i32 @tripled() {\n"
           "  %%r = call i32 @\"ejlstr$tjtest_triple$%s\"(i32 7)\n  ret i32 %%r\n}\n",
           library, library);
  return ir;
}

START_TEST(a_bare_allow_list_entry_allows_no_path) {
  const char *dirs[] = {getenv("TJTEST_LIB_DIR"), NULL};
  const char *allowed[] = {"libtjtest.so", NULL};
  tanjit_options o;
  tanjit_options_init(&o);
  o.library_dirs = dirs;
  o.allowed_libraries = allowed;
  tanjit_session *s = session_with(&o);
  load_ok(s, renamed_call_ir("libtjtest.so"), "bare.ll");
  ck_assert_int_eq(call_int(s, "tripled"), 21);
  tanjit_session_free(s);

  s = session_with(&o);
  load_ok(s, renamed_call_ir(getenv("TJTEST_LIB")), "path.ll");
  lookup_fails(s, "tripled", TANJIT_ERR_LIBRARY, "not in the session's library allow-list");
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(a_path_entry_allows_that_file_only) {
  const char *lib = getenv("TJTEST_LIB");
  char dotted[4096], copy_dir[] = "/tmp/tanjit-allow-XXXXXX", copy[4200];
  snprintf(dotted, sizeof dotted, "%s/./libtjtest.so", getenv("TJTEST_LIB_DIR"));
  ck_assert_ptr_nonnull(mkdtemp(copy_dir));
  snprintf(copy, sizeof copy, "%s/libtjtest.so", copy_dir);
  char cmd[8600];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", lib, copy);
  ck_assert_int_eq(system(cmd), 0);

  const char *allowed[] = {lib, NULL};
  tanjit_options o;
  tanjit_options_init(&o);
  o.allowed_libraries = allowed;
  tanjit_session *s = session_with(&o);
  load_ok(s, renamed_call_ir(dotted), "same_file.ll");
  ck_assert_int_eq(call_int(s, "tripled"), 21);
  tanjit_session_free(s);

  s = session_with(&o);
  load_ok(s, renamed_call_ir(copy), "other_file.ll");
  lookup_fails(s, "tripled", TANJIT_ERR_LIBRARY, "a path is allowed only by an entry");
  load_ok(s, renamed_call_ir("libtjtest.so"), "bare_name.ll");
  lookup_fails(s, "tripled", TANJIT_ERR_LIBRARY, "not in the session's library allow-list");
  assert_still_usable(s);
  tanjit_session_free(s);
  unlink(copy);
  rmdir(copy_dir);
}
END_TEST

/* ---- 11: unbounded input --------------------------------------------------- */

START_TEST(only_regular_files_of_bounded_size_are_read) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.max_input_bytes = 64;
  tanjit_session *s = session_with(&o);
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_load_file(s, "/dev/zero", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_IO);
  ck_assert_str_eq(tanjit_error_message(err),
                   "cannot read /dev/zero: not a regular file (a character device)");
  tanjit_error_free(err);
  ck_assert_ptr_null(tanjit_emit_file(s, "/tmp", &err));
  ck_assert_str_eq(tanjit_error_message(err),
                   "cannot read /tmp: not a regular file (a directory)");
  tanjit_error_free(err);

  char path[] = "/tmp/tanjit-big-XXXXXX";
  int fd = mkstemp(path);
  char text[100];
  memset(text, ' ', sizeof text);
  ck_assert_int_eq(write(fd, text, sizeof text), (ssize_t)sizeof text);
  close(fd);
  ck_assert_int_eq(tanjit_load_file(s, path, &err), -1);
  char expected[256];
  snprintf(expected, sizeof expected,
           "cannot read %s: 100 bytes, more than the limit of 64 "
           "(tanjit_options.max_input_bytes)",
           path);
  ck_assert_str_eq(tanjit_error_message(err), expected);
  tanjit_error_free(err);
  unlink(path);
  assert_still_usable(s);
  tanjit_session_free(s);

  char out[4096];
  const char *args[] = {"run", "/dev/zero", NULL};
  ck_assert_int_eq(run_tanjit_cli(args, out, sizeof out), 1);
  ck_assert_msg(strstr(out, "not a regular file"), "%s", out);
}
END_TEST

/* ---- 12: hostile reverse requests ---------------------------------------- */

/* The functions the request cases differentiate, with the markers they
 * take; each case appends its own @main. */
static const char rev_prelude[] =
    "declare double @__enzyme_autodiff(ptr, ...)\n"
    "@enzyme_out = external global i32\n"
    "@enzyme_dup = external global i32\n"
    "@enzyme_width = external global i32\n"
    "define double @sq(double %x) {\n"
    "  %y = fmul double %x, %x\n  ret double %y\n}\n"
    "define double @sq_at(ptr %p) {\n"
    "  %x = load double, ptr %p\n  %y = fmul double %x, %x\n  ret double %y\n}\n"
    "declare double @no_body(double)\n";

/* Loads `ir` (a request module) and compiles @main: one of the two must
 * fail with a differentiation error (or an unsupported construct) whose
 * message holds each of the NULL-terminated fragments; the session then
 * still runs a valid module. */
static void request_refused(const char *ir, const char *const *fragments) {
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  static int n;
  char name[32];
  snprintf(name, sizeof name, "request%d.ll", n++);
  if (tanjit_load_memory(s, ir, strlen(ir), name, &err) == 0)
    ck_assert_ptr_null(tanjit_lookup(s, "main", &err));
  ck_assert_ptr_nonnull(err);
  const char *message = tanjit_error_message(err);
  for (size_t i = 0; fragments[i]; i++)
    ck_assert_msg(strstr(message, fragments[i]), "missing \"%s\" in: %s",
                  fragments[i], message);
  tanjit_error_code code = tanjit_error_get_code(err);
  ck_assert_msg(code == TANJIT_ERR_DIFFERENTIATE || code == TANJIT_ERR_UNSUPPORTED,
                "code %d: %s", (int)code, message);
  tanjit_error_free(err);
  assert_still_usable(s);
  tanjit_session_free(s);
}

/* rev_prelude and a @main whose body is `body`, into buf. */
static const char *with_main(char *buf, size_t size, const char *body) {
  snprintf(buf, size, "%sdefine i32 @main() {\n%s\n  ret i32 0\n}\n",
           rev_prelude, body);
  return buf;
}

static const struct {
  const char *body;
  const char *fragments[4];
} hostile_requests[] = {
    /* wrong argument counts */
    {"  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sq)",
     {"__enzyme_autodiff of sq: too few arguments",
      "value for parameter 1 is missing", "in main", NULL}},
    {"  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, double 1.0, "
     "double 2.0)",
     {"__enzyme_autodiff of sq: too many arguments", "argument 3 is extra",
      "in main", NULL}},
    /* a marker with nothing after it */
    {"  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, ptr @enzyme_out)",
     {"__enzyme_autodiff of sq: too few arguments", "in main", NULL}},
    {"  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, ptr @enzyme_width)",
     {"enzyme_width with no value after it in the request for sq", "in main",
      NULL}},
    /* enzyme_out on a pointer, enzyme_dup on a float */
    {"  %p = alloca double\n"
     "  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sq_at, "
     "ptr @enzyme_out, ptr %p)",
     {"__enzyme_autodiff of sq_at: parameter 1 is enzyme_out",
      "enzyme_out takes floats passed by value", NULL}},
    {"  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, ptr @enzyme_dup, "
     "double 1.0, double 2.0)",
     {"__enzyme_autodiff of sq: parameter 1 is duplicated but is not a pointer",
      NULL}},
    /* the first argument not a function; a function with no body */
    {"  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @enzyme_out, double 1.0)",
     {"the first argument of __enzyme_autodiff must be a function",
      "@enzyme_out", NULL}},
    {"  %r = call double (ptr, ...) @__enzyme_autodiff(ptr null, double 1.0)",
     {"the first argument of __enzyme_autodiff must be a function, not `ptr null`",
      NULL}},
    {"  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @no_body, double 1.0)",
     {"__enzyme_autodiff of no_body: the function has no body in this module",
      "in main", NULL}},
    /* width 0 and a width that wraps to 1 in 32 bits */
    {"  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, ptr @enzyme_width, "
     "i64 0, double 1.0)",
     {"enzyme_width 0 is out of range (1..", "in main", NULL}},
    {"  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, ptr @enzyme_width, "
     "i64 4294967297, double 1.0)",
     {"enzyme_width 4294967297 is out of range (1..", "in main", NULL}},
};

START_TEST(hostile_reverse_requests_are_refused_by_name) {
  char ir[2048];
  const char *const *fragments = hostile_requests[_i].fragments;
  request_refused(with_main(ir, sizeof ir, hostile_requests[_i].body), fragments);
}
END_TEST

/* The request's declaration returns i32 where {double, double}, the two
 * adjoints, is due. */
START_TEST(a_request_declared_with_the_wrong_result_is_refused) {
  static const char *const fragments[] = {
      "__enzyme_autodiff of f2 returns the adjoints of its 2 enzyme_out "
      "arguments as { double, double }",
      "declared to return i32", "in main", NULL};
  request_refused("declare i32 @__enzyme_autodiff(ptr, ...)\n"
                  "define double @f2(double %x, double %y) {\n"
                  "  %z = fmul double %x, %y\n  ret double %z\n}\n"
                  "define i32 @main() {\n"
                  "  %r = call i32 (ptr, ...) @__enzyme_autodiff(ptr @f2, "
                  "double 1.0, double 2.0)\n  ret i32 %r\n}\n",
                  fragments);
}
END_TEST

/* A request inside the function it differentiates: differentiating @self
 * meets the request for @self again. */
START_TEST(a_request_inside_its_own_function_is_refused) {
  static const char *const fragments[] = {
      "a derivative request (__enzyme_autodiff) with active arguments inside "
      "a function being differentiated in reverse mode",
      "in self", NULL};
  request_refused("declare double @__enzyme_autodiff(ptr, ...)\n"
                  "define double @self(double %x) {\n"
                  "  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @self, "
                  "double %x)\n"
                  "  %y = fmul double %x, %d\n  ret double %y\n}\n"
                  "define i32 @main() {\n"
                  "  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @self, "
                  "double 1.0)\n  ret i32 0\n}\n",
                  fragments);
}
END_TEST

/* Split mode: an augmented forward pass with no argument for the one
 * parameter, a reverse pass whose tape marker ends the call. */
START_TEST(split_requests_short_of_arguments_are_refused) {
  static const char *const fragments[] = {
      "__enzyme_augmentfwd of sq: too few arguments",
      "value for parameter 1 is missing", "in main", NULL};
  request_refused("declare { ptr, double } @__enzyme_augmentfwd(ptr, ...)\n"
                  "declare void @__enzyme_reverse(ptr, ...)\n"
                  "@enzyme_tape = external global i32\n"
                  "define double @sq(double %x) {\n"
                  "  %y = fmul double %x, %x\n  ret double %y\n}\n"
                  "define i32 @main() {\n"
                  "  %r = call { ptr, double } (ptr, ...) "
                  "@__enzyme_augmentfwd(ptr @sq)\n"
                  "  call void (ptr, ...) @__enzyme_reverse(ptr @sq, double 1.0, "
                  "double 1.0, ptr @enzyme_tape)\n  ret i32 0\n}\n",
                  fragments);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("hostile");
  TCase *tc = tcase_create("hostile");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, cpu_for_32bit_x86_is_refused);
  tcase_add_test(tc, unknown_cpu_and_features_are_dropped_quietly);
  tcase_add_test(tc, feature_the_host_lacks_is_refused);
  tcase_add_test(tc, intrinsics_of_other_targets_are_refused);
  tcase_add_test(tc, scalable_vectors_are_refused_in_load_and_emit);
  tcase_add_test(tc, a_module_without_triple_or_layout_gets_the_hosts);
  tcase_add_test(tc, deep_constant_expressions_compile_right);
  tcase_add_test(tc, deep_array_types_and_metadata_are_refused);
  tcase_add_test(tc, metadata_nested_within_the_bound_loads);
  tcase_add_test(tc, deep_module_built_in_process_compiles_right);
  tcase_add_test(tc, data_declared_as_a_function_is_not_called);
  tcase_add_test(tc, an_entry_point_must_be_a_function);
  tcase_add_test(tc, inline_asm_errors_fail_the_lookup);
  tcase_add_test(tc, thread_locals_and_ifuncs_are_refused_by_name);
  tcase_add_test(tc, bad_debug_info_is_a_warning_not_stderr);
  tcase_add_test(tc, a_bare_allow_list_entry_allows_no_path);
  tcase_add_test(tc, a_path_entry_allows_that_file_only);
  tcase_add_test(tc, only_regular_files_of_bounded_size_are_read);
  tcase_add_loop_test(tc, hostile_reverse_requests_are_refused_by_name, 0,
                      (int)(sizeof hostile_requests / sizeof *hostile_requests));
  tcase_add_test(tc, a_request_declared_with_the_wrong_result_is_refused);
  tcase_add_test(tc, a_request_inside_its_own_function_is_refused);
  tcase_add_test(tc, split_requests_short_of_arguments_are_refused);
  tcase_add_test(tc, a_diamond_chain_of_selects_differentiates);
  tcase_add_test(tc, huge_constant_offsets_differentiate);
  suite_add_tcase(suite, tc);
  return run_suite(suite);
}
