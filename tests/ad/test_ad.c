/*
 * Check suites for the forward-mode engine: each instruction family, memory
 * and heap rules, vector (batched) mode, requests' markers and results, and
 * the errors.  Derivatives are compared with analytic values; the math
 * table is checked entry by entry against central finite differences
 * (test_math.c).
 */
#include "test_common.h"

#include <pthread.h>

#include <llvm-c/Analysis.h>
#include <llvm/Config/llvm-config.h>

/* ---- scalar arithmetic ---- */

static const char arith_ir[] = REQ_DECLS
    "define double @f(double %x, double %y) {\n"
    "  %a = fmul double %x, %y\n"
    "  %b = fadd double %a, %x\n"
    "  %c = fdiv double %y, %x\n"
    "  %d = fsub double %b, %c\n"
    "  %e = frem double %x, %y\n"
    "  %g = fadd double %d, %e\n"
    "  %n = fneg double %g\n"
    "  ret double %n\n"
    "}\n"
    "define double @dfx(double %x, double %y) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0, double %y, double 0.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dfy(double %x, double %y) {\n"
    "  %c = load i32, ptr @enzyme_const\n"
    "  %d = load i32, ptr @enzyme_dup\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %c, double %x, i32 %d, double %y, double 1.0)\n"
    "  ret double %r\n"
    "}\n";

START_TEST(test_arith) {
  int opt = _i ? 2 : 0;
  typedef double (*fn2)(double, double);
  fn2 dfx = (fn2)jit_symbol(arith_ir, "dfx", opt);
  fn2 dfy = (fn2)jit_symbol(arith_ir, "dfy", opt);
  double x = 1.3, y = 0.4;
  /* f = -(xy + x - y/x + fmod(x, y)) */
  ck_assert_close(dfx(x, y), -(y + 1 + y / (x * x) + 1), 1e-12);
  ck_assert_close(dfy(x, y), -(x - 1 / x - trunc(x / y)), 1e-12);
  close_sessions();
}
END_TEST

/* Fast-math flags reaching tangents: tests/filecheck/fast_math.ll. */

/* ---- float types and conversions ---- */

static const char types_ir[] = REQ_DECLS
    "define float @g(float %x) {\n"
    "  %e = fpext float %x to double\n"
    "  %m = fmul double %e, %e\n"
    "  %t = fptrunc double %m to float\n"
    "  %h = fptrunc float %x to half\n"
    "  %h2 = fmul half %h, %h\n"
    "  %hb = fpext half %h2 to float\n"
    "  %s = fadd float %t, %hb\n"
    "  %l = fpext float %x to x86_fp80\n"
    "  %l3 = fmul x86_fp80 %l, %l\n"
    "  %l4 = fmul x86_fp80 %l3, %l\n"
    "  %lt = fptrunc x86_fp80 %l4 to float\n"
    "  %r = fadd float %s, %lt\n"
    "  ret float %r\n"
    "}\n"
    "define float @dg(float %x) {\n"
    "  %r = call float (ptr, ...) @__enzyme_fwddiff(ptr @g, float %x, float 1.0)\n"
    "  ret float %r\n"
    "}\n"
    "define double @c(double %x) {\n"
    "  %i = fptosi double %x to i32\n"
    "  %f = sitofp i32 %i to double\n"
    "  %u = fptoui double %x to i32\n"
    "  %uf = uitofp i32 %u to double\n"
    "  %m = fmul double %x, %f\n"
    "  %r = fadd double %m, %uf\n"
    "  ret double %r\n"
    "}\n"
    "define double @dc(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @c, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n";

START_TEST(test_types) {
  int opt = _i ? 2 : 0;
  float (*dg)(float) = (float (*)(float))jit_symbol(types_ir, "dg", opt);
  double (*dc)(double) = (double (*)(double))jit_symbol(types_ir, "dc", opt);
  float x = 0.75f;
  /* g = 2x^2 + x^3 (one x^2 through half precision) */
  ck_assert_close(dg(x), 4 * x + 3 * x * x, 2e-3);
  /* c = x trunc(x) + trunc(x): the conversions have zero derivative */
  ck_assert_close(dc(2.5), 2.0, 1e-15);
  close_sessions();
}
END_TEST

/* ---- control flow: loops, PHIs, select, switch, recursion ---- */

static const char flow_ir[] = REQ_DECLS
    "define double @pw(double %x, i32 %n) {\n"
    "entry:\n"
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i32 [0, %entry], [%i1, %body]\n"
    "  %acc = phi double [1.0, %entry], [%acc1, %body]\n"
    "  %c = icmp slt i32 %i, %n\n"
    "  br i1 %c, label %body, label %exit\n"
    "body:\n"
    "  %acc1 = fmul double %acc, %x\n"
    "  %i1 = add i32 %i, 1\n"
    "  br label %loop\n"
    "exit:\n"
    "  %neg = fcmp olt double %x, 0.0\n"
    "  %s = select i1 %neg, double 0.0, double %acc\n"
    "  switch i32 %n, label %dflt [ i32 0, label %zero\n"
    "                               i32 1, label %one ]\n"
    "zero:\n"
    "  ret double 0.0\n"
    "one:\n"
    "  %o = fmul double %s, 2.0\n"
    "  ret double %o\n"
    "dflt:\n"
    "  ret double %s\n"
    "dead:\n"
    "  %never = fadd double %x, %x\n"
    "  br label %dflt\n"
    "}\n"
    "define double @dpw(double %x, i32 %n) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @pw, double %x, double 1.0, i32 %n)\n"
    "  ret double %r\n"
    "}\n"
    "define double @rp(double %x, i32 %n) {\n"
    "  %z = icmp eq i32 %n, 0\n"
    "  br i1 %z, label %base, label %rec\n"
    "base:\n"
    "  ret double 1.0\n"
    "rec:\n"
    "  %n1 = sub i32 %n, 1\n"
    "  %r = call double @rp(double %x, i32 %n1)\n"
    "  %m = fmul double %r, %x\n"
    "  ret double %m\n"
    "}\n"
    "define double @drp(double %x, i32 %n) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @rp, double %x, double 1.0, i32 %n)\n"
    "  ret double %r\n"
    "}\n";

START_TEST(test_control_flow) {
  int opt = _i ? 2 : 0;
  typedef double (*fn)(double, int);
  fn dpw = (fn)jit_symbol(flow_ir, "dpw", opt);
  fn drp = (fn)jit_symbol(flow_ir, "drp", opt);
  ck_assert_close(dpw(1.5, 3), 3 * 1.5 * 1.5, 1e-14);
  ck_assert_close(dpw(1.5, 1), 2.0, 1e-14);
  ck_assert_close(dpw(1.5, 0), 0.0, 1e-14);
  ck_assert_close(dpw(-1.5, 3), 0.0, 1e-14); /* the select's other arm */
  ck_assert_close(drp(1.5, 4), 4 * 1.5 * 1.5 * 1.5, 1e-14);
  close_sessions();
}
END_TEST

/* ---- aggregates and vectors ---- */

