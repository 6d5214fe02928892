/*
 * The embedding API's contract: versions, the growable options struct,
 * host symbols, unloading, primal-and-tangent requests and error locations.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check_main.h"
#include "tanjit/tanjit.h"


static tanjit_session *new_session(void) {
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(NULL, &err);
  ck_assert_msg(s, "%s", tanjit_error_message(err));
  return s;
}

static void load_ok(tanjit_session *s, const char *ir, const char *name) {
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_load_memory(s, ir, strlen(ir), name, &err) == 0, "%s: %s",
                name, tanjit_error_message(err));
}

static void *lookup_ok(tanjit_session *s, const char *name) {
  tanjit_error *err = NULL;
  void *p = tanjit_lookup(s, name, &err);
  ck_assert_msg(p, "lookup %s: %s", name, tanjit_error_message(err));
  return p;
}

/* Host functions: static, so no -rdynamic or dlsym could find them. */
static double host_cube(double x) { return x * x * x; }
static double host_cube_fwd(double x, double dx) { return 3 * x * x * dx; }
static double host_half(double x) { return 0.5 * x; }
static double host_scaled_by = 1.25;

/* f(x) = 2 host_cube(x) * k, with k a host variable; df in-IR. */
static const char host_ir[] =
    "declare double @host_cube(double)\n"
    "@host_k = external global double\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @f(double %x) {\n"
    "  %c = call double @host_cube(double %x)\n"
    "  %k = load double, ptr @host_k\n"
    "  %t = fmul double %c, %k\n"
    "  %r = fmul double %t, 2.0\n  ret double %r\n}\n"
    "define double @df(double %x, double %dx) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx)\n"
    "  ret double %d\n}\n";

typedef double (*unary_t)(double);
typedef double (*binary_t)(double, double);

/* The header's macros and the library agree (tests link the library built
 * from this header), and LLVM's run-time version is a dotted triple. */
START_TEST(versions_agree) {
  char expected[32];
  snprintf(expected, sizeof expected, "%d.%d.%d", TANJIT_VERSION_MAJOR,
           TANJIT_VERSION_MINOR, TANJIT_VERSION_PATCH);
  ck_assert_str_eq(expected, TANJIT_VERSION_STRING);
  ck_assert_str_eq(tanjit_version(), TANJIT_VERSION_STRING);
  unsigned major, minor, patch;
  ck_assert_int_eq(sscanf(tanjit_llvm_version(), "%u.%u.%u", &major, &minor, &patch), 3);
  ck_assert_uint_ge(major, 19);
  ck_assert_uint_le(major, 22);
}
END_TEST

/* A caller built against an older, shorter tanjit_options: init writes only
 * its bytes, and the session takes defaults for the rest. */
typedef struct old_options {
  size_t struct_size;
  int opt_level;
} old_options;

START_TEST(shorter_options_get_defaults) {
  unsigned char buf[sizeof(tanjit_options) + 16];
  memset(buf, 0xAB, sizeof buf);
  old_options *old = (old_options *)buf;
  tanjit_options_init_sized((tanjit_options *)old, sizeof *old);
  ck_assert_uint_eq(old->struct_size, sizeof *old);
  ck_assert_int_eq(old->opt_level, 2);
  for (size_t i = sizeof *old; i < sizeof buf; i++)
    ck_assert_uint_eq(buf[i], 0xAB); /* nothing written past the caller's */
  old->opt_level = 0;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new((tanjit_options *)old, &err);
  ck_assert_msg(s, "%s", tanjit_error_message(err));
  tanjit_session_free(s);
}
END_TEST

