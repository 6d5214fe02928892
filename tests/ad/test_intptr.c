/*
 * Integers that are pointers (a uintptr_t, a CUdeviceptr as i64) keep their
 * shadow across calls and requests: a defined callee's derivative takes the
 * shadow of an integer argument that may hold a pointer (an integer of the
 * same type, [N x iK] in vector mode) and returns the shadow of an integer
 * result; a plain integer (a count, an index) gets none; derivatives are
 * cached per signature, integer activity included; a request may duplicate
 * an integer explicitly (enzyme_dup, TANJIT_DUP); a call with no body that
 * would need such a shadow is an error naming the callee and the value.
 * Numbers are checked against analytic derivatives, at -O0 and -O2 of the
 * JIT; signatures by inspecting the engine's output.
 */
#include "test_common.h"

typedef struct {
  double a, b;
} pair;

/* sum_i v_i^2 through an integer address; f = sum(x) + x_0 */
#define SUM_IR                                                                 \
  "define double @sum(i64 %p, i32 %n) {\n"                                     \
  "entry:\n"                                                                   \
  "  br label %loop\n"                                                         \
  "loop:\n"                                                                    \
  "  %i = phi i32 [0, %entry], [%i1, %loop]\n"                                 \
  "  %s = phi double [0.0, %entry], [%s1, %loop]\n"                            \
  "  %base = inttoptr i64 %p to ptr\n"                                         \
  "  %q = getelementptr double, ptr %base, i32 %i\n"                           \
  "  %v = load double, ptr %q\n"                                               \
  "  %vv = fmul double %v, %v\n"                                               \
  "  %s1 = fadd double %s, %vv\n"                                              \
  "  %i1 = add i32 %i, 1\n"                                                    \
  "  %c = icmp slt i32 %i1, %n\n"                                              \
  "  br i1 %c, label %loop, label %exit\n"                                     \
  "exit:\n"                                                                    \
  "  ret double %s1\n"                                                         \
  "}\n"

static const char call_arg_ir[] = REQ_DECLS SUM_IR
    "define double @f(ptr %x, i32 %n) {\n"
    "  %a = ptrtoint ptr %x to i64\n"
    "  %s = call double @sum(i64 %a, i32 %n)\n"
    "  %x0 = load double, ptr %x\n"
    "  %r = fadd double %s, %x0\n"
    "  ret double %r\n"
    "}\n"
    "define double @df(ptr %x, ptr %dx, i32 %n) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %x, ptr %dx, i32 %n)\n"
    "  ret double %r\n"
    "}\n"
    "define {double, double} @df2(ptr %x, ptr %d1, ptr %d2, i32 %n) {\n"
    "  %w = load i32, ptr @enzyme_width\n"
    "  %r = call {double, double} (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %w, i64 2, ptr %x, ptr %d1, ptr %d2, i32 %n)\n"
    "  ret {double, double} %r\n"
    "}\n";

/* Parses `ir` and runs the engine on it; the caller disposes ctx (and the
 * module with it). */
static LLVMModuleRef transformed(const char *ir, LLVMContextRef *ctx) {
  *ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "intptr.ll");
  LLVMModuleRef m;
  char *msg = NULL;
  ck_assert_msg(LLVMParseIRInContext(*ctx, buf, &m, &msg) == 0, "parse: %s",
                msg);
  ad_engine *e = ad_engine_new();
  tanjit_error *err = NULL;
  int rc = ad_transform_module(e, m, &err);
  ck_assert_msg(rc == 0, "engine: %s", err ? tanjit_error_message(err) : "?");
  ad_engine_free(e);
  return m;
}

/* The printed type of function `name` in m (caller frees), or NULL. */
static char *function_type(LLVMModuleRef m, const char *name) {
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  if (!f)
    return NULL;
  char *s = LLVMPrintTypeToString(LLVMGlobalGetValueType(f));
  char *c = strdup(s);
  LLVMDisposeMessage(s);
  return c;
}

static void assert_function_type(LLVMModuleRef m, const char *name,
                                 const char *want) {
  char *t = function_type(m, name);
  ck_assert_msg(t, "no function %s", name);
  ck_assert_msg(strcmp(t, want) == 0, "%s has type %s, expected %s", name, t,
                want);
  free(t);
}