static const char agg_ir[] = REQ_DECLS
    "declare double @llvm.vector.reduce.fadd.v2f64(double, <2 x double>)\n"
    "define double @agg(double %x, double %y) {\n"
    "  %a = insertvalue {double, i32, double} poison, double %x, 0\n"
    "  %b = insertvalue {double, i32, double} %a, i32 7, 1\n"
    "  %c = insertvalue {double, i32, double} %b, double %y, 2\n"
    "  %p = extractvalue {double, i32, double} %c, 0\n"
    "  %q = extractvalue {double, i32, double} %c, 2\n"
    "  %v0 = insertelement <2 x double> poison, double %p, i32 0\n"
    "  %v1 = insertelement <2 x double> %v0, double %q, i32 1\n"
    "  %sw = shufflevector <2 x double> %v1, <2 x double> poison, <2 x i32> <i32 1, i32 0>\n"
    "  %pr = fmul <2 x double> %v1, %sw\n"
    "  %sq = fmul <2 x double> %v1, %v1\n"
    "  %t = fadd <2 x double> %pr, %sq\n"
    "  %e0 = extractelement <2 x double> %t, i32 0\n"
    "  %red = call double @llvm.vector.reduce.fadd.v2f64(double %e0, <2 x double> %t)\n"
    "  ret double %red\n"
    "}\n"
    "define double @dx(double %x, double %y) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @agg, double %x, double 1.0, double %y, double 0.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dy(double %x, double %y) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @agg, double %x, double 0.0, double %y, double 1.0)\n"
    "  ret double %r\n"
    "}\n";

START_TEST(test_aggregates_vectors) {
  int opt = _i ? 2 : 0;
  typedef double (*fn2)(double, double);
  fn2 dx = (fn2)jit_symbol(agg_ir, "dx", opt);
  fn2 dy = (fn2)jit_symbol(agg_ir, "dy", opt);
  /* agg = 3xy + 2x^2 + y^2 */
  ck_assert_close(dx(0.7, -1.1), 3 * -1.1 + 4 * 0.7, 1e-14);
  ck_assert_close(dy(0.7, -1.1), 3 * 0.7 + 2 * -1.1, 1e-14);
  close_sessions();
}
END_TEST

/* Non-linear reductions from -O3 -ffast-math vectorized loops. */
START_TEST(test_vector_reductions) {
  static const char ir[] = REQ_DECLS
      "declare double @llvm.vector.reduce.fmul.v4f64(double, <4 x double>)\n"
      "declare double @llvm.vector.reduce.fmax.v4f64(<4 x double>)\n"
      "define double @rv(double %x) {\n"
      "  %v = insertelement <4 x double> <double 1.0, double 2.0, double 0.5, double 3.0>, double %x, i32 2\n"
      "  %p = call reassoc double @llvm.vector.reduce.fmul.v4f64(double %x, <4 x double> %v)\n"
      "  %m = call double @llvm.vector.reduce.fmax.v4f64(<4 x double> %v)\n"
      "  %r = fadd double %p, %m\n"
      "  ret double %r\n"
      "}\n"
      "define double @drv(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @rv, double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n";
  double (*drv)(double) = (double (*)(double))jit_symbol(ir, "drv", _i ? 2 : 0);
  /* rv = 6x^2 + max(1, 2, x, 3) */
  ck_assert_close(drv(5.0), 12 * 5.0 + 1, 1e-14);
  ck_assert_close(drv(0.5), 12 * 0.5, 1e-14);
  close_sessions();
}
END_TEST

/* ---- memory and heap ---- */

static const char mem_ir[] = REQ_DECLS
    "declare ptr @malloc(i64)\n"
    "declare void @free(ptr)\n"
    "declare ptr @calloc(i64, i64)\n"
    "declare ptr @realloc(ptr, i64)\n"
    "declare ptr @_Znwm(i64)\n"
    "declare void @_ZdlPv(ptr)\n"
    "declare i32 @posix_memalign(ptr, i64, i64)\n"
    "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
    "declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\n"
    "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n"
    "define double @mem(ptr %in, i32 %n) {\n"
    "  %buf = call ptr @malloc(i64 64)\n"
    "  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %in, i64 16, i1 false)\n"
    "  %c = call ptr @calloc(i64 8, i64 8)\n"
    "  %b1 = getelementptr double, ptr %buf, i64 1\n"
    "  call void @llvm.memmove.p0.p0.i64(ptr %c, ptr %b1, i64 8, i1 false)\n"
    "  %r = call ptr @realloc(ptr %c, i64 128)\n"
    "  %nw = call ptr @_Znwm(i64 16)\n"
    "  %v0 = load double, ptr %buf\n"
    "  %v1 = load double, ptr %r\n"
    "  %m = fmul double %v0, %v1\n"
    "  store double %m, ptr %nw\n"
    "  %pp = alloca ptr\n"
    "  %rc = call i32 @posix_memalign(ptr %pp, i64 16, i64 32)\n"
    "  %pm = load ptr, ptr %pp\n"
    "  store double %v0, ptr %pm\n"
    "  %w = load double, ptr %nw\n"
    "  %w2 = load double, ptr %pm\n"
    "  %res = fmul double %w, %w2\n"
    "  %b2 = getelementptr double, ptr %buf, i64 2\n"
    "  call void @llvm.memset.p0.i64(ptr %b2, i8 0, i64 16, i1 false)\n"
    "  %z = load double, ptr %b2\n"
    "  %res2 = fadd double %res, %z\n"
    "  %acc = alloca double\n"
    "  store atomic double %res2, ptr %acc seq_cst, align 8\n"
    "  %old = atomicrmw fadd ptr %acc, double %v1 seq_cst\n"
    "  %fin = load atomic double, ptr %acc seq_cst, align 8\n"
    "  call void @free(ptr %buf)\n"
    "  call void @free(ptr %r)\n"
    "  call void @_ZdlPv(ptr %nw)\n"
    "  call void @free(ptr %pm)\n"
    "  ret double %fin\n"
    "}\n"
    "define double @dmem(ptr %in, ptr %din) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @mem, ptr %in, ptr %din, i32 2)\n"
    "  ret double %r\n"
    "}\n"
    /* an out-parameter with metadata markers (Rust's spelling) */
    "declare double @llvm.sqrt.f64(double)\n"
    "define void @sq(ptr %x, ptr %y) {\n"
    "  %v = load double, ptr %x\n"
    "  %s = call double @llvm.sqrt.f64(double %v)\n"
    "  store double %s, ptr %y\n"
    "  ret void\n"
    "}\n"
    "define void @dsq(ptr %x, ptr %dx, ptr %y, ptr %dy) {\n"
    "  call void (ptr, ...) @__enzyme_fwddiff(ptr @sq, metadata !\"enzyme_dup\", ptr %x, ptr %dx, metadata !\"enzyme_dup\", ptr %y, ptr %dy)\n"
    "  ret void\n"
    "}\n";

START_TEST(test_memory) {
  int opt = _i ? 2 : 0;
  double (*dmem)(double *, double *) =
      (double (*)(double *, double *))jit_symbol(mem_ir, "dmem", opt);
  double in[2] = {1.5, -0.5}, e0[2] = {1, 0}, e1[2] = {0, 1};
  /* mem = in0^2 in1 + in1 */
  ck_assert_close(dmem(in, e0), 2 * in[0] * in[1], 1e-14);
  ck_assert_close(dmem(in, e1), in[0] * in[0] + 1, 1e-14);
  void (*dsq)(double *, double *, double *, double *) =
      (void (*)(double *, double *, double *, double *))jit_symbol(mem_ir,
                                                                   "dsq", opt);
  double x = 2.25, dx = 1.0, y = 0, dy = 0;
  dsq(&x, &dx, &y, &dy);
  ck_assert_close(y, 1.5, 1e-15);
  ck_assert_close(dy, 1 / (2 * 1.5), 1e-15);
  close_sessions();
}
END_TEST