START_TEST(uninitialized_or_unknown_options_are_refused) {
  tanjit_options o;
  memset(&o, 0, sizeof o);
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_session_new(&o, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(tanjit_error_message(err),
                   "tanjit_options.struct_size is 0: fill the options with "
                   "tanjit_options_init first");
  tanjit_error_free(err);
  err = NULL;

  /* A newer caller that set a field this library does not have. */
  struct {
    tanjit_options known;
    int future_field;
  } newer;
  memset(&newer, 0, sizeof newer);
  tanjit_options_init_sized(&newer.known, sizeof newer);
  ck_assert_uint_eq(newer.known.struct_size, sizeof newer);
  tanjit_session *s = tanjit_session_new(&newer.known, &err);
  ck_assert_msg(s, "%s", tanjit_error_message(err)); /* zero: fine */
  tanjit_session_free(s);
  newer.future_field = 1;
  ck_assert_ptr_null(tanjit_session_new(&newer.known, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(tanjit_error_message(err), "does not know"));
  tanjit_error_free(err);
}
END_TEST


START_TEST(host_symbol_needs_defining_and_the_error_says_so) {
  tanjit_session *s = new_session();
  load_ok(s,
          "declare double @host_cube(double)\n"
          "define double @f(double %x) {\n"
          "  %c = call double @host_cube(double %x)\n  ret double %c\n}\n",
          "plain.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "f", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  ck_assert_msg(strstr(tanjit_error_message(err), "tanjit_define_symbol") &&
                    strstr(tanjit_error_message(err), "-rdynamic"),
                "%s", tanjit_error_message(err));
  tanjit_error_free(err);
  tanjit_session_free(s);
}
END_TEST

START_TEST(host_function_and_variable_by_address) {
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_define_symbol(s, "host_cube", (void *)(uintptr_t)host_cube, &err) == 0,
                "%s", tanjit_error_message(err));
  ck_assert_int_eq(tanjit_define_symbol(s, "host_k", &host_scaled_by, &err), 0);
  /* again at the same address: fine; elsewhere: refused */
  ck_assert_int_eq(tanjit_define_symbol(s, "host_k", &host_scaled_by, &err), 0);
  ck_assert_int_eq(tanjit_define_symbol(s, "host_k", (void *)(uintptr_t)host_half, &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_LINK);
  tanjit_error_free(err);
  err = NULL;
  ck_assert_int_eq(tanjit_register_fwd_rule_address(
                       s, "host_cube", (void *)(uintptr_t)host_cube_fwd, 0, &err),
                   0);
  load_ok(s, host_ir, "host.ll");
  unary_t f = (unary_t)(uintptr_t)lookup_ok(s, "f");
  binary_t df = (binary_t)(uintptr_t)lookup_ok(s, "df");
  ck_assert_double_eq_tol(f(1.5), 2 * 3.375 * 1.25, 1e-14);
  host_scaled_by = 2.0; /* the JIT reads the host's variable itself */
  ck_assert_double_eq_tol(f(1.5), 2 * 3.375 * 2.0, 1e-14);
  double analytic = 2 * 3 * 1.5 * 1.5 * 2.0;
  ck_assert_double_eq_tol(df(1.5, 1.0), analytic, 1e-13);
  const double h = 1e-6;
  ck_assert_double_eq_tol(df(1.5, 1.0), (f(1.5 + h) - f(1.5 - h)) / (2 * h), 1e-6);
  /* the same rule for a run-time request */
  tanjit_activity act[] = {TANJIT_DUP};
  binary_t df2 = (binary_t)(uintptr_t)tanjit_fwddiff(s, "f", act, 1, 1, &err);
  ck_assert_msg(df2, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(df2(1.5, 0.5), 0.5 * analytic, 1e-13);
  host_scaled_by = 1.25;
  tanjit_session_free(s);
}
END_TEST

/* A host symbol comes before a registered library defining the name. */
START_TEST(host_symbol_before_registered_library) {
  const char *lib = getenv("TJTEST_LIB");
  ck_assert_ptr_nonnull(lib);
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_add_library(s, lib, &err), 0);
  ck_assert_int_eq(tanjit_define_symbol(s, "tjtest_scale", (void *)(uintptr_t)host_half, &err), 0);
  load_ok(s,
          "declare double @tjtest_scale(double)\n"
          "define double @g(double %x) {\n"
          "  %r = call double @tjtest_scale(double %x)\n  ret double %r\n}\n",
          "g.ll");
  unary_t g = (unary_t)(uintptr_t)lookup_ok(s, "g");
  ck_assert_double_eq_tol(g(3.0), 1.5, 1e-15); /* the library's would be 7.5 */
  /* a name a loaded module defines cannot be taken over */
  ck_assert_int_eq(tanjit_define_symbol(s, "g", (void *)(uintptr_t)host_half, &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_LINK);
  tanjit_error_free(err);
  tanjit_session_free(s);
}
END_TEST

static const char lin_ir[] =
    "define double @f(double %x) {\n  %r = fmul double %x, 2.0\n  ret double %r\n}\n";
static const char sq_ir[] =
    "define double @f(double %x) {\n  %r = fmul double %x, %x\n  ret double %r\n}\n";
/* g calls f; dg differentiates g (so f) in the IR. */
static const char g_ir[] =
    "declare double @f(double)\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @g(double %x) {\n"
    "  %y = call double @f(double %x)\n  %r = fadd double %y, 1.0\n  ret double %r\n}\n"
    "define double @dg(double %x) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %x, double 1.0)\n"
    "  ret double %d\n}\n";
static const char h_ir[] =
    "define double @h(double %x) {\n  %r = fmul double %x, 5.0\n  ret double %r\n}\n";

START_TEST(unload_then_reload_with_a_new_body) {
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  /* made before f.ll was loaded: cannot hold f.ll's code, so it stays */
  load_ok(s, h_ir, "h.ll");
  tanjit_activity act[] = {TANJIT_DUP};
  binary_t dh = (binary_t)(uintptr_t)tanjit_fwddiff(s, "h", act, 1, 1, &err);
  ck_assert_msg(dh, "%s", tanjit_error_message(err));
  load_ok(s, lin_ir, "f.ll");
  load_ok(s, g_ir, "g.ll");
  unary_t g = (unary_t)(uintptr_t)lookup_ok(s, "g");
  unary_t dg = (unary_t)(uintptr_t)lookup_ok(s, "dg");
  ck_assert_double_eq(g(3.0), 7.0);
  ck_assert_double_eq(dg(3.0), 2.0);
  binary_t df = (binary_t)(uintptr_t)tanjit_fwddiff(s, "f", act, 1, 1, &err);
  ck_assert_msg(df, "%s", tanjit_error_message(err));
  ck_assert_double_eq(df(3.0, 1.0), 2.0);

  /* a second f is a duplicate while the first is loaded */
  ck_assert_int_eq(tanjit_load_memory(s, sq_ir, strlen(sq_ir), "f2.ll", &err), -1);
  tanjit_error_free(err);
  err = NULL;

  ck_assert_msg(tanjit_unload(s, "f.ll", &err) == 0, "%s", tanjit_error_message(err));
  /* f is gone, and g (re-linked) cannot compile without it */
  ck_assert_ptr_null(tanjit_lookup(s, "f", &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  tanjit_error_free(err);
  err = NULL;

  load_ok(s, sq_ir, "f2.ll");
  unary_t f = (unary_t)(uintptr_t)lookup_ok(s, "f");
  ck_assert_double_eq(f(3.0), 9.0);
  g = (unary_t)(uintptr_t)lookup_ok(s, "g");
  dg = (unary_t)(uintptr_t)lookup_ok(s, "dg");
  ck_assert_double_eq(g(3.0), 10.0); /* the new f */
  ck_assert_double_eq(dg(3.0), 6.0);
  df = (binary_t)(uintptr_t)tanjit_fwddiff(s, "f", act, 1, 1, &err);
  ck_assert_msg(df, "%s", tanjit_error_message(err));
  ck_assert_double_eq(df(3.0, 1.0), 6.0); /* a new derivative, not the cached one */
  /* h's derivative stays (same address, still right) */
  ck_assert_ptr_eq((void *)(uintptr_t)tanjit_fwddiff(s, "h", act, 1, 1, &err),
                   (void *)(uintptr_t)dh);
  ck_assert_double_eq(dh(3.0, 1.0), 5.0);
  tanjit_session_free(s);
}
END_TEST

START_TEST(unload_of_an_unknown_name_is_an_error) {
  tanjit_session *s = new_session();
  load_ok(s, lin_ir, "f.ll");
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_unload(s, "nosuch.ll", &err), -1);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(tanjit_error_message(err), "tanjit_unload: no module is loaded as 'nosuch.ll'");
  tanjit_error_free(err);
  err = NULL;
  ck_assert_int_eq(tanjit_unload(s, "f.ll", &err), 0);
  ck_assert_int_eq(tanjit_unload(s, "f.ll", &err), -1); /* once only */
  tanjit_error_free(err);
  /* a derivative's own module is not the frontend's to unload */
  ck_assert_int_eq(tanjit_unload(s, "derivative of f", NULL), -1);
  tanjit_session_free(s);
}
END_TEST

/* A file is unloaded by its path; a module never compiled unloads too. */
START_TEST(unload_by_path_before_compiling) {
  char path[] = "/tmp/tanjit-unload-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, lin_ir, strlen(lin_ir)), (ssize_t)strlen(lin_ir));
  close(fd);
  tanjit_session *s = new_session();
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_load_file(s, path, &err), 0);
  ck_assert_msg(tanjit_unload(s, path, &err) == 0, "%s", tanjit_error_message(err));
  load_ok(s, sq_ir, "f2.ll");
  ck_assert_double_eq(((unary_t)(uintptr_t)lookup_ok(s, "f"))(4.0), 16.0);
  unlink(path);
  tanjit_session_free(s);
}
END_TEST

/* perf_map: the compiled functions appear in /tmp/perf-<pid>.map at the
 * addresses lookups return, with their sizes.  (Check forks each test, so
 * the pid and its map are this test's own.) */
START_TEST(perf_map_names_compiled_functions) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%ld.map", (long)getpid());
  unlink(path);
  tanjit_options o;
  tanjit_options_init(&o);
  o.perf_map = 1;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_msg(s, "%s", tanjit_error_message(err));
  load_ok(s, lin_ir, "f.ll");
  load_ok(s, h_ir, "h.ll");
  void *f = lookup_ok(s, "f");
  void *h = lookup_ok(s, "h");
  FILE *map = fopen(path, "r");
  ck_assert_msg(map, "no %s", path);
  unsigned long long start, size;
  char name[256];
  int found_f = 0, found_h = 0;
  while (fscanf(map, "%llx %llx %255s", &start, &size, name) == 3) {
    ck_assert_uint_gt(size, 0);
    found_f |= !strcmp(name, "f") && start == (uintptr_t)f;
    found_h |= !strcmp(name, "h") && start == (uintptr_t)h;
  }
  fclose(map);
  ck_assert(found_f && found_h);
  /* a redefined f is written again, at its own address */
  ck_assert_int_eq(tanjit_unload(s, "f.ll", &err), 0);
  load_ok(s, sq_ir, "f2.ll");
  void *f2 = lookup_ok(s, "f");
  map = fopen(path, "r");
  ck_assert_ptr_nonnull(map);
  int found_f2 = 0;
  while (fscanf(map, "%llx %llx %255s", &start, &size, name) == 3)
    found_f2 |= !strcmp(name, "f") && start == (uintptr_t)f2;
  fclose(map);
  ck_assert(found_f2);
  tanjit_session_free(s);
  unlink(path);
}
END_TEST

/* Off by default: no map. */
START_TEST(no_perf_map_by_default) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%ld.map", (long)getpid());
  unlink(path);
  tanjit_session *s = new_session();
  load_ok(s, lin_ir, "f.ll");
  lookup_ok(s, "f");
  ck_assert_int_ne(access(path, F_OK), 0);
  tanjit_session_free(s);
}
END_TEST

/* p(x, y) = x^2 y + sin y */
static const char p_ir[] =
    "declare double @llvm.sin.f64(double)\n"
    "define double @p(double %x, double %y) {\n"
    "  %xx = fmul double %x, %x\n  %a = fmul double %xx, %y\n"
    "  %s = call double @llvm.sin.f64(double %y)\n"
    "  %r = fadd double %a, %s\n  ret double %r\n}\n"
    "define i32 @count(double %x) {\n  %c = fptosi double %x to i32\n  ret i32 %c\n}\n";

static double p_ref(double x, double y) { return x * x * y + sin(y); }

START_TEST(fwddiff_with_primal) {
  tanjit_session *s = new_session();
  load_ok(s, p_ir, "p.ll");
  tanjit_error *err = NULL;
  tanjit_activity act[] = {TANJIT_DUP, TANJIT_DUP};
  void (*d1)(double *, double, double, double, double) =
      (void (*)(double *, double, double, double, double))(uintptr_t)
          tanjit_fwddiff_with_flags(s, "p", act, 2, 1, TANJIT_FWDDIFF_RETURN_PRIMAL, &err);
  ck_assert_msg(d1, "%s", tanjit_error_message(err));
  double x = 1.5, y = 0.5, out[3] = {0, 0, -1};
  d1(out, x, 1.0, y, 0.25);
  double tangent = 2 * x * y * 1.0 + (x * x + cos(y)) * 0.25;
  ck_assert_double_eq_tol(out[0], p_ref(x, y), 1e-14);
  ck_assert_double_eq_tol(out[1], tangent, 1e-14);
  ck_assert_double_eq(out[2], -1); /* exactly 1 + width written */
  const double h = 1e-6;
  ck_assert_double_eq_tol(out[1], (p_ref(x + h, y + 0.25 * h) - p_ref(x - h, y - 0.25 * h)) / (2 * h), 1e-7);

  /* width 2: primal, d/dx, d/dy */
  void (*d2)(double *, double, double, double, double, double, double) =
      (void (*)(double *, double, double, double, double, double, double))(uintptr_t)
          tanjit_fwddiff_with_flags(s, "p", act, 2, 2, TANJIT_FWDDIFF_RETURN_PRIMAL, &err);
  ck_assert_msg(d2, "%s", tanjit_error_message(err));
  double o2[3];
  d2(o2, x, 1.0, 0.0, y, 0.0, 1.0);
  ck_assert_double_eq_tol(o2[0], p_ref(x, y), 1e-14);
  ck_assert_double_eq_tol(o2[1], 2 * x * y, 1e-14);
  ck_assert_double_eq_tol(o2[2], x * x + cos(y), 1e-14);

  /* the plain request is cached apart and still returns the tangent */
  double (*dt)(double, double, double, double) =
      (double (*)(double, double, double, double))(uintptr_t)tanjit_fwddiff(s, "p", act, 2, 1, &err);
  ck_assert_msg(dt, "%s", tanjit_error_message(err));
  ck_assert_double_eq_tol(dt(x, 1.0, y, 0.25), tangent, 1e-14);

  /* a result with no tangent: the primal */
  int (*dc)(double, double) = (int (*)(double, double))(uintptr_t)tanjit_fwddiff_with_flags(
      s, "count", act, 1, 1, TANJIT_FWDDIFF_RETURN_PRIMAL, &err);
  ck_assert_msg(dc, "%s", tanjit_error_message(err));
  ck_assert_int_eq(dc(7.9, 1.0), 7);

  ck_assert_ptr_null(tanjit_fwddiff_with_flags(s, "p", act, 2, 1, 6, &err));
  ck_assert_str_eq(tanjit_error_message(err), "tanjit_fwddiff of p: unknown flags 0x6");
  tanjit_error_free(err);
  tanjit_session_free(s);
}
END_TEST

/* f calls a function with no body and no rule, at model.c:4:10. */
static const char opaque_ir[] =
    "declare double @opaque(double)\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @f(double %x) !dbg !4 {\n"
    "  %c = call double @opaque(double %x), !dbg !7\n"
    "  ret double %c, !dbg !7\n}\n"
    "define double @df(double %x) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)\n"
    "  ret double %d\n}\n"
    "!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!3}\n"
    "!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: \"t\", "
    "isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)\n"
    "!1 = !DIFile(filename: \"model.c\", directory: \"/src\")\n"
    "!3 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
    "!4 = distinct !DISubprogram(name: \"f\", scope: !1, file: !1, line: 3, type: !5, "
    "scopeLine: 3, spFlags: DISPFlagDefinition, unit: !0)\n"
    "!5 = !DISubroutineType(types: !6)\n!6 = !{null}\n"
    "!7 = !DILocation(line: 4, column: 10, scope: !4)\n";

static void assert_opaque_location(const tanjit_error *err) {
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_DIFFERENTIATE);
  ck_assert_str_eq(tanjit_error_function(err), "f");
  ck_assert_ptr_nonnull(tanjit_error_instruction(err));
  ck_assert_msg(strncmp(tanjit_error_instruction(err), "%c = call double @opaque(double %x)", 35) == 0,
                "%s", tanjit_error_instruction(err));
  ck_assert_str_eq(tanjit_error_file(err), "model.c");
  ck_assert_uint_eq(tanjit_error_line(err), 4);
  ck_assert_uint_eq(tanjit_error_column(err), 10);
}