/* Functions whose name is `prefix` or `prefix.<n>` (LLVM's renaming). */
static int count_functions(LLVMModuleRef m, const char *prefix) {
  int n = 0;
  size_t pl = strlen(prefix);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (len >= pl && strncmp(name, prefix, pl) == 0 &&
        (name[pl] == 0 || name[pl] == '.'))
      n++;
  }
  return n;
}

/* ---- an integer argument that is a pointer ---- */

START_TEST(test_call_integer_argument) {
  int opt = _i ? 2 : 0;
  double (*df)(double *, double *, int) =
      (double (*)(double *, double *, int))jit_symbol(call_arg_ir, "df", opt);
  pair (*df2)(double *, double *, double *, int) =
      (pair (*)(double *, double *, double *, int))jit_symbol(call_arg_ir,
                                                              "df2", opt);
  double x[3] = {0.5, -1.5, 2.0}, dx[3] = {1.0, 2.0, -0.5},
         e2[3] = {0, 0, 1};
  double want = dx[0];
  for (int i = 0; i < 3; i++)
    want += 2 * x[i] * dx[i];
  ck_assert_close(df(x, dx, 3), want, 1e-14);
  pair p = df2(x, dx, e2, 3);
  ck_assert_close(p.a, want, 1e-14);
  ck_assert_close(p.b, 2 * x[2], 1e-14);
  close_sessions();
}
END_TEST

/* The callee's derivative: the i64 gets an i64 shadow ([2 x i64] in vector
 * mode, where the double's tangents are a <2 x double>), the plain i32
 * count none. */
START_TEST(test_call_integer_signature) {
  LLVMContextRef ctx;
  LLVMModuleRef m = transformed(call_arg_ir, &ctx);
  assert_function_type(m, "fwddiffesum", "{ double, double } (i64, i64, i32)");
  assert_function_type(m, "fwddiffe2sum",
                       "{ double, <2 x double> } (i64, [2 x i64], i32)");
  LLVMContextDispose(ctx);
}
END_TEST

/* ---- an integer result that is a pointer ---- */

static const char call_return_ir[] = REQ_DECLS
    "define i64 @addr(ptr %x, i64 %i) {\n"
    "  %q = getelementptr double, ptr %x, i64 %i\n"
    "  %a = ptrtoint ptr %q to i64\n"
    "  ret i64 %a\n"
    "}\n"
    "define i64 @advance(i64 %p, i64 %k) {\n"
    "  %o = mul i64 %k, 8\n"
    "  %r = add i64 %p, %o\n"
    "  ret i64 %r\n"
    "}\n"
    /* g = x_2^2 * x_1 */
    "define double @g(ptr %x) {\n"
    "  %a = call i64 @addr(ptr %x, i64 2)\n"
    "  %p = inttoptr i64 %a to ptr\n"
    "  %v = load double, ptr %p\n"
    "  %h = ptrtoint ptr %x to i64\n"
    "  %b = call i64 @advance(i64 %h, i64 1)\n"
    "  %pb = inttoptr i64 %b to ptr\n"
    "  %w = load double, ptr %pb\n"
    "  %vv = fmul double %v, %v\n"
    "  %r = fmul double %vv, %w\n"
    "  ret double %r\n"
    "}\n"
    "define double @dg(ptr %x, ptr %dx) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, ptr %x, ptr %dx)\n"
    "  ret double %r\n"
    "}\n";

START_TEST(test_call_integer_result) {
  int opt = _i ? 2 : 0;
  double (*dg)(double *, double *) =
      (double (*)(double *, double *))jit_symbol(call_return_ir, "dg", opt);
  double x[3] = {0.5, -1.5, 2.0}, dx[3] = {1.0, 2.0, -0.5};
  double want = 2 * x[2] * dx[2] * x[1] + x[2] * x[2] * dx[1];
  ck_assert_close(dg(x, dx), want, 1e-14);
  close_sessions();
}
END_TEST