/* A pointer to a constant table copied into active memory: its shadow is
 * a zero shadow table, never the primal table nor null. */
START_TEST(test_constant_global_shadow) {
  static const char ir[] = REQ_DECLS
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"
      "@tab = internal constant [2 x double] [double 2.0, double 3.0]\n"
      "@ptrs = internal constant [2 x ptr] [ptr @tab, ptr null]\n"
      "define double @cg(ptr %x) {\n"
      "  %t = alloca [2 x ptr]\n"
      "  call void @llvm.memcpy.p0.p0.i64(ptr %t, ptr @ptrs, i64 16, i1 false)\n"
      "  %s1 = getelementptr ptr, ptr %t, i64 1\n"
      "  store ptr %x, ptr %s1\n"
      "  %p0 = load ptr, ptr %t\n"
      "  %a = load double, ptr %p0\n"
      "  %p1 = load ptr, ptr %s1\n"
      "  %b = load double, ptr %p1\n"
      "  %r = fmul double %a, %b\n"
      "  ret double %r\n"
      "}\n"
      "define double @dcg(ptr %x, ptr %dx) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @cg, ptr %x, ptr %dx)\n"
      "  ret double %r\n"
      "}\n";
  double (*d)(double *, double *) =
      (double (*)(double *, double *))jit_symbol(ir, "dcg", 0);
  double x = 5.0, dx = 1.0;
  ck_assert_close(d(&x, &dx), 2.0, 1e-15);
  close_sessions();
}
END_TEST

/* A mutable global receiving active data gets shadow globals (one per
 * lane); the primal global still receives the primal values. */
static const char global_ir[] = REQ_DECLS
    "@buf = global [2 x double] zeroinitializer\n"
    "define double @gf(double %x) {\n"
    "  %m = fmul double %x, %x\n"
    "  store double %m, ptr getelementptr ([2 x double], ptr @buf, i64 0, i64 1)\n"
    "  %v = load double, ptr getelementptr ([2 x double], ptr @buf, i64 0, i64 1)\n"
    "  %r = fmul double %v, %x\n"
    "  ret double %r\n"
    "}\n"
    "define double @dgf(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @gf, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dgf2(double %x) {\n"
    "  %wv = load i32, ptr @enzyme_width\n"
    "  %r = call [2 x double] (ptr, ...) @__enzyme_fwddiff(ptr @gf, i32 %wv, i64 2, double %x, double 1.0, double 2.0)\n"
    "  %a = extractvalue [2 x double] %r, 0\n"
    "  %b = extractvalue [2 x double] %r, 1\n"
    "  %s = fadd double %a, %b\n"
    "  ret double %s\n"
    "}\n";

START_TEST(test_mutable_global_shadow) {
  double (*dgf)(double) = (double (*)(double))jit_symbol(global_ir, "dgf", 0);
  double (*dgf2)(double) = (double (*)(double))jit_symbol(global_ir, "dgf2", 0);
  ck_assert_close(dgf(1.5), 3 * 1.5 * 1.5, 1e-15);
  ck_assert_close(dgf2(1.5), 3 * (3 * 1.5 * 1.5), 1e-15); /* lanes 1 and 2 */
  close_sessions();
}
END_TEST

/* Shadows of globals go by identity: unnamed globals, a user global that
 * happens to be called like a shadow, and a global reached through an
 * address-space cast. */
static const char global_identity_ir[] = REQ_DECLS
    "@0 = internal global double 0.0\n"
    "@1 = internal global [2 x double] zeroinitializer\n"
    "@g = internal global double 0.0\n"
    "@g_shadow = internal global double 100.0\n"
    "define double @h(double %x) {\n"
    "  store double %x, ptr @0\n"
    "  %p = getelementptr [2 x double], ptr @1, i64 0, i64 1\n"
    "  %x2 = fmul double %x, 2.0\n"
    "  store double %x2, ptr %p\n"
    "  store double %x, ptr @g\n"
    "  store double %x, ptr addrspace(1) addrspacecast (ptr @g to ptr addrspace(1))\n"
    "  %a = load double, ptr @0\n"
    "  %b = load double, ptr %p\n"
    "  %c = load double, ptr addrspace(1) addrspacecast (ptr @g to ptr addrspace(1))\n"
    "  %u = load double, ptr @g_shadow\n"
    "  %ab = fadd double %a, %b\n"
    "  %abc = fadd double %ab, %c\n"
    "  %r = fadd double %abc, %u\n"
    "  ret double %r\n"
    "}\n"
    "define double @dh(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @h, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n";

START_TEST(test_global_shadows_by_identity) {
  double (*dh)(double) = (double (*)(double))jit_symbol(global_identity_ir, "dh", 0);
  ck_assert_close(dh(1.5), 1.0 + 2.0 + 1.0, 1e-15); /* g_shadow is data: 0 */
  close_sessions();
}
END_TEST

/* ---- out-pointer math: sincos, modf, frexp ---- */

static const char outmath_ir[] = REQ_DECLS
    "declare void @sincos(double, ptr, ptr)\n"
    "declare double @modf(double, ptr)\n"
    "declare double @frexp(double, ptr)\n"
    "define double @sc(double %x) {\n"
    "  %s = alloca double\n"
    "  %c = alloca double\n"
    "  call void @sincos(double %x, ptr %s, ptr %c)\n"
    "  %sv = load double, ptr %s\n"
    "  %cv = load double, ptr %c\n"
    "  %r = fmul double %sv, %cv\n"
    "  ret double %r\n"
    "}\n"
    "define double @mf(double %x) {\n"
    "  %ip = alloca double\n"
    "  %f = call double @modf(double %x, ptr %ip)\n"
    "  %i = load double, ptr %ip\n"
    "  %f3 = fmul double %f, 3.0\n"
    "  %r = fadd double %f3, %i\n"
    "  ret double %r\n"
    "}\n"
    "define double @fx(double %x) {\n"
    "  %e = alloca i32\n"
    "  %m = call double @frexp(double %x, ptr %e)\n"
    "  ret double %m\n"
    "}\n"
    "define double @dsc(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @sc, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dmf(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @mf, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n"
    "define double @dfx(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @fx, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n";

START_TEST(test_out_pointer_math) {
  typedef double (*fn)(double);
  fn dsc = (fn)jit_symbol(outmath_ir, "dsc", 0);
  fn dmf = (fn)jit_symbol(outmath_ir, "dmf", 0);
  fn dfx = (fn)jit_symbol(outmath_ir, "dfx", 0);
  ck_assert_close(dsc(0.3), cos(0.6), 1e-14); /* (sin x cos x)' = cos 2x */
  ck_assert_close(dmf(2.75), 3.0, 1e-15);
  ck_assert_close(dfx(5.0), 0.125, 1e-15); /* 5 = 0.625 * 2^3 */
  close_sessions();
}
END_TEST