START_TEST(error_location_through_accessors) {
  tanjit_session *s = new_session();
  load_ok(s, opaque_ir, "opaque.ll");
  tanjit_error *err = NULL;
  ck_assert_ptr_null(tanjit_lookup(s, "df", &err));
  assert_opaque_location(err);
  tanjit_error_free(err);
  /* an error with no location: NULL and 0 */
  err = NULL;
  ck_assert_int_eq(tanjit_unload(s, "nosuch", &err), -1);
  ck_assert_ptr_null(tanjit_error_function(err));
  ck_assert_ptr_null(tanjit_error_file(err));
  ck_assert_uint_eq(tanjit_error_line(err), 0);
  tanjit_error_free(err);
  ck_assert_ptr_null(tanjit_error_function(NULL));
  tanjit_session_free(s);
}
END_TEST

/* Messages of run-time requests name the request, never tanjit's wrapper. */
START_TEST(request_errors_name_the_request) {
  tanjit_session *s = new_session();
  load_ok(s, opaque_ir, "opaque.ll");
  tanjit_error *err = NULL;
  tanjit_activity act[] = {TANJIT_DUP};
  ck_assert_ptr_null(tanjit_fwddiff(s, "f", act, 1, 1, &err));
  const char *msg = tanjit_error_message(err);
  const char *start = "tanjit_fwddiff of f (dup; width 1): ";
  ck_assert_msg(strncmp(msg, start, strlen(start)) == 0, "%s", msg);
  ck_assert_msg(strstr(msg, "opaque") && !strstr(msg, "tanjit.fwddiff"), "%s", msg);
  assert_opaque_location(err);
  tanjit_error_free(err);
  err = NULL;
  ck_assert_ptr_null(
      tanjit_fwddiff_with_flags(s, "f", act, 1, 3, TANJIT_FWDDIFF_RETURN_PRIMAL, &err));
  start = "tanjit_fwddiff of f (dup; width 3; with primal): ";
  ck_assert_msg(strncmp(tanjit_error_message(err), start, strlen(start)) == 0, "%s",
                tanjit_error_message(err));
  tanjit_error_free(err);
  err = NULL;
  /* counts read as English */
  tanjit_activity two[] = {TANJIT_DUP, TANJIT_CONST};
  ck_assert_ptr_null(tanjit_fwddiff(s, "f", two, 2, 1, &err));
  ck_assert_str_eq(tanjit_error_message(err),
                   "tanjit_fwddiff of f: 2 activities given, but f takes 1 parameter");
  tanjit_error_free(err);
  err = NULL;
  load_ok(s, p_ir, "p.ll");
  ck_assert_ptr_null(tanjit_fwddiff(s, "p", act, 1, 1, &err));
  ck_assert_str_eq(tanjit_error_message(err),
                   "tanjit_fwddiff of p: 1 activity given, but p takes 2 parameters");
  tanjit_error_free(err);
  err = NULL;
  /* an empty name shows as one */
  ck_assert_ptr_null(tanjit_fwddiff(s, "", act, 1, 1, &err));
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
  ck_assert_str_eq(tanjit_error_message(err),
                   "tanjit_fwddiff: no loaded module defines a function ``");
  tanjit_error_free(err);
  tanjit_session_free(s);
}
END_TEST