START_TEST(test_call_integer_result_signature) {
  LLVMContextRef ctx;
  LLVMModuleRef m = transformed(call_return_ir, &ctx);
  /* {primal, shadow} of the i64 result; the plain index has no shadow */
  assert_function_type(m, "fwddiffeaddr", "{ i64, i64 } (ptr, ptr, i64)");
  assert_function_type(m, "fwddiffeadvance", "{ i64, i64 } (i64, i64, i64)");
  LLVMContextDispose(ctx);
}
END_TEST

/* ---- plain integers get no shadow; signatures are cached ---- */

static const char cache_ir[] = REQ_DECLS
    "@C = internal constant [3 x double] [double 3.0, double 0.5, double -1.0]\n"
    "define double @dot2(i64 %a, i64 %b, i32 %n) {\n"
    "entry:\n"
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i32 [0, %entry], [%i1, %loop]\n"
    "  %s = phi double [0.0, %entry], [%s1, %loop]\n"
    "  %pa = inttoptr i64 %a to ptr\n"
    "  %pb = inttoptr i64 %b to ptr\n"
    "  %qa = getelementptr double, ptr %pa, i32 %i\n"
    "  %qb = getelementptr double, ptr %pb, i32 %i\n"
    "  %va = load double, ptr %qa\n"
    "  %vb = load double, ptr %qb\n"
    "  %m = fmul double %va, %vb\n"
    "  %s1 = fadd double %s, %m\n"
    "  %i1 = add i32 %i, 1\n"
    "  %c = icmp slt i32 %i1, %n\n"
    "  br i1 %c, label %loop, label %exit\n"
    "exit:\n"
    "  ret double %s1\n"
    "}\n"
    /* x[k * 2], k read from active memory but only ever an index */
    "define double @pick(ptr %x, i64 %k) {\n"
    "  %q = getelementptr double, ptr %x, i64 %k\n"
    "  %v = load double, ptr %q\n"
    "  ret double %v\n"
    "}\n"
    /* f = 2 <x, x> + <x, C> + x[2 k] */
    "define double @f(ptr %x, ptr %kp) {\n"
    "  %h = ptrtoint ptr %x to i64\n"
    "  %s1 = call double @dot2(i64 %h, i64 %h, i32 3)\n"
    "  %s2 = call double @dot2(i64 %h, i64 ptrtoint (ptr @C to i64), i32 3)\n"
    "  %s3 = call double @dot2(i64 %h, i64 %h, i32 3)\n"
    "  %k = load i64, ptr %kp\n"
    "  %k2 = mul i64 %k, 2\n"
    "  %s4 = call double @pick(ptr %x, i64 %k2)\n"
    "  %t1 = fadd double %s1, %s2\n"
    "  %t2 = fadd double %t1, %s3\n"
    "  %t3 = fadd double %t2, %s4\n"
    "  ret double %t3\n"
    "}\n"
    "define double @df(ptr %x, ptr %dx, ptr %kp, ptr %dkp) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %x, ptr %dx, ptr %kp, ptr %dkp)\n"
    "  ret double %r\n"
    "}\n";

START_TEST(test_cache_and_plain_integers) {
  LLVMContextRef ctx;
  LLVMModuleRef m = transformed(cache_ir, &ctx);
  /* two signatures of dot2 (both handles active; the second constant), the
   * repeated call reuses the first */
  ck_assert_int_eq(count_functions(m, "fwddiffedot2"), 2);
  char *t0 = function_type(m, "fwddiffedot2");
  char *t1 = function_type(m, "fwddiffedot2.1");
  ck_assert_ptr_nonnull(t0);
  ck_assert_ptr_nonnull(t1);
  ck_assert_str_eq(t0, "{ double, double } (i64, i64, i64, i64, i32)");
  ck_assert_str_eq(t1, "{ double, double } (i64, i64, i64, i32)");
  free(t0);
  free(t1);
  /* k * 2 is an index: no shadow */
  assert_function_type(m, "fwddiffepick", "{ double, double } (ptr, ptr, i64)");
  LLVMContextDispose(ctx);

  for (int opt = 0; opt <= 2; opt += 2) {
    double (*df)(double *, double *, long *, long *) =
        (double (*)(double *, double *, long *, long *))jit_symbol(cache_ir,
                                                                  "df", opt);
    double x[5] = {0.5, -1.5, 2.0, 4.0, 7.0}, dx[5] = {1.0, 2.0, -0.5, 3.0, 9.0};
    const double c[3] = {3.0, 0.5, -1.0};
    long k = 2, dk = 0;
    double want = dx[4];
    for (int i = 0; i < 3; i++)
      want += 4 * x[i] * dx[i] + dx[i] * c[i];
    ck_assert_close(df(x, dx, &k, &dk), want, 1e-14);
  }
  close_sessions();
}
END_TEST