/* LLVM 20+ returns the pair from llvm.sincos / llvm.modf. */
START_TEST(test_pair_intrinsics) {
  if (!LLVMLookupIntrinsicID("llvm.sincos.f64", 15) ||
      !LLVMLookupIntrinsicID("llvm.modf.f64", 13)) {
    /* LLVM 19 has neither: nothing to test, and nothing can emit them */
    ck_assert_int_lt(LLVM_VERSION_MAJOR, 20);
    return;
  }
  static const char ir[] = REQ_DECLS
      "declare {double, double} @llvm.sincos.f64(double)\n"
      "declare {double, double} @llvm.modf.f64(double)\n"
      "define double @f(double %x) {\n"
      "  %sc = call {double, double} @llvm.sincos.f64(double %x)\n"
      "  %s = extractvalue {double, double} %sc, 0\n"
      "  %c = extractvalue {double, double} %sc, 1\n"
      "  %m = call {double, double} @llvm.modf.f64(double %x)\n"
      "  %fr = extractvalue {double, double} %m, 0\n"
      "  %ip = extractvalue {double, double} %m, 1\n"
      "  %p = fmul double %s, %c\n"
      "  %q = fmul double %fr, 3.0\n"
      "  %r0 = fadd double %p, %q\n"
      "  %r = fadd double %r0, %ip\n"
      "  ret double %r\n"
      "}\n"
      "define double @df(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n";
  double (*df)(double) = (double (*)(double))jit_symbol(ir, "df", 0);
  ck_assert_close(df(1.3), cos(2.6) + 3.0, 1e-14);
  close_sessions();
}
END_TEST

/* ---- vector (batched) mode ---- */

typedef struct {
  double a, b;
} pair;

static const char width_ir[] = REQ_DECLS
    "declare double @sin(double)\n"
    "define double @w(double %x, double %y) {\n"
    "  %m = fmul double %x, %y\n"
    "  %s = call double @sin(double %x)\n"
    "  %r = fadd double %m, %s\n"
    "  ret double %r\n"
    "}\n"
    "define {double, double} @dw2(double %x, double %y) {\n"
    "  %wv = load i32, ptr @enzyme_width\n"
    "  %r = call {double, double} (ptr, ...) @__enzyme_fwddiff(ptr @w, i32 %wv, i64 2, double %x, double 1.0, double 0.0, double %y, double 0.0, double 1.0)\n"
    "  ret {double, double} %r\n"
    "}\n"
    "define void @dw4(double %x, double %y, ptr %out) {\n"
    "  %wv = load i32, ptr @enzyme_width\n"
    "  %r = call [4 x double] (ptr, ...) @__enzyme_fwddiff(ptr @w, i32 %wv, i64 4, double %x, double 1.0, double 0.0, double 1.0, double 2.0, double %y, double 0.0, double 1.0, double 1.0, double -1.0)\n"
    "  store [4 x double] %r, ptr %out\n"
    "  ret void\n"
    "}\n"
    "define void @dw4sret(double %x, double %y, ptr %out) {\n"
    "  %wv = load i32, ptr @enzyme_width\n"
    "  call void (ptr, ...) @__enzyme_fwddiff(ptr sret([4 x double]) %out, ptr @w, i32 %wv, i64 4, double %x, double 1.0, double 0.0, double 1.0, double 2.0, double %y, double 0.0, double 1.0, double 1.0, double -1.0)\n"
    "  ret void\n"
    "}\n"
    /* pointers in vector mode: dot(a, b) with a duplicated 2 ways */
    "define double @dot(ptr %a, ptr %b, i32 %n) {\n"
    "entry:\n"
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i32 [0, %entry], [%i1, %loop]\n"
    "  %s = phi double [0.0, %entry], [%s1, %loop]\n"
    "  %pa = getelementptr double, ptr %a, i32 %i\n"
    "  %pb = getelementptr double, ptr %b, i32 %i\n"
    "  %va = load double, ptr %pa\n"
    "  %vb = load double, ptr %pb\n"
    "  %m = fmul double %va, %vb\n"
    "  %s1 = fadd double %s, %m\n"
    "  %i1 = add i32 %i, 1\n"
    "  %c = icmp slt i32 %i1, %n\n"
    "  br i1 %c, label %loop, label %exit\n"
    "exit:\n"
    "  ret double %s1\n"
    "}\n"
    "define {double, double} @ddot(ptr %a, ptr %da1, ptr %da2, ptr %b, i32 %n) {\n"
    "  %wv = load i32, ptr @enzyme_width\n"
    "  %dup = load i32, ptr @enzyme_dup\n"
    "  %cst = load i32, ptr @enzyme_const\n"
    "  %r = call {double, double} (ptr, ...) @__enzyme_fwddiff(ptr @dot, i32 %wv, i64 2, i32 %dup, ptr %a, ptr %da1, ptr %da2, i32 %cst, ptr %b, i32 %cst, i32 %n)\n"
    "  ret {double, double} %r\n"
    "}\n";

START_TEST(test_width) {
  int opt = _i ? 2 : 0;
  double x = 0.4, y = -1.2;
  double gx = y + cos(x), gy = x;
  pair (*dw2)(double, double) =
      (pair (*)(double, double))jit_symbol(width_ir, "dw2", opt);
  pair p = dw2(x, y);
  ck_assert_close(p.a, gx, 1e-14);
  ck_assert_close(p.b, gy, 1e-14);
  const char *four[2] = {"dw4", "dw4sret"};
  for (int k = 0; k < 2; k++) {
    void (*dw4)(double, double, double *) =
        (void (*)(double, double, double *))jit_symbol(width_ir, four[k], opt);
    double o[4] = {0};
    dw4(x, y, o);
    ck_assert_close(o[0], gx, 1e-14);
    ck_assert_close(o[1], gy, 1e-14);
    ck_assert_close(o[2], gx + gy, 1e-14);
    ck_assert_close(o[3], 2 * gx - gy, 1e-14);
  }
  pair (*ddot)(double *, double *, double *, double *, int) =
      (pair (*)(double *, double *, double *, double *, int))jit_symbol(
          width_ir, "ddot", opt);
  double a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, d1[3] = {1, 0, 0},
         d2[3] = {0, 1, 1};
  p = ddot(a, d1, d2, b, 3);
  ck_assert_close(p.a, 4.0, 1e-15);
  ck_assert_close(p.b, 11.0, 1e-15);
  close_sessions();
}
END_TEST

/* enzyme_primal_return: { primal, tangent } */
START_TEST(test_primal_return) {
  static const char ir[] = REQ_DECLS
      "declare double @exp(double)\n"
      "define double @f(double %x) {\n"
      "  %e = call double @exp(double %x)\n"
      "  %r = fmul double %e, %x\n"
      "  ret double %r\n"
      "}\n"
      "define {double, double} @df(double %x) {\n"
      "  %pr = load i32, ptr @enzyme_primal_return\n"
      "  %r = call {double, double} (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %pr, double %x, double 1.0)\n"
      "  ret {double, double} %r\n"
      "}\n";
  pair (*df)(double) = (pair (*)(double))jit_symbol(ir, "df", 0);
  pair p = df(0.5);
  ck_assert_close(p.a, 0.5 * exp(0.5), 1e-15);
  ck_assert_close(p.b, exp(0.5) * 1.5, 1e-15);
  close_sessions();
}
END_TEST

/* A by-value struct argument: the callee's writes to its copy must not
 * reach the caller's struct, in the derivative as in the primal. */