/* A request refused as a whole is located at the function requested,
 * with no instruction: the call of __enzyme_fwddiff is tanjit's wrapper's,
 * never the frontend's. */
START_TEST(request_refusals_are_located_at_the_function) {
  tanjit_session *s = new_session();
  /* (it reads its variadic part: one that never does is differentiated
   * over its fixed parameters) */
  load_ok(s,
          "declare void @llvm.va_start(ptr)\n"
          "declare void @llvm.va_end(ptr)\n"
          "define double @varf(double %x, ...) {\n"
          "  %ap = alloca ptr\n"
          "  call void @llvm.va_start(ptr %ap)\n"
          "  call void @llvm.va_end(ptr %ap)\n"
          "  ret double %x\n}\n",
          "varf.ll");
  tanjit_error *err = NULL;
  tanjit_activity dup[] = {TANJIT_DUP}, active[] = {TANJIT_ACTIVE};
  for (int reverse = 0; reverse < 2; reverse++) {
    void *d = reverse ? tanjit_autodiff(s, "varf", active, 1, 1, &err)
                      : tanjit_fwddiff(s, "varf", dup, 1, 1, &err);
    ck_assert_ptr_null(d);
    const char *msg = tanjit_error_message(err);
    ck_assert_msg(strstr(msg, "cannot differentiate variadic function varf"), "%s", msg);
    ck_assert_str_eq(tanjit_error_function(err), "varf");
    ck_assert_ptr_null(tanjit_error_instruction(err));
    tanjit_error_free(err);
    err = NULL;
  }
  tanjit_session_free(s);
}
END_TEST

