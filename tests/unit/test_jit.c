/*
 * The JIT session: loading, the resolution order, renamed ccalls, lazy
 * binding, and bad input.  Every error case checks the message says what and
 * where, then proves the session still loads and runs a valid module.
 */
#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>

#include "check_main.h"
#include "tanjit/tanjit.h"

static const char *test_lib(void) { return getenv("TJTEST_LIB"); }
static const char *test_lib2(void) { return getenv("TJTEST_LIB2"); }
static const char *test_lib_dir(void) { return getenv("TJTEST_LIB_DIR"); }

static tanjit_session *new_session(void) {
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(NULL, &err);
  ck_assert_msg(s, "session: %s", tanjit_error_message(err));
  return s;
}

static void load_ok(tanjit_session *s, const char *ir, const char *name) {
  tanjit_error *err = NULL;
  int rc = tanjit_load_memory(s, ir, strlen(ir), name, &err);
  ck_assert_msg(rc == 0, "load %s: %s", name, tanjit_error_message(err));
}

static void *lookup_ok(tanjit_session *s, const char *sym) {
  tanjit_error *err = NULL;
  void *p = tanjit_lookup(s, sym, &err);
  ck_assert_msg(p, "lookup %s: %s", sym, tanjit_error_message(err));
  return p;
}

typedef int (*int_fn)(int);
typedef double (*dbl_fn)(double);
typedef int (*int_fn_void)(void);

static const char square_ir[] =
    "define i32 @square(i32 %x) {\n"
    "  %r = mul i32 %x, %x\n"
    "  ret i32 %r\n"
    "}\n";

/* After any failure the session must still load and run a valid module. */
static void assert_still_usable(tanjit_session *s) {
  static int n;
  char ir[256], name[32];
  snprintf(name, sizeof name, "usable%d", n);
  snprintf(ir, sizeof ir,
           "define i32 @%s(i32 %%x) {\n  %%r = add i32 %%x, 7\n  ret i32 %%r\n}\n",
           name);
  n++;
  load_ok(s, ir, name);
  int_fn f = (int_fn)(uintptr_t)lookup_ok(s, name);
  ck_assert_int_eq(f(5), 12);
}

START_TEST(load_text_and_call) {
  tanjit_session *s = new_session();
  load_ok(s, square_ir, "square.ll");
  int_fn f = (int_fn)(uintptr_t)lookup_ok(s, "square");
  ck_assert_int_eq(f(9), 81);
  ck_assert_int_eq(f(-4), 16);
  tanjit_session_free(s);
}
END_TEST

/* Builds @square in a frontend's own context, for the module and bitcode paths. */
static LLVMModuleRef build_square(LLVMContextRef ctx) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("frontend", ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef f = LLVMAddFunction(m, "square", LLVMFunctionType(i32, &i32, 1, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  LLVMValueRef x = LLVMGetParam(f, 0);
  LLVMBuildRet(b, LLVMBuildMul(b, x, x, "r"));
  LLVMDisposeBuilder(b);
  return m;
}

START_TEST(load_bitcode_and_module) {
  tanjit_session *s = new_session();
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = build_square(ctx);
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
  tanjit_error *err = NULL;
  /* tanjit takes m; the context stays ours and must outlive nothing of it. */
  ck_assert_int_eq(tanjit_load_module(s, m, &err), 0);
  int_fn f = (int_fn)(uintptr_t)lookup_ok(s, "square");
  ck_assert_int_eq(f(12), 144);

  tanjit_session *s2 = new_session();
  ck_assert_int_eq(tanjit_load_memory(s2, LLVMGetBufferStart(bc),
                                      LLVMGetBufferSize(bc), "square.bc", &err),
                   0);
  f = (int_fn)(uintptr_t)lookup_ok(s2, "square");
  ck_assert_int_eq(f(-3), 9);
  LLVMDisposeMemoryBuffer(bc);
  LLVMContextDispose(ctx);
  tanjit_session_free(s2);
  tanjit_session_free(s);
}
END_TEST

START_TEST(load_file_text) {
  char path[] = "/tmp/tanjit-test-XXXXXX.ll";
  int fd = mkstemps(path, 3);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, square_ir, strlen(square_ir)), (ssize_t)strlen(square_ir));
  close(fd);
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_load_file(s, path, &err) == 0, "%s", tanjit_error_message(err));
  int_fn f = (int_fn)(uintptr_t)lookup_ok(s, "square");
  ck_assert_int_eq(f(7), 49);
  char *text = tanjit_emit_file(s, path, &err);
  ck_assert_msg(text, "%s", tanjit_error_message(err));
  ck_assert_ptr_nonnull(strstr(text, "define"));
  ck_assert_ptr_nonnull(strstr(text, "@square"));
  tanjit_free(text);
  unlink(path);
  tanjit_session_free(s);
}
END_TEST

START_TEST(cross_module_call) {
  tanjit_session *s = new_session();
  load_ok(s, square_ir, "square.ll");
  load_ok(s,
          "declare i32 @square(i32)\n"
          "define i32 @sum_sq(i32 %a, i32 %b) {\n"
          "  %x = call i32 @square(i32 %a)\n"
          "  %y = call i32 @square(i32 %b)\n"
          "  %r = add i32 %x, %y\n  ret i32 %r\n}\n",
          "sumsq.ll");
  int (*f)(int, int) = (int (*)(int, int))(uintptr_t)lookup_ok(s, "sum_sq");
  ck_assert_int_eq(f(3, 4), 25);
  tanjit_session_free(s);
}
END_TEST

START_TEST(process_symbols_resolve) {
  tanjit_session *s = new_session();
  load_ok(s,
          "declare double @cos(double)\n"
          "define double @f(double %x) {\n"
          "  %r = call double @cos(double %x)\n  ret double %r\n}\n",
          "cos.ll");
  dbl_fn f = (dbl_fn)(uintptr_t)lookup_ok(s, "f");
  ck_assert_double_eq_tol(f(0.5), 0.8775825618903728, 1e-15);
  tanjit_session_free(s);
}
END_TEST

START_TEST(registered_library_is_local_and_ordered) {
  ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "tjtest_triple"));
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_add_library(s, test_lib(), &err) == 0, "%s",
                tanjit_error_message(err));
  ck_assert_int_eq(tanjit_add_library(s, test_lib2(), &err), 0);
  load_ok(s,
          "declare i32 @tjtest_triple(i32)\n"
          "define i32 @g(i32 %x) {\n"
          "  %r = call i32 @tjtest_triple(i32 %x)\n  ret i32 %r\n}\n",
          "reg.ll");
  int_fn g = (int_fn)(uintptr_t)lookup_ok(s, "g");
  ck_assert_int_eq(g(14), 42); /* the first registered library wins */
  ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "tjtest_triple"));
  tanjit_session_free(s);
}
END_TEST