START_TEST(test_byval) {
  static const char ir[] = REQ_DECLS
      "%v3 = type { double, double, double }\n"
      "define internal double @norm2(ptr byval(%v3) align 8 %v) {\n"
      "  %a = load double, ptr %v\n"
      "  %a2 = fmul double %a, 2.0\n"
      "  store double %a2, ptr %v\n"
      "  %pb = getelementptr %v3, ptr %v, i32 0, i32 1\n"
      "  %b = load double, ptr %pb\n"
      "  %aa = fmul double %a2, %a2\n"
      "  %bb = fmul double %b, %b\n"
      "  %r = fadd double %aa, %bb\n"
      "  ret double %r\n"
      "}\n"
      "define double @g(double %x) {\n"
      "  %v = alloca %v3\n"
      "  store double %x, ptr %v\n"
      "  %pb = getelementptr %v3, ptr %v, i32 0, i32 1\n"
      "  %x2 = fmul double %x, 2.0\n"
      "  store double %x2, ptr %pb\n"
      "  %n = call double @norm2(ptr byval(%v3) align 8 %v)\n"
      "  %a = load double, ptr %v\n"
      "  %r = fadd double %n, %a\n"
      "  ret double %r\n"
      "}\n"
      "define double @dg(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n";
  double (*dg)(double) = (double (*)(double))jit_symbol(ir, "dg", 0);
  /* g = (2x)^2 + (2x)^2 + x: the caller's x is not doubled */
  ck_assert_close(dg(1.5), 16 * 1.5 + 1, 1e-14);
  close_sessions();
}
END_TEST

/* ---- calls through function pointers ---- */

START_TEST(test_function_pointers) {
  static const char ir[] = REQ_DECLS
      "define internal double @sqr(double %x) {\n"
      "  %r = fmul double %x, %x\n"
      "  ret double %r\n"
      "}\n"
      "define internal double @cube(double %x) {\n"
      "  %r = fmul double %x, %x\n"
      "  %r3 = fmul double %r, %x\n"
      "  ret double %r3\n"
      "}\n"
      "@tbl = internal constant [2 x ptr] [ptr @sqr, ptr @cube]\n"
      "define double @ap(double %x, i32 %k) {\n"
      "  %p = getelementptr [2 x ptr], ptr @tbl, i32 0, i32 %k\n"
      "  %f = load ptr, ptr %p\n"
      "  %r = call double %f(double %x)\n"
      "  %s = fadd double %r, %x\n"
      "  ret double %s\n"
      "}\n"
      "define double @dap(double %x, i32 %k) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @ap, double %x, double 1.0, i32 %k)\n"
      "  ret double %r\n"
      "}\n";
  double (*dap)(double, int) = (double (*)(double, int))jit_symbol(ir, "dap", 0);
  ck_assert_close(dap(1.5, 0), 3.0 + 1, 1e-15);
  ck_assert_close(dap(1.5, 1), 3 * 2.25 + 1, 1e-15);
  close_sessions();
}
END_TEST

/* A request inside a function that is itself differentiated. */
START_TEST(test_nested_request) {
  static const char ir[] = REQ_DECLS
      "declare double @sin(double)\n"
      "define double @f(double %x) {\n"
      "  %s = call double @sin(double %x)\n"
      "  %r = fmul double %s, %x\n"
      "  ret double %r\n"
      "}\n"
      "define double @df(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n"
      "define double @ddf(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @df, double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n";
  double (*ddf)(double) = (double (*)(double))jit_symbol(ir, "ddf", 0);
  double x = 0.8; /* (x sin x)'' = 2 cos x - x sin x */
  ck_assert_close(ddf(x), 2 * cos(x) - x * sin(x), 1e-14);
  close_sessions();
}
END_TEST

/* "enzyme_math" names the rule, whatever the symbol is called. */
START_TEST(test_enzyme_math_attribute) {
  static const char ir[] = REQ_DECLS
      "declare double @\"ejlstr$cos$libm.so.6\"(double) \"enzyme_math\"=\"cos\"\n"
      "define double @f(double %x) {\n"
      "  %r = call double @\"ejlstr$cos$libm.so.6\"(double %x)\n"
      "  ret double %r\n"
      "}\n"
      "define double @df(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n";
  tanjit_error *err = engine_error(ir);
  ck_assert_msg(err == NULL, "%s", err ? tanjit_error_message(err) : "");
}
END_TEST

/* ---- helpers next to calls ---- */

START_TEST(test_helpers) {
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("h", c);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef vt = LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0);
  const char *callees[3] = {"ejlstr$cuMemFree$libcuda.so.1", "free",
                            "ejlstr$f$/opt/a$b/lib.so"};
  const char *want[3] = {"ejlstr$myhelper$libcuda.so.1", "myhelper",
                         "ejlstr$myhelper$/opt/a$b/lib.so"};
  LLVMValueRef host = LLVMAddFunction(m, "host", vt);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, host, "e"));
  for (int k = 0; k < 3; k++) {
    LLVMValueRef callee = LLVMAddFunction(m, callees[k], vt);
    LLVMSetFunctionCallConv(callee, LLVMFastCallConv);
    LLVMValueRef arg = LLVMGetParam(host, 0);
    LLVMValueRef call = LLVMBuildCall2(b, vt, callee, &arg, 1, "");
    LLVMSetInstructionCallConv(call, LLVMFastCallConv);
    /* src/ad/ir/ir.h is private; the helper is reached through its symbol */
    extern LLVMValueRef ad_get_or_insert_helper(LLVMModuleRef, LLVMValueRef,
                                                const char *, LLVMTypeRef);
    LLVMValueRef h = ad_get_or_insert_helper(m, call, "myhelper", vt);
    size_t n;
    ck_assert_str_eq(LLVMGetValueName2(h, &n), want[k]);
    ck_assert_int_eq(LLVMGetFunctionCallConv(h), LLVMFastCallConv);
    LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
        h, LLVMAttributeFunctionIndex, "enzyme_math", 11);
    if (k == 1) {
      ck_assert_ptr_null(a);
    } else {
      unsigned len;
      ck_assert_ptr_nonnull(a);
      const char *v = LLVMGetStringAttributeValue(a, &len);
      ck_assert_int_eq(len, 8);
      ck_assert(memcmp(v, "myhelper", 8) == 0);
    }
    /* a second request finds the same declaration */
    ck_assert_ptr_eq(ad_get_or_insert_helper(m, call, "myhelper", vt), h);
    LLVMDeleteFunction(h);
  }
  LLVMDisposeBuilder(b);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
}
END_TEST

/* ---- errors ---- */

static void expect_error(const char *ir, tanjit_error_code code,
                         const char *const *parts) {
  tanjit_error *err = engine_error(ir);
  ck_assert_msg(err != NULL, "no error for\n%s", ir);
  const char *msg = tanjit_error_message(err);
  ck_assert_int_eq(tanjit_error_get_code(err), code);
  for (; *parts; parts++)
    ck_assert_msg(strstr(msg, *parts), "'%s' not in: %s", *parts, msg);
  tanjit_error_free(err);
}

/* `or disjoint` of a float's bits with another float's sign bit, the
 * magnitude not known to be non-negative (clang -ffast-math drops a fabs it
 * knows is redundant): where the sign is set the magnitude's is clear, or
 * the result is poison, so the value is a flipsign, also where the
 * magnitude is negative and the sign is not. */