/* A wrong count is refused before any activity is read: `act` may hold
 * fewer entries than `nargs` says, here 2 before an unmapped page, for
 * a first request and for one whose function has a cached derivative. */
START_TEST(wrong_activity_count_reads_no_further) {
  tanjit_session *s = new_session();
  load_ok(s, p_ir, "p.ll");
  long page = sysconf(_SC_PAGESIZE);
  char *pages = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(pages, MAP_FAILED);
  ck_assert_int_eq(mprotect(pages + page, (size_t)page, PROT_NONE), 0);
  tanjit_activity *act = (tanjit_activity *)(pages + page) - 2;
  for (int round = 0; round < 2; round++) {
    for (int reverse = 0; reverse < 2; reverse++) {
      act[0] = act[1] = reverse ? TANJIT_ACTIVE : TANJIT_DUP;
      tanjit_error *err = NULL;
      void *d = reverse ? tanjit_autodiff(s, "p", act, 3, 1, &err)
                        : tanjit_fwddiff(s, "p", act, 3, 1, &err);
      ck_assert_ptr_null(d);
      ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_INVALID_ARGUMENT);
      ck_assert_str_eq(tanjit_error_message(err),
                       reverse ? "tanjit_autodiff of p: 3 activities given, but p takes 2 parameters"
                               : "tanjit_fwddiff of p: 3 activities given, but p takes 2 parameters");
      tanjit_error_free(err);
      /* the right count: a derivative, cached for the next round */
      err = NULL;
      d = reverse ? tanjit_autodiff(s, "p", act, 2, 1, &err)
                  : tanjit_fwddiff(s, "p", act, 2, 1, &err);
      ck_assert_msg(d, "%s", tanjit_error_message(err));
    }
  }
  munmap(pages, 2 * (size_t)page);
  tanjit_session_free(s);
}
END_TEST