static const char renamed_ir_fmt[] =
    "declare i32 @\"ejlstr$tjtest_triple$%s\"(i32)\n"
    "define i32 @h(i32 %%x) {\n"
    "  %%r = call i32 @\"ejlstr$tjtest_triple$%s\"(i32 %%x)\n  ret i32 %%r\n}\n";

START_TEST(renamed_ccall_absolute_path) {
  ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "tjtest_triple"));
  tanjit_session *s = new_session();
  char ir[1024];
  snprintf(ir, sizeof ir, renamed_ir_fmt, test_lib(), test_lib());
  load_ok(s, ir, "renamed.ll");
  int_fn h = (int_fn)(uintptr_t)lookup_ok(s, "h");
  ck_assert_int_eq(h(5), 15);
  ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "tjtest_triple"));
  tanjit_session_free(s);
  ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "tjtest_triple"));
}
END_TEST

/* A function part over 255 characters binds like any (it was "malformed"). */
START_TEST(renamed_ccall_long_function_name) {
  char fn[301], ir[2048];
  memcpy(fn, "tjtest_long_", 12);
  memset(fn + 12, 'a', 288);
  fn[300] = '\0';
  snprintf(ir, sizeof ir,
           "declare i32 @\"ejlstr$%s$%s\"(i32)\n"
           "define i32 @h(i32 %%x) {\n"
           "  %%r = call i32 @\"ejlstr$%s$%s\"(i32 %%x)\n  ret i32 %%r\n}\n",
           fn, test_lib(), fn, test_lib());
  tanjit_session *s = new_session();
  load_ok(s, ir, "long.ll");
  int_fn h = (int_fn)(uintptr_t)lookup_ok(s, "h");
  ck_assert_int_eq(h(6), 42);
  tanjit_session_free(s);
}
END_TEST

START_TEST(renamed_ccall_soname_in_search_dir) {
  tanjit_options o;
  tanjit_options_init(&o);
  const char *dirs[] = {"/nonexistent-dir", test_lib_dir(), NULL};
  o.library_dirs = dirs;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_ptr_nonnull(s);
  char ir[1024];
  snprintf(ir, sizeof ir, renamed_ir_fmt, "libtjtest.so", "libtjtest.so");
  load_ok(s, ir, "renamed.ll");
  int_fn h = (int_fn)(uintptr_t)lookup_ok(s, "h");
  ck_assert_int_eq(h(-2), -6);
  ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "tjtest_triple"));
  tanjit_session_free(s);
  /* Julia spells libraries without the extension: "libtjtest". */
  s = tanjit_session_new(&o, &err);
  snprintf(ir, sizeof ir, renamed_ir_fmt, "libtjtest", "libtjtest");
  load_ok(s, ir, "renamed-noext.ll");
  h = (int_fn)(uintptr_t)lookup_ok(s, "h");
  ck_assert_int_eq(h(4), 12);
  tanjit_session_free(s);
}
END_TEST

START_TEST(renamed_ccall_allow_list) {
  tanjit_options o;
  tanjit_options_init(&o);
  const char *dirs[] = {test_lib_dir(), NULL};
  const char *allowed[] = {"libm.so.6", NULL};
  o.library_dirs = dirs;
  o.allowed_libraries = allowed;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  char ir[1024];
  snprintf(ir, sizeof ir, renamed_ir_fmt, "libtjtest.so", "libtjtest.so");
  load_ok(s, ir, "renamed.ll");
  ck_assert_ptr_null(tanjit_lookup(s, "h", &err));
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "allow-list"));
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "libtjtest.so"));
  tanjit_error_free(err);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(renamed_ccall_missing_library) {
  tanjit_session *s = new_session();
  char ir[1024];
  snprintf(ir, sizeof ir, renamed_ir_fmt, "libdoes-not-exist.so.3",
           "libdoes-not-exist.so.3");
  load_ok(s, ir, "renamed.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "h", &err));
  const char *msg = tanjit_error_message(err);
  ck_assert_ptr_nonnull(strstr(msg, "libdoes-not-exist.so.3"));
  /* dlerror's own text */
  ck_assert_ptr_nonnull(strstr(msg, "cannot open shared object file"));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_LIBRARY);
  tanjit_error_free(err);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(renamed_ccall_missing_symbol) {
  tanjit_session *s = new_session();
  char ir[1024];
  snprintf(ir, sizeof ir,
           "declare i32 @\"ejlstr$no_such_fn$%s\"(i32)\n"
           "define i32 @h(i32 %%x) {\n"
           "  %%r = call i32 @\"ejlstr$no_such_fn$%s\"(i32 %%x)\n  ret i32 %%r\n}\n",
           test_lib(), test_lib());
  load_ok(s, ir, "renamed.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "h", &err));
  const char *msg = tanjit_error_message(err);
  ck_assert_ptr_nonnull(strstr(msg, "no_such_fn"));
  ck_assert_ptr_nonnull(strstr(msg, test_lib()));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  tanjit_error_free(err);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

/* The resolver hands the session a code, not text to classify: a function
 * whose name reads like another failure is still a missing symbol. */
START_TEST(renamed_ccall_code_is_not_read_from_text) {
  tanjit_session *s = new_session();
  char ir[1024];
  snprintf(ir, sizeof ir,
           "declare i32 @\"ejlstr$cannot load library$%s\"(i32)\n"
           "define i32 @h(i32 %%x) {\n"
           "  %%r = call i32 @\"ejlstr$cannot load library$%s\"(i32 %%x)\n"
           "  ret i32 %%r\n}\n",
           test_lib(), test_lib());
  load_ok(s, ir, "renamed.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "h", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err),
                               "symbol cannot load library not found"));
  tanjit_error_free(err);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(add_library_missing) {
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_add_library(s, "/nonexistent/libnothing.so", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_LIBRARY);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "libnothing.so"));
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "No such file"));
  tanjit_error_free(err);
  /* dlopen("") would open the main program */
  err = NULL;
  ck_assert_int_eq(tanjit_add_library(s, "", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "empty"));
  tanjit_error_free(err);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

static char last_symbol[128], last_library[512];
static int unresolved_calls;

static void record_unresolved(void *user, const char *symbol, const char *library,
                              const char *reason) {
  (void)reason;
  *(int *)user += 1;
  snprintf(last_symbol, sizeof last_symbol, "%s", symbol);
  snprintf(last_library, sizeof last_library, "%s", library ? library : "");
}