/* ---- requests that duplicate an integer ---- */

static const char request_ir[] = REQ_DECLS SUM_IR
    "define double @dsum(i64 %p, i64 %dp, i32 %n) {\n"
    "  %dup = load i32, ptr @enzyme_dup\n"
    "  %cst = load i32, ptr @enzyme_const\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @sum, i32 %dup, i64 %p, i64 %dp, i32 %cst, i32 %n)\n"
    "  ret double %r\n"
    "}\n"
    /* pointers given for the duplicated integer */
    "define double @dsump(ptr %p, ptr %dp, i32 %n) {\n"
    "  %dup = load i32, ptr @enzyme_dup\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @sum, i32 %dup, ptr %p, ptr %dp, i32 %n)\n"
    "  ret double %r\n"
    "}\n"
    "define {double, double} @dsum2(i64 %p, i64 %d1, i64 %d2, i32 %n) {\n"
    "  %w = load i32, ptr @enzyme_width\n"
    "  %r = call {double, double} (ptr, ...) @__enzyme_fwddiff(ptr @sum, metadata !\"enzyme_width\", i64 2, metadata !\"enzyme_dup\", i64 %p, i64 %d1, i64 %d2, i32 %n)\n"
    "  ret {double, double} %r\n"
    "}\n";

START_TEST(test_request_dup_integer) {
  int opt = _i ? 2 : 0;
  typedef long long i64;
  double (*dsum)(i64, i64, int) =
      (double (*)(i64, i64, int))jit_symbol(request_ir, "dsum", opt);
  pair (*dsum2)(i64, i64, i64, int) =
      (pair (*)(i64, i64, i64, int))jit_symbol(request_ir, "dsum2", opt);
  double x[3] = {0.5, -1.5, 2.0}, dx[3] = {1.0, 2.0, -0.5}, e0[3] = {1, 0, 0};
  double want = 0;
  for (int i = 0; i < 3; i++)
    want += 2 * x[i] * dx[i];
  ck_assert_close(dsum((i64)(uintptr_t)x, (i64)(uintptr_t)dx, 3), want, 1e-14);
  double (*dsump)(double *, double *, int) =
      (double (*)(double *, double *, int))jit_symbol(request_ir, "dsump", opt);
  ck_assert_close(dsump(x, dx, 3), want, 1e-14);
  pair p = dsum2((i64)(uintptr_t)x, (i64)(uintptr_t)dx, (i64)(uintptr_t)e0, 3);
  ck_assert_close(p.a, want, 1e-14);
  ck_assert_close(p.b, 2 * x[0], 1e-14);
  close_sessions();
}
END_TEST

/* tanjit_fwddiff with TANJIT_DUP on an i64 parameter, widths 1 and 2. */
START_TEST(test_api_dup_integer) {
  static const char ir[] = SUM_IR;
  typedef long long i64;
  tanjit_error *err = NULL;
  tanjit_options o;
  tanjit_options_init(&o);
  o.opt_level = _i ? 2 : 0;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_ptr_nonnull(s);
  ck_assert_msg(tanjit_load_memory(s, ir, strlen(ir), "sum.ll", &err) == 0,
                "%s", err ? tanjit_error_message(err) : "?");
  const tanjit_activity act[2] = {TANJIT_DUP, TANJIT_CONST};
  double (*d1)(i64, i64, int) =
      (double (*)(i64, i64, int))tanjit_fwddiff(s, "sum", act, 2, 1, &err);
  ck_assert_msg(d1, "%s", err ? tanjit_error_message(err) : "?");
  void (*d2)(double *, i64, i64, i64, int) =
      (void (*)(double *, i64, i64, i64, int))tanjit_fwddiff(s, "sum", act, 2,
                                                             2, &err);
  ck_assert_msg(d2, "%s", err ? tanjit_error_message(err) : "?");
  double x[4] = {0.5, -1.5, 2.0, 3.0}, dx[4] = {1.0, 2.0, -0.5, 0.25},
         e3[4] = {0, 0, 0, 1};
  double want = 0;
  for (int i = 0; i < 4; i++)
    want += 2 * x[i] * dx[i];
  ck_assert_close(d1((i64)(uintptr_t)x, (i64)(uintptr_t)dx, 4), want, 1e-14);
  double out[2] = {0, 0};
  d2(out, (i64)(uintptr_t)x, (i64)(uintptr_t)dx, (i64)(uintptr_t)e3, 4);
  ck_assert_close(out[0], want, 1e-14);
  ck_assert_close(out[1], 2 * x[3], 1e-14);
  tanjit_session_free(s);
}
END_TEST