START_TEST(test_signbits_or_disjoint) {
  static const char ir[] = REQ_DECLS
      "define double @f(double %x, double %y) {\n"
      "  %xb = bitcast double %x to i64\n"
      "  %yb = bitcast double %y to i64\n"
      "  %s = and i64 %yb, -9223372036854775808\n"
      "  %o = or disjoint i64 %xb, %s\n"
      "  %r = bitcast i64 %o to double\n"
      "  ret double %r\n}\n"
      "define double @df(double %x, double %y) {\n"
      "  %c = load i32, ptr @enzyme_const\n"
      "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, "
      "double 1.0, i32 %c, double %y)\n  ret double %d\n}\n";
  typedef double (*fn2)(double, double);
  for (int opt = 0; opt <= 2; opt += 2) {
    fn2 f = (fn2)(uintptr_t)jit_symbol(ir, "f", opt);
    fn2 df = (fn2)(uintptr_t)jit_symbol(ir, "df", opt);
    ck_assert_double_eq(f(-2.0, 3.0), -2.0); /* the primal unchanged */
    ck_assert_double_eq(df(-2.0, 3.0), 1.0);
    ck_assert_double_eq(df(2.0, -3.0), -1.0);
  }
}
END_TEST

START_TEST(test_error_no_rule) {
  static const char ir[] = REQ_DECLS
      "declare double @mystery(double)\n"
      "define double @f(double %x) !dbg !5 {\n"
      "  %r = call double @mystery(double %x), !dbg !8\n"
      "  ret double %r, !dbg !8\n"
      "}\n"
      "define double @df(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n"
      "!llvm.module.flags = !{!0}\n"
      "!llvm.dbg.cu = !{!1}\n"
      "!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
      "!1 = distinct !DICompileUnit(language: DW_LANG_C99, file: !2, producer: \"t\", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)\n"
      "!2 = !DIFile(filename: \"prog.c\", directory: \"/tmp\")\n"
      "!5 = distinct !DISubprogram(name: \"f\", scope: !2, file: !2, line: 40, type: !6, spFlags: DISPFlagDefinition, unit: !1)\n"
      "!6 = !DISubroutineType(types: !7)\n"
      "!7 = !{}\n"
      "!8 = !DILocation(line: 42, column: 3, scope: !5)\n";
  const char *parts[] = {"no forward-mode derivative for call to mystery",
                         " in f", "prog.c:42", NULL};
  expect_error(ir, TANJIT_ERR_DIFFERENTIATE, parts);
}
END_TEST

/* Split reverse mode is refused; so are, in reverse mode, the constructs
 * it does not differentiate (each named, with the function). */
START_TEST(test_error_reverse_mode) {
  static const char split[] =
      "declare ptr @__enzyme_augmentfwd(ptr, ...)\n"
      "define double @f(double %x) {\n"
      "  ret double %x\n"
      "}\n"
      "define ptr @g(double %x) {\n"
      "  %r = call ptr (ptr, ...) @__enzyme_augmentfwd(ptr @f, double %x)\n"
      "  ret ptr %r\n"
      "}\n";
  /* split mode's augmented pass returns {tape, result}: not a bare ptr */
  const char *split_parts[] = {"__enzyme_augmentfwd of f returns the tape, "
                               "then the result as { ptr, double }",
                               "declared to return ptr", " in g", NULL};
  expect_error(split, TANJIT_ERR_DIFFERENTIATE, split_parts);
  static const char indirect[] =
      "declare double @__enzyme_autodiff(ptr, ...)\n"
      "define double @f(ptr %h, double %x) {\n"
      "  %r = call double %h(double %x)\n"
      "  ret double %r\n"
      "}\n"
      "define double @g(ptr %h, double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %h, ptr %h, double %x)\n"
      "  ret double %r\n"
      "}\n";
  const char *indirect_parts[] = {"reverse mode: an indirect call", " in f",
                                  NULL};
  expect_error(indirect, TANJIT_ERR_UNSUPPORTED, indirect_parts);
  static const char width[] =
      "@enzyme_width = external global i32\n"
      "declare double @__enzyme_autodiff(ptr, ...)\n"
      "declare ptr @malloc(i64)\n"
      "declare void @free(ptr)\n"
      "define double @f(ptr %x) {\n"
      "  %t = call ptr @malloc(i64 8)\n"
      "  store ptr %x, ptr %t\n"
      "  %p = load ptr, ptr %t\n"
      "  %v = load double, ptr %p\n"
      "  %m = fmul double %v, %v\n"
      "  store double %m, ptr %p\n"
      "  call void @free(ptr %t)\n"
      "  ret double %v\n"
      "}\n"
      "define double @g(ptr %x, ptr %d1, ptr %d2) {\n"
      "  %w = load i32, ptr @enzyme_width\n"
      "  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %w, i32 2, ptr %x, ptr %d1, ptr %d2)\n"
      "  ret double %r\n"
      "}\n";
  /* vector reverse mode: refused for a function whose lanes can share no
   * augmented pass (it keeps its caller's shadow in a shadow block, which
   * would hold lane 0's for every lane) and that writes its caller's
   * memory through a pointer read from memory (so a gradient per lane,
   * its writes through its arguments undone between lanes, is not exact
   * either) */
  const char *width_parts[] = {
      "enzyme_width 2 of f: the lanes cannot share one augmented pass (its "
      "augmented pass stores a shadow pointer into memory)",
      "running f once per lane is exact only",
      "stores to memory it did not allocate, through a pointer not computed "
      "from its arguments", " in f", NULL};
  expect_error(width, TANJIT_ERR_UNSUPPORTED, width_parts);
  static const char atomic[] =
      "declare double @__enzyme_autodiff(ptr, ...)\n"
      "define double @f(ptr %x) {\n"
      "  %v = atomicrmw xchg ptr %x, double 1.0 seq_cst\n"
      "  ret double %v\n"
      "}\n"
      "define double @g(ptr %x, ptr %dx) {\n"
      "  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)\n"
      "  ret double %r\n"
      "}\n";
  /* fadd and fsub have a reverse (tests/rev/atomic_add.c); xchg not */
  const char *atomic_parts[] = {"atomic read-modify-write", "atomicrmw xchg",
                                " in f", NULL};
  expect_error(atomic, TANJIT_ERR_UNSUPPORTED, atomic_parts);
}
END_TEST

#define SIMPLE_F                                                               \
  "define double @f(double %x, double %y) {\n"                                 \
  "  %r = fmul double %x, %y\n"                                                \
  "  ret double %r\n"                                                          \
  "}\n"