START_TEST(lazy_binding_stub_reports_call) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.binding = TANJIT_BIND_LAZY;
  o.on_unresolved = record_unresolved;
  o.on_unresolved_user = &unresolved_calls;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  char ir[2048];
  snprintf(ir, sizeof ir,
           "declare i32 @missing_plain(i32)\n"
           "declare i32 @\"ejlstr$absent_fn$%s\"(i32)\n"
           "define i32 @calls_missing(i32 %%x) {\n"
           "  %%r = call i32 @missing_plain(i32 %%x)\n  ret i32 %%r\n}\n"
           "define i32 @calls_absent(i32 %%x) {\n"
           "  %%r = call i32 @\"ejlstr$absent_fn$%s\"(i32 %%x)\n  ret i32 %%r\n}\n"
           "define i32 @fine(i32 %%x) {\n  ret i32 %%x\n}\n",
           test_lib(), test_lib());
  load_ok(s, ir, "lazy.ll");
  /* The module links although two externals are missing... */
  int_fn fine = (int_fn)(uintptr_t)lookup_ok(s, "fine");
  ck_assert_int_eq(fine(3), 3);
  ck_assert_int_eq(unresolved_calls, 0);
  /* ...and only a call reports, naming symbol and library. */
  int_fn m = (int_fn)(uintptr_t)lookup_ok(s, "calls_missing");
  m(1);
  ck_assert_int_eq(unresolved_calls, 1);
  ck_assert_str_eq(last_symbol, "missing_plain");
  ck_assert_str_eq(last_library, "");
  int_fn a = (int_fn)(uintptr_t)lookup_ok(s, "calls_absent");
  a(1);
  ck_assert_int_eq(unresolved_calls, 2);
  ck_assert_str_eq(last_symbol, "absent_fn");
  ck_assert_str_eq(last_library, test_lib());
  tanjit_session_free(s);
}
END_TEST

START_TEST(lazy_binding_default_handler_aborts) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.binding = TANJIT_BIND_LAZY;
  tanjit_session *s = tanjit_session_new(&o, NULL);
  load_ok(s,
          "declare i32 @missing_plain(i32)\n"
          "define i32 @calls_missing(i32 %x) {\n"
          "  %r = call i32 @missing_plain(i32 %x)\n  ret i32 %r\n}\n",
          "lazy.ll");
  int_fn m = (int_fn)(uintptr_t)lookup_ok(s, "calls_missing");
  m(1); /* the default handler prints one line and aborts: SIGABRT */
}
END_TEST

START_TEST(strict_unresolved_external) {
  tanjit_session *s = new_session();
  load_ok(s,
          "declare i32 @no_such_function_anywhere(i32)\n"
          "define i32 @k(i32 %x) {\n"
          "  %r = call i32 @no_such_function_anywhere(i32 %x)\n  ret i32 %r\n}\n",
          "strict.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "k", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "no_such_function_anywhere"));
  tanjit_error_free(err);
  /* The failed module was removed: a corrected one may define @k again. */
  load_ok(s, "define i32 @k(i32 %x) {\n  ret i32 %x\n}\n", "fixed.ll");
  int_fn k = (int_fn)(uintptr_t)lookup_ok(s, "k");
  ck_assert_int_eq(k(8), 8);
  tanjit_session_free(s);
}
END_TEST

START_TEST(malformed_ir_reports_line_and_column) {
  tanjit_session *s = new_session();
  const char *bad = "define i32 @f(i32 %x) {\n  %r = bogus i32 %x\n  ret i32 %r\n}\n";
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_load_memory(s, bad, strlen(bad), "bad.ll", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_PARSE);
  const char *msg = tanjit_error_message(err);
  ck_assert_msg(strstr(msg, "bad.ll") && strstr(msg, ":2:"), "message: %s", msg);
  tanjit_error_free(err);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(truncated_bitcode) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = build_square(ctx);
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  size_t half = LLVMGetBufferSize(bc) / 2;
  ck_assert_int_eq(tanjit_load_memory(s, LLVMGetBufferStart(bc), half, "cut.bc", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_PARSE);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "cut.bc"));
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "bitcode"));
  tanjit_error_free(err);
  assert_still_usable(s);
  LLVMDisposeMemoryBuffer(bc);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  tanjit_session_free(s);
}
END_TEST

START_TEST(missing_file) {
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_load_file(s, "/nonexistent/prog.ll", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_IO);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "/nonexistent/prog.ll"));
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "No such file"));
  tanjit_error_free(err);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(verifier_failure) {
  tanjit_session *s = new_session();
  /* Parses, but the block has no terminator. */
  const char *bad = "define i32 @f(i32 %x) {\n  %r = add i32 %x, 1\n}\n";
  tanjit_error *err = NULL;
  int rc = tanjit_load_memory(s, bad, strlen(bad), "noterm.ll", &err);
  ck_assert_int_eq(rc, -1);
  /* LLVM's parser itself rejects some invalid IR; either way it is named. */
  ck_assert(tanjit_error_get_code(err) == TANJIT_ERR_VERIFY ||
            tanjit_error_get_code(err) == TANJIT_ERR_PARSE);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "noterm.ll"));
  tanjit_error_free(err);
  /* A use that does not dominate: only the verifier catches it. */
  const char *bad2 =
      "define i32 @g(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\n"
      "a:\n  %v = add i32 1, 2\n  br label %b\n"
      "b:\n  ret i32 %v\n}\n";
  ck_assert_int_eq(tanjit_load_memory(s, bad2, strlen(bad2), "dom.ll", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_VERIFY);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "dom.ll"));
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "dominate"));
  tanjit_error_free(err);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(missing_entry) {
  tanjit_session *s = new_session();
  load_ok(s, square_ir, "square.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "no_entry_here", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "no_entry_here"));
  tanjit_error_free(err);
  int_fn f = (int_fn)(uintptr_t)lookup_ok(s, "square");
  ck_assert_int_eq(f(2), 4);
  tanjit_session_free(s);
}
END_TEST

START_TEST(duplicate_definition) {
  tanjit_session *s = new_session();
  load_ok(s, square_ir, "square.ll");
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_load_memory(s, square_ir, strlen(square_ir), "again.ll", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_LINK);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "square"));
  tanjit_error_free(err);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

/* Reserved names (issue 10): a module's fallback stub of the request entry
 * point (code built without Enzyme carries one) is not what requests call,
 * in its own module, in later modules, or behind tanjit_fwddiff. */