/* ---- no body: an error that names the callee and the integer ---- */

START_TEST(test_error_opaque_integer) {
  static const char ir[] = REQ_DECLS
      "declare void @opaque_fill(i64, i32)\n"
      "define double @f(ptr %x) {\n"
      "  %h = ptrtoint ptr %x to i64\n"
      "  call void @opaque_fill(i64 %h, i32 4)\n"
      "  %v = load double, ptr %x\n"
      "  ret double %v\n"
      "}\n"
      "define double @df(ptr %x, ptr %dx) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %x, ptr %dx)\n"
      "  ret double %r\n"
      "}\n";
  tanjit_error *err = engine_error(ir);
  ck_assert_ptr_nonnull(err);
  const char *msg = tanjit_error_message(err);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_DIFFERENTIATE);
  ck_assert_msg(strstr(msg, "opaque_fill") && strstr(msg, "%h") &&
                    strstr(msg, "may hold a pointer") && strstr(msg, " in f"),
                "%s", msg);
  tanjit_error_free(err);
}
END_TEST

/* A plain integer (known to be one) passed to a callee with no body is no
 * error: the call is kept as it is. */
START_TEST(test_opaque_plain_integer_kept) {
  static const char ir[] = REQ_DECLS
      "declare i64 @llabs(i64)\n"
      "define double @f(ptr %x, i64 %n) {\n"
      "  %m = mul i64 %n, 3\n"
      "  %k = call i64 @llabs(i64 %m)\n"
      "  %kk = and i64 %k, 1\n"
      "  %q = getelementptr double, ptr %x, i64 %kk\n"
      "  %v = load double, ptr %q\n"
      "  %r = fmul double %v, %v\n"
      "  ret double %r\n"
      "}\n"
      "define double @df(ptr %x, ptr %dx, i64 %n) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %x, ptr %dx, i64 %n)\n"
      "  ret double %r\n"
      "}\n";
  double (*df)(double *, double *, long) =
      (double (*)(double *, double *, long))jit_symbol(ir, "df", 0);
  double x[2] = {0.5, -1.5}, dx[2] = {2.0, 3.0};
  ck_assert_close(df(x, dx, -1), 2 * x[1] * dx[1], 1e-14);
  ck_assert_close(df(x, dx, 2), 2 * x[0] * dx[0], 1e-14);
  close_sessions();
}
END_TEST

static Suite *intptr_suite(void) {
  Suite *s = suite_create("intptr");
  TCase *t = tcase_create("calls");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, test_call_integer_argument, 0, 2);
  tcase_add_test(t, test_call_integer_signature);
  tcase_add_loop_test(t, test_call_integer_result, 0, 2);
  tcase_add_test(t, test_call_integer_result_signature);
  tcase_add_test(t, test_cache_and_plain_integers);
  suite_add_tcase(s, t);
  t = tcase_create("requests");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, test_request_dup_integer, 0, 2);
  tcase_add_loop_test(t, test_api_dup_integer, 0, 2);
  suite_add_tcase(s, t);
  t = tcase_create("errors");
  tcase_add_test(t, test_error_opaque_integer);
  tcase_add_test(t, test_opaque_plain_integer_kept);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(intptr_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