START_TEST(test_error_malformed) {
  static const struct {
    const char *call;
    const char *part;
  } cases[] = {
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)",
       "too few arguments"},
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr %p, double %x, double 1.0)",
       "must be a function"},
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0, i32 %dup)",
       "marker with no value"},
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %p, ptr %p, double %x, double 1.0)",
       "has type ptr, expected double"},
      /* a marker where a value belongs: named as one, not by its type */
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr @f, metadata !\"enzyme_dup\", metadata !\"enzyme_const\", double %x, double 1.0, double %x)",
       "__enzyme_fwddiff of f: argument 3 is the marker enzyme_const where "
       "parameter 1's value (double) was expected"},
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0, double %x, double 1.0, double 2.0)",
       "too many arguments"},
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %w, i64 0, double %x, double 1.0, double %x, double 1.0)",
       "enzyme_width 0"},
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, i32 %dup, double %x, double 1.0)",
       "is a marker"},
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %w, i64 -1, double %x, double 1.0)",
       "enzyme_width -1 is out of range"},
      /* 2^64 + 2: its low 64 bits alone read as 2 */
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %w, i128 18446744073709551618, double %x, double 1.0, double 2.0)",
       "enzyme_width 18446744073709551618 is out of range"},
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr @f, metadata !\"enzyme_dupp\", double %x, double 1.0)",
       "unknown marker enzyme_dupp at argument 1"},
      {"call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %w, i64 2, double %x, double 1.0, double 2.0, double %x, double 0.0, double 0.0)",
       "returns [2 x double] (one tangent per direction of enzyme_width 2), "
       "but the call is declared to return double"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char ir[4096];
    snprintf(ir, sizeof ir,
             "%s%s"
             "define double @caller(double %%x, ptr %%p) {\n"
             "  %%dup = load i32, ptr @enzyme_dup\n"
             "  %%w = load i32, ptr @enzyme_width\n"
             "  %%r = %s\n"
             "  ret double %%r\n"
             "}\n",
             REQ_DECLS, SIMPLE_F, cases[i].call);
    const char *parts[] = {cases[i].part, " in caller", NULL};
    expect_error(ir, TANJIT_ERR_DIFFERENTIATE, parts);
  }
  /* __enzyme_augmentsize with the markers alone: one per parameter at most */
  static const char size_ir[] =
      REQ_DECLS SIMPLE_F "declare i64 @__enzyme_augmentsize(ptr, ...)\n"
      "define i64 @caller() {\n"
      "  %dup = load i32, ptr @enzyme_dup\n"
      "  %n = call i64 (ptr, ...) @__enzyme_augmentsize(ptr @f, i32 %dup, i32 %dup, i32 %dup)\n"
      "  ret i64 %n\n}\n";
  const char *size_parts[] = {
      "__enzyme_augmentsize of f: 3 activity markers, but f takes 2 parameters",
      " in caller", NULL};
  expect_error(size_ir, TANJIT_ERR_DIFFERENTIATE, size_parts);
}
END_TEST

/* A function requesting its own derivative: where nothing the request is
 * given carries a tangent in the derivative, the request cloned into the
 * derivative is the derivative's own (it used to stay undifferentiated:
 * "unresolved external __enzyme_fwddiff"); with active arguments its
 * tangent would need derivatives without end, a clear error. */
START_TEST(test_request_for_own_derivative) {
  static const char ir[] = REQ_DECLS
      "define double @g(double %x, i32 %depth) {\n"
      "  %top = icmp eq i32 %depth, 0\n"
      "  br i1 %top, label %inner, label %leaf\n"
      "inner:\n" /* g'(3) at depth 1: 6 */
      "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double 3.0, double 1.0, i32 1)\n"
      "  %y = fmul double %x, %x\n"
      "  %r = fmul double %y, %d\n"
      "  ret double %r\n"
      "leaf:\n"
      "  %s = fmul double %x, %x\n"
      "  ret double %s\n"
      "}\n"
      "define double @dg(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %x, double 1.0, i32 0)\n"
      "  ret double %r\n"
      "}\n";
  for (int opt = 0; opt <= 2; opt += 2) {
    double (*g)(double, int) = (double (*)(double, int))jit_symbol(ir, "g", opt);
    double (*dg)(double) = (double (*)(double))jit_symbol(ir, "dg", opt);
    ck_assert_close(g(2.0, 0), 24.0, 1e-15); /* 6 x^2 */
    ck_assert_close(dg(2.0), 24.0, 1e-15);   /* 12 x */
  }
  close_sessions();
  static const char active[] = REQ_DECLS
      "define double @h(double %x) {\n"
      "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @h, double %x, double 1.0)\n"
      "  ret double %d\n"
      "}\n";
  const char *parts[] = {"__enzyme_fwddiff of h inside h", "active arguments",
                         NULL};
  expect_error(active, TANJIT_ERR_DIFFERENTIATE, parts);
}
END_TEST

START_TEST(test_error_unknown_instruction) {
  static const char ir[] = REQ_DECLS
      "define double @f(double %x) {\n"
      "entry:\n"
      "  indirectbr ptr blockaddress(@f, %next), [label %next]\n"
      "next:\n"
      "  ret double %x\n"
      "}\n"
      "define double @df(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n";
  const char *parts[] = {"no forward-mode rule for instruction", "indirectbr",
                         " in f", NULL};
  expect_error(ir, TANJIT_ERR_DIFFERENTIATE, parts);
}
END_TEST

/* An indirect call none of whose possible targets can be differentiated:
 * one error naming the call and the first target's reason. */
START_TEST(test_error_indirect_no_target_differentiable) {
  static const char ir[] = REQ_DECLS
      "declare double @opaque(double)\n"
      "define double @g(double %x) {\n"
      "  %r = call double @opaque(double %x)\n"
      "  ret double %r\n"
      "}\n"
      "@table = global ptr @g\n"
      "define double @f(ptr %fp, double %x) {\n"
      "  %r = call double %fp(double %x)\n"
      "  ret double %r\n"
      "}\n"
      "define double @df(double %x) {\n"
      "  %fp = load ptr, ptr @table\n"
      "  %c = load i32, ptr @enzyme_const\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %c, ptr %fp, "
      "double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n";
  const char *parts[] = {"indirect call with active arguments",
                         "none of its possible targets",
                         "the first: no forward-mode derivative for call to opaque",
                         NULL};
  expect_error(ir, TANJIT_ERR_DIFFERENTIATE, parts);
}
END_TEST

START_TEST(test_error_mutable_global) {
  static const char ir[] = REQ_DECLS
      "@g = external global double\n"
      "define double @f(double %x) {\n"
      "  store double %x, ptr @g\n"
      "  %v = load double, ptr @g\n"
      "  ret double %v\n"
      "}\n"
      "define double @df(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n";
  const char *parts[] = {"global @g", " in f", NULL};
  expect_error(ir, TANJIT_ERR_DIFFERENTIATE, parts);
}
END_TEST

/* The engine's error reaches the caller of tanjit_lookup. */
START_TEST(test_error_through_session) {
  static const char ir[] = REQ_DECLS
      "declare double @mystery(double)\n"
      "define double @f(double %x) {\n"
      "  %r = call double @mystery(double %x)\n"
      "  ret double %r\n"
      "}\n"
      "define double @df(double %x) {\n"
      "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)\n"
      "  ret double %r\n"
      "}\n";
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(NULL, &err);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(tanjit_load_memory(s, ir, strlen(ir), "e.ll", &err), 0);
  ck_assert_ptr_null(tanjit_lookup(s, "df", &err));
  ck_assert_ptr_nonnull(err);
  ck_assert_msg(strstr(tanjit_error_message(err), "mystery"), "%s",
                tanjit_error_message(err));
  tanjit_error_free(err);
  tanjit_session_free(s);
}
END_TEST

/* ---- long call chains (issue 10) ---- */

/* IR of a chain of n noinline functions with one request on the first.
 * through_arguments: f_i(x) = f_{i+1}(x) + x, the last x*x, so
 * d/dx f_0 = 2x + n - 1.  Otherwise the tangent travels through a global
 * only: h(x) stores x into @g and calls f_0(), f_i() = f_{i+1}() + 1, the
 * last loads g and squares it, so d/dx h = 2x, and no call of the chain has
 * an active argument.  Caller frees. */