START_TEST(request_stub_definitions_are_ignored) {
  tanjit_session *s = new_session();
  load_ok(s,
          "define double @__enzyme_fwddiff(ptr %f, ...) {\n  ret double 0.0\n}\n"
          "define linkonce_odr double @_Z16__enzyme_fwddiffIdJddEET_PvDpT0_("
          "ptr %f, double %a, double %b) {\n  ret double 0.0\n}\n"
          "define double @square(double %x) {\n  %r = fmul double %x, %x\n"
          "  ret double %r\n}\n"
          "define double @dsquare(double %x) {\n"
          "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @square, "
          "double %x, double 1.0)\n  ret double %d\n}\n"
          "define double @dsquare_cxx(double %x) {\n"
          "  %d = call double @_Z16__enzyme_fwddiffIdJddEET_PvDpT0_(ptr "
          "@square, double %x, double 1.0)\n  ret double %d\n}\n",
          "stub.ll");
  load_ok(s,
          "declare double @__enzyme_fwddiff(ptr, ...)\n"
          "define double @cube(double %x) {\n  %s = fmul double %x, %x\n"
          "  %r = fmul double %s, %x\n  ret double %r\n}\n"
          "define double @dcube(double %x) {\n"
          "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @cube, "
          "double %x, double 1.0)\n  ret double %d\n}\n",
          "later.ll");
  ck_assert_double_eq(((dbl_fn)lookup_ok(s, "dsquare"))(3.0), 6.0);
  ck_assert_double_eq(((dbl_fn)lookup_ok(s, "dsquare_cxx"))(3.0), 6.0);
  ck_assert_double_eq(((dbl_fn)lookup_ok(s, "dcube"))(2.0), 12.0);
  tanjit_activity dup = TANJIT_DUP;
  tanjit_error *err = NULL;
  double (*d)(double, double) =
      (double (*)(double, double))tanjit_fwddiff(s, "cube", &dup, 1, 1, &err);
  ck_assert_msg(d, "tanjit_fwddiff: %s", tanjit_error_message(err));
  ck_assert_double_eq(d(2.0, 1.0), 12.0);
  /* the stub is no symbol of the session */
  ck_assert_ptr_null(tanjit_lookup(s, "__enzyme_fwddiff", &err));
  tanjit_error_free(err);
  tanjit_session_free(s);
}
END_TEST

/* A loaded module's pristine copy (what tanjit_fwddiff differentiates
 * through) is made from its source when first needed, not at load: the
 * repeated load gives the same code and no second warning. */
START_TEST(pristine_copy_made_when_needed_warns_once) {
  tanjit_session *s = new_session();
  load_ok(s,
          "define double @cube(double %x) #0 {\n  %s = fmul double %x, %x\n"
          "  %r = fmul double %s, %x\n  ret double %r\n}\n"
          "attributes #0 = { \"target-cpu\"=\"no-such-cpu\" }\n",
          "cube.ll");
  ck_assert_uint_eq(tanjit_session_warning_count(s), 1);
  tanjit_activity dup = TANJIT_DUP;
  tanjit_error *err = NULL;
  double (*d)(double, double) =
      (double (*)(double, double))tanjit_fwddiff(s, "cube", &dup, 1, 1, &err);
  ck_assert_msg(d, "tanjit_fwddiff: %s", tanjit_error_message(err));
  ck_assert_double_eq(d(2.0, 1.0), 12.0);
  ck_assert_uint_eq(tanjit_session_warning_count(s), 1);
  ck_assert_ptr_null(tanjit_session_warning(s, 1));
  tanjit_session_free(s);
}
END_TEST

/* tanjit's own names (run-time request wrappers tanjit.fwddiff.<n>, the
 * session's renames <name>.tanjit.m<N>) are refused in a module, defined
 * or declared; so tanjit_fwddiff never returns a module's function.  So is
 * the metadata naming a loaded module's record, which would let a module
 * pass for another when compiled. */