/* A module whose own request differentiated through another module's f
 * holds f's code in its derivative, though it may not call f by name:
 * unloading f re-links it too. */
START_TEST(unload_relinks_requests_made_through_views) {
  tanjit_session *s = new_session();
  load_ok(s, lin_ir, "f.ll");
  load_ok(s,
          "declare double @f(double)\n"
          "declare double @__enzyme_fwddiff(ptr, ...)\n"
          "define double @df_in_ir(double %x) {\n"
          "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)\n"
          "  ret double %d\n}\n",
          "request.ll");
  ck_assert_double_eq(((unary_t)(uintptr_t)lookup_ok(s, "df_in_ir"))(3.0), 2.0);
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_unload(s, "f.ll", &err), 0);
  load_ok(s, sq_ir, "f2.ll");
  ck_assert_double_eq(((unary_t)(uintptr_t)lookup_ok(s, "df_in_ir"))(3.0), 6.0);
  tanjit_session_free(s);
}
END_TEST

/* A module ORC never compiles (one defining nothing; a duplicate, refused)
 * has its IR freed untransformed, and a later module's IR may be allocated
 * at the same address: the transform must still tell whose code it
 * compiled, or unloading f leaves g unlinked, calling freed code (the
 * tester's crash).  Rounds, since the reuse is the allocator's. */