static char *call_chain_ir(int n, int through_arguments) {
  size_t cap = (size_t)n * 160 + 1024, len = 0;
  char *ir = malloc(cap);
  ck_assert_ptr_nonnull(ir);
#define EMIT(...) len += (size_t)snprintf(ir + len, cap - len, __VA_ARGS__)
  EMIT("declare double @__enzyme_fwddiff(ptr, ...)\n@g = global double 0.0\n");
  for (int i = 0; i + 1 < n; i++)
    if (through_arguments)
      EMIT("define double @f%d(double %%x) noinline {\n"
           "  %%y = call double @f%d(double %%x)\n"
           "  %%r = fadd double %%y, %%x\n  ret double %%r\n}\n", i, i + 1);
    else
      EMIT("define double @f%d() noinline {\n  %%y = call double @f%d()\n"
           "  %%r = fadd double %%y, 1.0\n  ret double %%r\n}\n", i, i + 1);
  if (through_arguments)
    EMIT("define double @f%d(double %%x) noinline {\n"
         "  %%r = fmul double %%x, %%x\n  ret double %%r\n}\n"
         "define double @h(double %%x) {\n"
         "  %%r = call double @f0(double %%x)\n  ret double %%r\n}\n", n - 1);
  else
    EMIT("define double @f%d() noinline {\n  %%v = load double, ptr @g\n"
         "  %%r = fmul double %%v, %%v\n  ret double %%r\n}\n"
         "define double @h(double %%x) {\n  store double %%x, ptr @g\n"
         "  %%r = call double @f0()\n  ret double %%r\n}\n", n - 1);
  EMIT("define double @dh(double %%x) {\n"
       "  %%r = call double (ptr, ...) @__enzyme_fwddiff(ptr @h, double %%x, "
       "double 1.0)\n  ret double %%r\n}\n");
#undef EMIT
  ck_assert_uint_lt(len, cap);
  return ir;
}

/* Runs fn(arg) on a thread with a 512 KiB stack: the engine once built
 * each derivative inside its caller's, a stack frame set per callee. */
static void on_small_stack(void *(*fn)(void *), void *arg) {
  pthread_attr_t attr;
  pthread_t t;
  ck_assert_int_eq(pthread_attr_init(&attr), 0);
  ck_assert_int_eq(pthread_attr_setstacksize(&attr, 512 * 1024), 0);
  ck_assert_int_eq(pthread_create(&t, &attr, fn, arg), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  pthread_attr_destroy(&attr);
}

typedef struct chain_job {
  const char *ir;
  LLVMModuleRef m; /* engine only: the module to transform */
  double x, derivative;
  char why[512];
} chain_job;

static void *differentiate_chain(void *arg) {
  chain_job *job = arg;
  tanjit_options o;
  tanjit_options_init(&o);
  o.opt_level = 0;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  double (*dh)(double) = NULL;
  if (s && tanjit_load_memory(s, job->ir, strlen(job->ir), "chain.ll", &err) == 0)
    dh = (double (*)(double))tanjit_lookup(s, "dh", &err);
  if (dh)
    job->derivative = dh(job->x);
  else
    snprintf(job->why, sizeof job->why, "%s",
             err ? tanjit_error_message(err) : "no session");
  tanjit_error_free(err);
  tanjit_session_free(s);
  return NULL;
}

/* A chain of 2,000 calls differentiates on a small stack, through
 * arguments, and through a global used 2,000 calls down (a walk of the
 * call graph once stopped at depth 200 there: derivative 0). */
START_TEST(test_long_call_chain) {
  enum { N = 2000 };
  int through_arguments = _i == 0;
  char *ir = call_chain_ir(N, through_arguments);
  chain_job job = {ir, NULL, 1.5, NAN, ""};
  on_small_stack(differentiate_chain, &job);
  free(ir);
  ck_assert_msg(!job.why[0], "chain of %d: %s", N, job.why);
  ck_assert_close(job.derivative, through_arguments ? 2 * 1.5 + N - 1 : 2 * 1.5,
                  1e-12);
}
END_TEST

static void *transform_chain(void *arg) {
  chain_job *job = arg;
  ad_engine *e = ad_engine_new();
  tanjit_error *err = NULL;
  if (!e || ad_transform_module(e, job->m, &err) != 0)
    snprintf(job->why, sizeof job->why, "%s",
             err ? tanjit_error_message(err) : "no engine");
  tanjit_error_free(err);
  ad_engine_free(e);
  return NULL;
}

/* 20,000 calls through the engine alone (compiling them would measure
 * LLVM's code generator), on a small stack and in linear time: each
 * derivative once analyzed the rest of the chain, quadratic in all (4,000
 * took 83 s).  Every function of the chain gets one derivative, and the
 * result verifies. */
START_TEST(test_long_call_chain_engine) {
  enum { N = 20000 };
  char *ir = call_chain_ir(N, _i == 0);
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "chain.ll");
  free(ir);
  chain_job job = {NULL, NULL, 0, 0, ""};
  char *msg = NULL;
  ck_assert_msg(LLVMParseIRInContext(ctx, buf, &job.m, &msg) == 0, "parse: %s",
                msg);
  on_small_stack(transform_chain, &job);
  ck_assert_msg(!job.why[0], "chain of %d: %s", N, job.why);
  ck_assert_int_eq(LLVMVerifyModule(job.m, LLVMReturnStatusAction, &msg), 0);
  LLVMDisposeMessage(msg);
  int derivatives = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(job.m); f;
       f = LLVMGetNextFunction(f)) {
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    derivatives += n > 9 && memcmp(name, "fwddiffef", 9) == 0;
  }
  ck_assert_int_eq(derivatives, N);
  LLVMDisposeModule(job.m);
  LLVMContextDispose(ctx);
}
END_TEST

Suite *math_suite(void); /* test_math.c */

static Suite *engine_suite(void) {
  Suite *s = suite_create("ad");
  TCase *t = tcase_create("instructions");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, test_arith, 0, 2);
  tcase_add_loop_test(t, test_types, 0, 2);
  tcase_add_loop_test(t, test_control_flow, 0, 2);
  tcase_add_loop_test(t, test_aggregates_vectors, 0, 2);
  tcase_add_loop_test(t, test_vector_reductions, 0, 2);
  suite_add_tcase(s, t);
  t = tcase_create("memory");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, test_memory, 0, 2);
  tcase_add_test(t, test_constant_global_shadow);
  tcase_add_test(t, test_mutable_global_shadow);
  tcase_add_test(t, test_global_shadows_by_identity);
  tcase_add_test(t, test_out_pointer_math);
  tcase_add_test(t, test_pair_intrinsics);
  suite_add_tcase(s, t);
  t = tcase_create("requests");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, test_width, 0, 2);
  tcase_add_test(t, test_primal_return);
  tcase_add_test(t, test_function_pointers);
  tcase_add_test(t, test_byval);
  tcase_add_test(t, test_nested_request);
  tcase_add_test(t, test_enzyme_math_attribute);
  tcase_add_test(t, test_helpers);
  suite_add_tcase(s, t);
  t = tcase_create("call chains");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, test_long_call_chain, 0, 2);
  tcase_add_loop_test(t, test_long_call_chain_engine, 0, 2);
  suite_add_tcase(s, t);
  t = tcase_create("errors");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_error_no_rule);
  tcase_add_test(t, test_signbits_or_disjoint);
  tcase_add_test(t, test_error_reverse_mode);
  tcase_add_test(t, test_error_malformed);
  tcase_add_test(t, test_request_for_own_derivative);
  tcase_add_test(t, test_error_unknown_instruction);
  tcase_add_test(t, test_error_mutable_global);
  tcase_add_test(t, test_error_indirect_no_target_differentiable);
  tcase_add_test(t, test_error_through_session);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(engine_suite());
  srunner_add_suite(sr, math_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