START_TEST(reserved_names_are_refused) {
  static const char *const names[] = {"tanjit.fwddiff.1", "helper.tanjit.m1",
                                      "tanjit.view_indirect_targets"};
  tanjit_session *s = new_session();
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char ir[512];
    snprintf(ir, sizeof ir,
             i == 2 ? "declare double @\"%s\"(double)\n"
                    : "define double @\"%s\"(double %%x, double %%dx) {\n"
                      "  ret double 42.0\n}\n",
             names[i]);
    tanjit_error *err = NULL;
    ck_assert_int_eq(tanjit_load_memory(s, ir, strlen(ir), "reserved.ll", &err), -1);
    ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_LINK);
    const char *msg = tanjit_error_message(err);
    ck_assert_msg(strstr(msg, names[i]) && strstr(msg, "reserved"), "%s", msg);
    tanjit_error_free(err);
  }
  static const char id_ir[] = "!tanjit.module_id = !{!0}\n!0 = !{i64 1}\n";
  tanjit_error *id_err = NULL;
  ck_assert_int_eq(tanjit_load_memory(s, id_ir, strlen(id_ir), "id.ll", &id_err), -1);
  ck_assert_int_eq(tanjit_error_get_code(id_err), TANJIT_ERR_LINK);
  ck_assert_str_eq(tanjit_error_message(id_err),
                   "id.ll: the module holds the named metadata `!tanjit.module_id`, "
                   "reserved for tanjit's own use: drop it");
  tanjit_error_free(id_err);
  load_ok(s, "define double @twice(double %x) {\n  %r = fmul double %x, 2.0\n"
             "  ret double %r\n}\n", "twice.ll");
  tanjit_activity dup = TANJIT_DUP;
  tanjit_error *err = NULL;
  double (*d)(double, double) =
      (double (*)(double, double))tanjit_fwddiff(s, "twice", &dup, 1, 1, &err);
  ck_assert_msg(d, "tanjit_fwddiff: %s", tanjit_error_message(err));
  ck_assert_double_eq(d(5.0, 1.0), 2.0);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(transform_error_reaches_caller) {
  tanjit_session *s = new_session();
  /* A derivative request whose "function" is a number. */
  const char *ir =
      "declare double @__enzyme_fwddiff(...)\n"
      "define double @bad_request(double %x) {\n"
      "  %r = call double (...) @__enzyme_fwddiff(i64 12, double %x, double 1.0)\n"
      "  ret double %r\n}\n";
  load_ok(s, ir, "request.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "bad_request", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_DIFFERENTIATE);
  const char *msg = tanjit_error_message(err);
  ck_assert_msg(strstr(msg, "request.ll") && !strstr(msg, "Failed to materialize"),
                "message: %s", msg);
  tanjit_error_free(err);
  assert_still_usable(s);
  tanjit_session_free(s);
}
END_TEST

START_TEST(bad_options) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.opt_level = 7;
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_session_new(&o, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  tanjit_error_free(err);
  tanjit_options_init(&o);
  o.binding = (tanjit_binding)5;
  ck_assert_ptr_null(tanjit_session_new(&o, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  tanjit_error_free(err);
  tanjit_options_init(&o);
  o.derivative_fp = (tanjit_derivative_fp)2;
  ck_assert_ptr_null(tanjit_session_new(&o, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(tanjit_error_message(err),
                   "derivative_fp 2 is neither TANJIT_DERIVATIVE_FP_FAST nor "
                   "TANJIT_DERIVATIVE_FP_STRICT");
  tanjit_error_free(err);
  ck_assert_ptr_null(tanjit_lookup(NULL, "x", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  tanjit_error_free(err);
}
END_TEST

START_TEST(session_loop_frees_everything) {
  /* Under LeakSanitizer (the CI's sanitizer build) a leak here fails. */
  for (int i = 0; i < 20; i++) {
    tanjit_session *s = new_session();
    char ir[1024];
    snprintf(ir, sizeof ir, renamed_ir_fmt, test_lib(), test_lib());
    load_ok(s, ir, "renamed.ll");
    load_ok(s, square_ir, "square.ll");
    int_fn h = (int_fn)(uintptr_t)lookup_ok(s, "h");
    ck_assert_int_eq(h(i), 3 * i);
    tanjit_session_free(s);
  }
}
END_TEST

/* Julia's own scheme: a GOT initialised to a thunk calling a lookup function
 * that does not exist outside Julia.  `with_attributes` selects whether the
 * library is named by julia.libname or only by the thunk's arguments. */
static void julia_plt_ir(char *ir, size_t cap, const char *lib, int with_attributes) {
  snprintf(ir, cap,
           "@lib = private unnamed_addr constant [%zu x i8] c\"%s\\00\"\n"
           "@fn = private unnamed_addr constant [13 x i8] c\"tjtest_scale\\00\"\n"
           "@handle = internal global ptr null\n"
           "@jlplt_tjtest_scale_17_got = internal global ptr @jlplt_tjtest_scale_17%s\n"
           "declare ptr @ijl_load_and_lookup(ptr, ptr, ptr)\n"
           "define internal double @jlplt_tjtest_scale_17(double %%x) {\n"
           "  %%f = call ptr @ijl_load_and_lookup(ptr @lib, ptr @fn, ptr @handle)\n"
           "  store ptr %%f, ptr @jlplt_tjtest_scale_17_got\n"
           "  %%r = musttail call double %%f(double %%x)\n  ret double %%r\n}\n"
           "define double @julia_scaled(double %%x) {\n"
           "  %%fp = load ptr, ptr @jlplt_tjtest_scale_17_got\n"
           "  %%r = call double %%fp(double %%x)\n  ret double %%r\n}\n"
           "%s",
           strlen(lib) + 1, lib, with_attributes ? " #0" : "",
           with_attributes ? "attributes #0 = { \"julia.fname\"=\"tjtest_scale\" "
                             "\"julia.libname\"=\"libtjtest.so\" }\n"
                           : "");
}

START_TEST(julia_plt_got_binds_from_local_library) {
  for (int with_attributes = 0; with_attributes < 2; with_attributes++) {
    tanjit_options o;
    tanjit_options_init(&o);
    const char *dirs[] = {test_lib_dir(), NULL};
    o.library_dirs = dirs;
    tanjit_session *s = tanjit_session_new(&o, NULL);
    char ir[4096];
    /* With attributes the soname is searched; without, the thunk's string
     * (an absolute path here) names the library. */
    julia_plt_ir(ir, sizeof ir, with_attributes ? "ignored.so" : test_lib(),
                 with_attributes);
    load_ok(s, ir, "jlplt.ll");
    dbl_fn f = (dbl_fn)(uintptr_t)lookup_ok(s, "julia_scaled");
    ck_assert_double_eq_tol(f(4.0), 10.0, 1e-15);
    ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "tjtest_scale"));
    tanjit_session_free(s);
  }
}
END_TEST

/* A failed compile must blame the module that failed, even when ORC reuses
 * the memory of a module it compiled and freed before. */
START_TEST(failed_compile_blames_the_right_module) {
  tanjit_session *s = new_session();
  for (int k = 0; k < 60; k++) {
    char good[256], bad[512], gname[32], bname[32], gfile[32], bfile[32];
    snprintf(gname, sizeof gname, "g%d", k);
    snprintf(bname, sizeof bname, "b%d", k);
    snprintf(gfile, sizeof gfile, "G%d.ll", k);
    snprintf(bfile, sizeof bfile, "B%d.ll", k);
    snprintf(good, sizeof good,
             "define i32 @%s(i32 %%x) {\n  %%r = add i32 %%x, %d\n  ret i32 %%r\n}\n",
             gname, k);
    snprintf(bad, sizeof bad,
             "declare double @__enzyme_augmentfwd(...)\n"
             "define double @h%d(double %%x) {\n  ret double %%x\n}\n"
             "define double @%s(double %%x) {\n"
             "  %%r = call double (...) @__enzyme_augmentfwd(ptr @h%d, double %%x)\n"
             "  ret double %%r\n}\n",
             k, bname, k);
    load_ok(s, good, gfile);
    int_fn g = (int_fn)(uintptr_t)lookup_ok(s, gname);
    ck_assert_int_eq(g(1), 1 + k);
    load_ok(s, bad, bfile);
    tanjit_error *err = NULL;
    ck_assert_ptr_null(tanjit_lookup(s, bname, &err));
    ck_assert_msg(strstr(tanjit_error_message(err), bfile),
                  "round %d blames the wrong module: %s", k,
                  tanjit_error_message(err));
    tanjit_error_free(err);
  }
  /* Every module that compiled is still there. */
  for (int k = 0; k < 60; k++) {
    char gname[32];
    snprintf(gname, sizeof gname, "g%d", k);
    int_fn g = (int_fn)(uintptr_t)lookup_ok(s, gname);
    ck_assert_int_eq(g(2), 2 + k);
  }
  tanjit_session_free(s);
}
END_TEST

/* ejlptr$fn$<handle>: only handles of objects loaded in this process. */
START_TEST(handle_ccalls_are_checked) {
  tanjit_session *s = new_session();
  char ir[512];
  void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  ck_assert_ptr_nonnull(libc);
  snprintf(ir, sizeof ir,
           "declare i64 @\"ejlptr$strlen$%p\"(ptr)\n"
           "@s = private constant [6 x i8] c\"hello\\00\"\n"
           "define i64 @len() {\n  %%r = call i64 @\"ejlptr$strlen$%p\"(ptr @s)\n"
           "  ret i64 %%r\n}\n",
           libc, libc);
  load_ok(s, ir, "handle.ll");
  int64_t (*len)(void) = (int64_t (*)(void))(uintptr_t)lookup_ok(s, "len");
  ck_assert_int_eq(len(), 5);
  dlclose(libc);
  const char *bad_handles[] = {"0x1234", "libc.so.6", "0"};
  for (int i = 0; i < 3; i++) {
    snprintf(ir, sizeof ir,
             "declare i64 @\"ejlptr$strlen$%s\"(ptr)\n"
             "define i64 @bad%d(ptr %%p) {\n  %%r = call i64 @\"ejlptr$strlen$%s\"(ptr %%p)\n"
             "  ret i64 %%r\n}\n",
             bad_handles[i], i, bad_handles[i]);
    load_ok(s, ir, "bad-handle.ll");
    char name[16];
    snprintf(name, sizeof name, "bad%d", i);
    tanjit_error *err = NULL;
    ck_assert_ptr_null(tanjit_lookup(s, name, &err));
    ck_assert_msg(strstr(tanjit_error_message(err), "not the handle"), "%s",
                  tanjit_error_message(err));
    tanjit_error_free(err);
  }
  tanjit_session_free(s);
}
END_TEST

static double double_stub_user_result;

START_TEST(lazy_stub_returns_zero_in_float_registers) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.binding = TANJIT_BIND_LAZY;
  o.on_unresolved = record_unresolved;
  o.on_unresolved_user = &unresolved_calls;
  tanjit_session *s = tanjit_session_new(&o, NULL);
  load_ok(s,
          "declare double @missing_real(double)\n"
          "define double @f(double %x) {\n  %y = fadd double %x, 40.0\n"
          "  %r = call double @missing_real(double %y)\n  ret double %r\n}\n",
          "lazy-double.ll");
  dbl_fn f = (dbl_fn)(uintptr_t)lookup_ok(s, "f");
  double_stub_user_result = f(2.0);
  ck_assert_double_eq(double_stub_user_result, 0.0);
  tanjit_session_free(s);
}
END_TEST

/* The compile-cost totals count what was transformed and where the time
 * went: two requests in one module, compiled once; an emit adds a module and
 * its requests but no codegen. */
static const char stats_ir[] =
    "@enzyme_dup = external global i32\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @sq(double %x) {\n  %r = fmul double %x, %x\n"
    "  ret double %r\n}\n"
    "define double @dsq(double %x) {\n"
    "  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @sq, double %x, "
    "double 1.0)\n"
    "  %u = call double (ptr, ...) @__enzyme_fwddiff(ptr @sq, double %t, "
    "double 2.0)\n"
    "  ret double %u\n}\n";

START_TEST(stats_count_modules_requests_and_phases) {
  tanjit_stats st;
  tanjit_session_stats(NULL, &st);
  ck_assert_uint_eq(st.modules, 0);
  tanjit_session *s = new_session();
  tanjit_session_stats(s, &st);
  ck_assert_uint_eq(st.modules, 0);
  ck_assert_uint_eq(st.requests, 0);
  ck_assert(st.codegen_seconds == 0);

  load_ok(s, stats_ir, "stats.ll");
  dbl_fn dsq = (dbl_fn)(uintptr_t)lookup_ok(s, "dsq");
  /* t = 2*3*1 = 6, u = 2*6*2 = 24 */
  ck_assert_double_eq(dsq(3.0), 24.0);
  tanjit_session_stats(s, &st);
  ck_assert_uint_eq(st.modules, 1);
  ck_assert_uint_eq(st.requests, 2);
  ck_assert(st.differentiate_seconds > 0);
  ck_assert(st.optimize_seconds > 0);
  ck_assert(st.codegen_seconds > 0);
  /* the two requests are its call sites; sq calls nothing, so no rule is
   * looked up */
  ck_assert_uint_eq(st.call_sites, 2);
  ck_assert_uint_eq(st.rule_lookups, 0);
  /* a caller that knows the struct up to cache_errors gets only those
   * fields: the rest of its memory is left alone */
  tanjit_stats old;
  memset(&old, 0xab, sizeof old);
  tanjit_session_stats_sized(s, &old, offsetof(tanjit_stats, rule_lookups));
  ck_assert_uint_eq(old.modules, 1);
  ck_assert_uint_eq(old.requests, 2);
  ck_assert_uint_eq(old.rule_lookups, (unsigned long)-1 / 0xff * 0xab);
  ck_assert_uint_eq(old.call_sites, (unsigned long)-1 / 0xff * 0xab);

  double codegen = st.codegen_seconds;
  tanjit_error *err = NULL;
  char *text = tanjit_emit_memory(s, stats_ir, strlen(stats_ir), "again.ll", &err);
  ck_assert_msg(text, "emit: %s", tanjit_error_message(err));
  tanjit_free(text);
  tanjit_session_stats(s, &st);
  ck_assert_uint_eq(st.modules, 2);
  ck_assert_uint_eq(st.requests, 4);
  ck_assert(st.codegen_seconds == codegen);
  assert_still_usable(s);
  tanjit_session_stats(s, &st);
  ck_assert_uint_eq(st.modules, 3);
  ck_assert(st.codegen_seconds > codegen);
  tanjit_session_free(s);
}
END_TEST

/* An in-IR request differentiates through a function another loaded module
 * defines (a frontend compiles each method into its own module): the
 * transform sees that module's code as a view, and the state it touches is
 * the compiled module's own. */
START_TEST(request_through_another_module) {
  tanjit_session *s = new_session();
  load_ok(s,
          "@calls = global i32 0\n"
          "define double @square(double %x) {\n"
          "  %n = load i32, ptr @calls\n"
          "  %n1 = add i32 %n, 1\n"
          "  store i32 %n1, ptr @calls\n"
          "  %r = fmul double %x, %x\n"
          "  ret double %r\n}\n"
          "define i32 @square_calls() {\n"
          "  %n = load i32, ptr @calls\n  ret i32 %n\n}\n",
          "callee.ll");
  load_ok(s,
          "declare double @square(double)\n"
          "declare double @__enzyme_fwddiff(ptr, ...)\n"
          "define double @wrap(double %x) {\n"
          "  %s = call double @square(double %x)\n"
          "  %r = fadd double %s, %x\n  ret double %r\n}\n"
          "define double @dwrap(double %x) {\n"
          "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @wrap, double %x, "
          "double 1.0)\n  ret double %d\n}\n"
          "define double @dsquare(double %x) {\n"
          "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @square, double "
          "%x, double 1.0)\n  ret double %d\n}\n",
          "caller.ll");
  dbl_fn dwrap = (dbl_fn)(uintptr_t)lookup_ok(s, "dwrap");
  dbl_fn dsquare = (dbl_fn)(uintptr_t)lookup_ok(s, "dsquare");
  int_fn_void calls = (int_fn_void)(uintptr_t)lookup_ok(s, "square_calls");
  ck_assert_double_eq(dwrap(3.0), 7.0);    /* 2x + 1 */
  ck_assert_double_eq(dsquare(-1.5), -3.0); /* 2x */
  ck_assert_int_eq(calls(), 2); /* the derivatives ran square's own counter */
  tanjit_session_free(s);
}
END_TEST

/* Views of other modules (src/jit/views.c) for in-IR requests: an
 * indirect call may lead into another module's functions (a callback that
 * module hands out, a virtual method); a module-private function keeps its
 * identity (the compiled one, not a copy); and a module whose flags would
 * conflict in a merged module is left out instead of failing the rest. */
START_TEST(views_for_indirect_calls_identity_and_flags) {
  tanjit_session *s = new_session();
  load_ok(s,
          "@handler = global ptr null\n"
          "define internal double @cube(double %x) {\n"
          "  %a = fmul double %x, %x\n  %b = fmul double %a, %x\n"
          "  ret double %b\n}\n"
          "define ptr @get_cube() {\n  ret ptr @cube\n}\n"
          "define void @install() {\n  store ptr @cube, ptr @handler\n"
          "  ret void\n}\n"
          "define i32 @installed() {\n  %h = load ptr, ptr @handler\n"
          "  %same = icmp eq ptr %h, @cube\n  %r = zext i1 %same to i32\n"
          "  ret i32 %r\n}\n"
          "!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"wchar_size\", i32 4}\n",
          "callee.ll");
  load_ok(s,
          "define i32 @unrelated() {\n  ret i32 2\n}\n"
          "!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"wchar_size\", i32 2}\n",
          "unrelated.ll");
  load_ok(s,
          "declare ptr @get_cube()\ndeclare void @install()\n"
          "declare i32 @installed()\n"
          "declare double @__enzyme_fwddiff(ptr, ...)\n"
          "define double @apply(double %x) {\n"
          "  %fp = call ptr @get_cube()\n"
          "  %r = call double %fp(double %x)\n  ret double %r\n}\n"
          "define double @install_then(double %x) {\n"
          "  call void @install()\n  %i = call i32 @installed()\n"
          "  %f = sitofp i32 %i to double\n  %r = fmul double %f, %x\n"
          "  ret double %r\n}\n"
          "define double @dapply(double %x) {\n"
          "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @apply, double "
          "%x, double 1.0)\n  ret double %d\n}\n"
          "define double @dinstall(double %x) {\n"
          "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @install_then, "
          "double %x, double 1.0)\n  ret double %d\n}\n"
          "!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"wchar_size\", i32 4}\n",
          "caller.ll");
  dbl_fn dapply = (dbl_fn)(uintptr_t)lookup_ok(s, "dapply");
  dbl_fn dinstall = (dbl_fn)(uintptr_t)lookup_ok(s, "dinstall");
  int_fn_void installed = (int_fn_void)(uintptr_t)lookup_ok(s, "installed");
  ck_assert_double_eq(dapply(2.0), 12.0); /* 3x^2 through B's callback */
  ck_assert_double_eq(dinstall(5.0), 1.0); /* installed() saw B's own cube */
  ck_assert_int_eq(installed(), 1);
  tanjit_session_free(s);
}
END_TEST

/* An indirect call whose run-time target has no derivative: the derivative
 * code reports it through the session's unresolved-call handler (which
 * names the target and the reason) before it traps. */
static void expect_no_derivative_report(void *user, const char *symbol,
                                        const char *library, const char *why) {
  (void)user, (void)library;
  int ok = strstr(symbol, "opaque_user") && strstr(symbol, "apply") &&
           strstr(why, "no forward-mode derivative") &&
           strstr(why, "significand");
  _exit(ok ? 3 : 4); /* no leak check of the session left open */
}

START_TEST(indirect_target_without_derivative_is_reported) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.on_unresolved = expect_no_derivative_report;
  tanjit_session *s = tanjit_session_new(&o, NULL);
  load_ok(s,
          "declare double @significand(double)\n"
          "declare double @__enzyme_fwddiff(ptr, ...)\n"
          "define double @square(double %x) {\n  %r = fmul double %x, %x\n"
          "  ret double %r\n}\n"
          "define double @opaque_user(double %x) {\n"
          "  %r = call double @significand(double %x)\n  ret double %r\n}\n"
          "@table = global [2 x ptr] [ptr @square, ptr @opaque_user]\n"
          "define double @apply(i64 %k, double %x) {\n"
          "  %p = getelementptr [2 x ptr], ptr @table, i64 0, i64 %k\n"
          "  %fp = load ptr, ptr %p\n"
          "  %r = call double %fp(double %x)\n  ret double %r\n}\n"
          "define double @dapply(i64 %k, double %x) {\n"
          "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @apply, i64 %k, "
          "double %x, double 1.0)\n  ret double %d\n}\n",
          "indirect.ll");
  double (*dapply)(long, double) =
      (double (*)(long, double))(uintptr_t)lookup_ok(s, "dapply");
  ck_assert_double_eq(dapply(0, 3.0), 6.0); /* square: fine */
  dapply(1, 3.0);                            /* opaque_user: reported */
  ck_abort_msg("the call through the pointer returned");
}
END_TEST

/* A call through a pointer that is none of its possible targets (here
 * libm's cbrt, which the module never names; apply itself, whose address
 * the request takes, is the other candidate) is reported through the
 * session's unresolved-call handler, with the target's symbol, the call's
 * function and source line and the candidates, before it traps: in
 * reverse mode and in forward mode. */
static const char *expected_mode;

static void expect_unknown_target_report(void *user, const char *symbol,
                                         const char *library,
                                         const char *why) {
  (void)user, (void)library;
  char head[64];
  snprintf(head, sizeof head, "no %s-mode derivative: it is none of the ",
           expected_mode);
  /* glibc's symbol there may be an alias (cbrtf64) */
  int ok = strstr(symbol, "cbrt") && strstr(symbol, " at 0x") &&
           strstr(symbol, "libm") &&
           strstr(symbol, "(called through a pointer in apply at prog.c:42)") &&
           strstr(why, head) && strstr(why, "call's possible targets") &&
           strstr(why, "address is taken: square, apply)");
  _exit(ok ? 3 : 4); /* no leak check of the session left open */
}

static void unknown_target_reported(const char *mode, const char *request) {
  expected_mode = mode;
  tanjit_options o;
  tanjit_options_init(&o);
  o.on_unresolved = expect_unknown_target_report;
  tanjit_session *s = tanjit_session_new(&o, NULL);
  char ir[2048];
  snprintf(ir, sizeof ir,
           "declare double @__enzyme_autodiff(ptr, ...)\n"
           "declare double @__enzyme_fwddiff(ptr, ...)\n"
           "@hook = global ptr @square\n"
           "define double @square(double %%x) {\n  %%r = fmul double %%x, %%x\n"
           "  ret double %%r\n}\n"
           "define double @apply(double %%x) !dbg !5 {\n"
           "  %%fp = load ptr, ptr @hook\n"
           "  %%r = call double %%fp(double %%x), !dbg !8\n"
           "  ret double %%r\n}\n"
           "define double @grad(double %%x) {\n"
           "  %%d = call double (ptr, ...) %s\n  ret double %%d\n}\n"
           "!llvm.module.flags = !{!0}\n"
           "!llvm.dbg.cu = !{!1}\n"
           "!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
           "!1 = distinct !DICompileUnit(language: DW_LANG_C99, file: !2, "
           "producer: \"t\", isOptimized: false, runtimeVersion: 0, "
           "emissionKind: FullDebug)\n"
           "!2 = !DIFile(filename: \"prog.c\", directory: \"/tmp\")\n"
           "!5 = distinct !DISubprogram(name: \"apply\", scope: !2, file: !2, "
           "line: 40, type: !6, spFlags: DISPFlagDefinition, unit: !1)\n"
           "!6 = !DISubroutineType(types: !7)\n"
           "!7 = !{}\n"
           "!8 = !DILocation(line: 42, column: 3, scope: !5)\n",
           request);
  load_ok(s, ir, "unknown_target.ll");
  dbl_fn grad = (dbl_fn)(uintptr_t)lookup_ok(s, "grad");
  double (**hook)(double) = (double (**)(double))lookup_ok(s, "hook");
  ck_assert_double_eq(grad(3.0), 6.0); /* square: 2x */
  *hook = cbrt;
  grad(8.0); /* cbrt: reported */
  ck_abort_msg("the call through the pointer returned");
}

START_TEST(reverse_unknown_indirect_target_is_reported) {
  unknown_target_reported("reverse",
                          "@__enzyme_autodiff(ptr @apply, double %x)");
}
END_TEST

START_TEST(forward_unknown_indirect_target_is_reported) {
  unknown_target_reported("forward",
                          "@__enzyme_fwddiff(ptr @apply, double %x, double 1.0)");
}
END_TEST

/* Under lazy binding a frontend's own lookup of a name nothing defines
 * still fails (a stub is for calls from compiled code), and the name stays
 * free for a module loaded later. */
START_TEST(lazy_binding_lookup_of_missing_name_fails) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.binding = TANJIT_BIND_LAZY;
  o.on_unresolved = record_unresolved;
  o.on_unresolved_user = &unresolved_calls;
  tanjit_session *s = tanjit_session_new(&o, NULL);
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "later_method", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  tanjit_error_free(err);
  load_ok(s, "define i32 @later_method() {\n  ret i32 5\n}\n", "later.ll");
  int (*f)(void) = (int (*)(void))(uintptr_t)lookup_ok(s, "later_method");
  ck_assert_int_eq(f(), 5);
  tanjit_session_free(s);
}
END_TEST

/* A dependency whose code cannot link (it calls something missing) fails
 * the lookup of its caller; both modules are removed, so corrected ones
 * load under the same names. */
START_TEST(failed_dependency_is_removed_too) {
  tanjit_session *s = new_session();
  load_ok(s,
          "declare i32 @missing_ext(i32)\n"
          "define i32 @m2(i32 %x) {\n  %r = call i32 @missing_ext(i32 %x)\n"
          "  ret i32 %r\n}\n",
          "M2.ll");
  static const char m1[] = "declare i32 @m2(i32)\n"
                           "define i32 @m1(i32 %x) {\n"
                           "  %r = call i32 @m2(i32 %x)\n  ret i32 %r\n}\n";
  load_ok(s, m1, "M1.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "m1", &err));
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "missing_ext"));
  tanjit_error_free(err);
  load_ok(s, "define i32 @m2(i32 %x) {\n  %r = add i32 %x, 1\n  ret i32 %r\n}\n",
          "M2-fixed.ll");
  load_ok(s, m1, "M1-again.ll");
  int_fn f = (int_fn)(uintptr_t)lookup_ok(s, "m1");
  ck_assert_int_eq(f(41), 42);
  tanjit_session_free(s);
}
END_TEST

Suite *jit_suite(void) {
  Suite *s = suite_create("jit");
  TCase *load = tcase_create("load");
  tcase_set_timeout(load, 60);
  tcase_add_test(load, load_text_and_call);
  tcase_add_test(load, load_bitcode_and_module);
  tcase_add_test(load, load_file_text);
  tcase_add_test(load, cross_module_call);
  tcase_add_test(load, stats_count_modules_requests_and_phases);
  tcase_add_test(load, request_through_another_module);
  tcase_add_test(load, views_for_indirect_calls_identity_and_flags);
  tcase_add_exit_test(load, indirect_target_without_derivative_is_reported, 3);
  tcase_add_exit_test(load, reverse_unknown_indirect_target_is_reported, 3);
  tcase_add_exit_test(load, forward_unknown_indirect_target_is_reported, 3);
  suite_add_tcase(s, load);

  TCase *resolve = tcase_create("resolve");
  tcase_set_timeout(resolve, 60);
  tcase_add_test(resolve, process_symbols_resolve);
  tcase_add_test(resolve, registered_library_is_local_and_ordered);
  tcase_add_test(resolve, renamed_ccall_absolute_path);
  tcase_add_test(resolve, renamed_ccall_soname_in_search_dir);
  tcase_add_test(resolve, renamed_ccall_long_function_name);
  tcase_add_test(resolve, renamed_ccall_allow_list);
  tcase_add_test(resolve, lazy_binding_stub_reports_call);
  tcase_add_test(resolve, julia_plt_got_binds_from_local_library);
  tcase_add_test(resolve, lazy_stub_returns_zero_in_float_registers);
  tcase_add_test(resolve, lazy_binding_lookup_of_missing_name_fails);
  tcase_add_test_raise_signal(resolve, lazy_binding_default_handler_aborts, 6);
  suite_add_tcase(s, resolve);

  TCase *errors = tcase_create("errors");
  tcase_set_timeout(errors, 60);
  tcase_add_test(errors, renamed_ccall_missing_library);
  tcase_add_test(errors, renamed_ccall_missing_symbol);
  tcase_add_test(errors, renamed_ccall_code_is_not_read_from_text);
  tcase_add_test(errors, add_library_missing);
  tcase_add_test(errors, strict_unresolved_external);
  tcase_add_test(errors, malformed_ir_reports_line_and_column);
  tcase_add_test(errors, truncated_bitcode);
  tcase_add_test(errors, missing_file);
  tcase_add_test(errors, verifier_failure);
  tcase_add_test(errors, missing_entry);
  tcase_add_test(errors, duplicate_definition);
  tcase_add_test(errors, request_stub_definitions_are_ignored);
  tcase_add_test(errors, reserved_names_are_refused);
  tcase_add_test(errors, pristine_copy_made_when_needed_warns_once);
  tcase_add_test(errors, transform_error_reaches_caller);
  tcase_add_test(errors, bad_options);
  tcase_add_test(errors, failed_compile_blames_the_right_module);
  tcase_add_test(errors, failed_dependency_is_removed_too);
  tcase_add_test(errors, handle_ccalls_are_checked);
  suite_add_tcase(s, errors);

  TCase *life = tcase_create("lifetime");
  tcase_set_timeout(life, 120);
  tcase_add_test(life, session_loop_frees_everything);
  suite_add_tcase(s, life);
  return s;
}

int main(void) { return run_suite(jit_suite()); }