START_TEST(unload_relinks_after_modules_never_compiled) {
  static const char calls_f_ir[] =
      "declare double @f(double)\n"
      "define double @g(double %x) {\n"
      "  %y = call double @f(double %x)\n  %r = fmul double %y, 2.0\n  ret double %r\n}\n";
  for (int round = 0; round < 16; round++) {
    tanjit_session *s = new_session();
    tanjit_error *err = NULL;
    ck_assert_int_eq(tanjit_load_memory(s, "", 0, "f.ll", &err), 0);
    ck_assert_int_eq(tanjit_load_memory(s, "", 0, NULL, &err), 0);
    load_ok(s, lin_ir, "f.ll");
    ck_assert_int_eq(tanjit_load_memory(s, lin_ir, strlen(lin_ir), "f-again.ll", &err), -1);
    tanjit_error_free(err);
    err = NULL;
    ck_assert_double_eq(((unary_t)(uintptr_t)lookup_ok(s, "f"))(3.0), 6.0);
    load_ok(s, calls_f_ir, "g.ll");
    ck_assert_double_eq(((unary_t)(uintptr_t)lookup_ok(s, "g"))(3.0), 12.0);
    ck_assert_int_eq(tanjit_unload(s, "f.ll", &err), 0);
    /* g was re-linked: with no f it cannot compile */
    ck_assert_ptr_null(tanjit_lookup(s, "g", &err));
    ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_SYMBOL);
    const char *want = "cannot compile 'g': unresolved external f (";
    ck_assert_msg(strncmp(tanjit_error_message(err), want, strlen(want)) == 0, "%s",
                  tanjit_error_message(err));
    tanjit_error_free(err);
    tanjit_session_free(s);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("api");
  TCase *tc = tcase_create("api");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, versions_agree);
  tcase_add_test(tc, shorter_options_get_defaults);
  tcase_add_test(tc, uninitialized_or_unknown_options_are_refused);
  tcase_add_test(tc, host_symbol_needs_defining_and_the_error_says_so);
  tcase_add_test(tc, host_function_and_variable_by_address);
  tcase_add_test(tc, host_symbol_before_registered_library);
  tcase_add_test(tc, unload_then_reload_with_a_new_body);
  tcase_add_test(tc, unload_of_an_unknown_name_is_an_error);
  tcase_add_test(tc, unload_by_path_before_compiling);
  tcase_add_test(tc, perf_map_names_compiled_functions);
  tcase_add_test(tc, no_perf_map_by_default);
  tcase_add_test(tc, fwddiff_with_primal);
  tcase_add_test(tc, error_location_through_accessors);
  tcase_add_test(tc, request_errors_name_the_request);
  tcase_add_test(tc, request_refusals_are_located_at_the_function);
  tcase_add_test(tc, wrong_activity_count_reads_no_further);
  tcase_add_test(tc, unload_relinks_requests_made_through_views);
  tcase_add_test(tc, unload_relinks_after_modules_never_compiled);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
