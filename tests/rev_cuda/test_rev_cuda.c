/*
 * Reverse mode through a Julia-style module (julia_driver_rev.ll): every
 * CUDA call a renamed ccall `ejlstr$<fn>$libcuda.so.1`, libm through a
 * renamed ccall and a jlplt GOT, Julia's GC allocation and preserve
 * markers.  Checks that
 *   - the gradients agree with the analytic ones (the module's main), with
 *     the simulator strict (CUDASIM_DEFER_ASYNC=1 from meson.build: async
 *     work runs only at a synchronization);
 *   - every device allocation the gradient makes is freed and no CUDA call
 *     fails (the simulator's counters, read through the very library the
 *     session loaded RTLD_LOCAL);
 *   - the reverse's helpers are declared under the library's rename with
 *     their "enzyme_math" tag and the size types of the calls they
 *     accompany, and resolve from that library only: nothing in this
 *     process defines the plain CUDA names;
 *   - memory calls without a current context fail as on a GPU.
 */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "cudasim.h"
#include "tanjit/tanjit.h"
#include "../common/cudasim_session.h"

static void module_path(char *buf, size_t n) {
  snprintf(buf, n, "%s/julia_driver_rev.ll", cs_env("REV_CUDA_SRC"));
}

static void run_module(int opt) {
  char path[4096];
  module_path(path, sizeof path);
  tanjit_session *s = cs_simulator_session(opt);
  tanjit_error *err = NULL;
  /* the stand-in for Julia's runtime: julia.gc_alloc_obj, get_pgcstack */
  ck_assert_msg(tanjit_add_library(s, cs_env("JULIA_STUB"), &err) == 0, "%s",
                tanjit_error_message(err));
  ck_assert_msg(tanjit_load_file(s, path, &err) == 0, "load: %s",
                tanjit_error_message(err));
  int (*entry)(void) = (int (*)(void))tanjit_lookup(s, "main", &err);
  ck_assert_msg(entry, "%s", err ? tanjit_error_message(err) : "?");
  struct cudasim_counters before, after;
  cs_read_counters(&before);
  int rc = entry();
  cs_read_counters(&after);
  tanjit_session_free(s);
  ck_assert_msg(rc == 0, "-O%d: %d gradient mismatches (see output)", opt, rc);
  ck_assert_msg(after.errors == before.errors, "%llu CUDA calls failed",
                after.errors - before.errors);
  /* two gradients, each: 2 primal and 2 shadow allocations, all freed */
  ck_assert_uint_eq(after.allocs - before.allocs, 8);
  ck_assert_uint_eq(after.frees - before.frees, 8);
  ck_assert_uint_eq(after.live_allocations, before.live_allocations);
}

START_TEST(julia_module_gradient_O2) { run_module(2); }
END_TEST

START_TEST(julia_module_gradient_O0) { run_module(0); }
END_TEST

/* The definition of function `name` (e.g. "@diffef(") in ir, or NULL. */
static const char *definition(const char *ir, const char *name) {
  for (const char *d = strstr(ir, "\ndefine "); d; d = strstr(d + 1, "\ndefine ")) {
    const char *eol = strchr(d + 1, '\n');
    const char *n = strstr(d, name);
    if (n && eol && n < eol)
      return d + 1;
  }
  return NULL;
}

/* The declaration of helper `fn` renamed into libcuda.so.1, or NULL. */
static const char *declaration(const char *ir, const char *fn, char *buf,
                               size_t n) {
  snprintf(buf, n, "declare i32 @\"ejlstr$%s$libcuda.so.1\"(", fn);
  return strstr(ir, buf);
}

START_TEST(helpers_are_renamed_and_local) {
  char path[4096];
  module_path(path, sizeof path);
  tanjit_session *s = cs_simulator_session(0);
  tanjit_error *err = NULL;
  ck_assert_msg(tanjit_add_library(s, cs_env("JULIA_STUB"), &err) == 0, "%s",
                tanjit_error_message(err));
  char *ir = tanjit_emit_file(s, path, &err);
  ck_assert_msg(ir, "emit: %s", err ? tanjit_error_message(err) : "?");
  const char *rev = definition(ir, "@diffejulia_loss_12(");
  ck_assert_msg(rev, "no reverse function of julia_loss_12 in:\n%s", ir);
  /* helper: its parameter list as the call it accompanies has it */
  static const struct {
    const char *fn, *params;
  } helpers[] = {
      {"cuMemcpyDtoH_v2", "ptr, i64, i64)"},      /* scratch reads */
      {"cuMemcpyHtoD_v2", "i64, ptr, i64)"},      /* accumulated back */
      {"cuMemcpyDtoHAsync_v2", "ptr, i64, i64, ptr)"},
      {"cuMemsetD8_v2", "i64, i8, i64)"},         /* zeroing */
      {"cuMemsetD8", "i64, i8, i32)"},            /* the 32-bit cuMemAlloc's */
      {"cuMemsetD8Async", "i64, i8, i64, ptr)"},
      {"cuStreamSynchronize", "ptr)"},
      {"cuMemFree", "i64)"},                      /* the 32-bit one's shadow */
  };
  char buf[256];
  for (size_t i = 0; i < sizeof helpers / sizeof *helpers; i++) {
    const char *d = declaration(ir, helpers[i].fn, buf, sizeof buf);
    ck_assert_msg(d, "no declaration of ejlstr$%s$libcuda.so.1", helpers[i].fn);
    ck_assert_msg(strncmp(d + strlen(buf), helpers[i].params,
                          strlen(helpers[i].params)) == 0,
                  "%s declared as %.80s", helpers[i].fn, d);
    snprintf(buf, sizeof buf, "\"enzyme_math\"=\"%s\"", helpers[i].fn);
    ck_assert_msg(strstr(ir, buf), "no %s attribute", buf);
    snprintf(buf, sizeof buf, "@%s(", helpers[i].fn);
    ck_assert_msg(!strstr(ir, buf), "a plain declaration %s", buf);
  }
  tanjit_free(ir);
  tanjit_session_free(s);
  /* the names resolve from the library loaded RTLD_LOCAL only */
  ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "cuMemcpyDtoH_v2"));
  ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "cuMemsetD8"));
}
END_TEST

/* Renamed ccalls under a calling convention other than C's (Julia's
 * fastcc ccalls): the reverse's helpers are declared and called under the
 * convention of the call they accompany, and the gradient is right. */
static const char fastcc_module[] =
    "declare fastcc i32 @\"ejlstr$cuMemAlloc_v2$libcuda.so.1\"(ptr, i64) #0\n"
    "declare fastcc i32 @\"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1\"(i64, ptr, i64) #1\n"
    "declare fastcc i32 @\"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1\"(ptr, i64, i64) #2\n"
    "declare fastcc i32 @\"ejlstr$cuMemFree_v2$libcuda.so.1\"(i64) #3\n"
    "declare double @__enzyme_autodiff(...)\n"
    "define double @f(ptr %x) {\n"
    "  %slot = alloca i64, align 8\n"
    "  %y = alloca [2 x double], align 8\n"
    "  %r0 = call fastcc i32 @\"ejlstr$cuMemAlloc_v2$libcuda.so.1\"(ptr %slot, i64 16)\n"
    "  %d = load i64, ptr %slot, align 8\n"
    "  %r1 = call fastcc i32 @\"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1\"(i64 %d, ptr %x, i64 16)\n"
    "  %r2 = call fastcc i32 @\"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1\"(ptr %y, i64 %d, i64 16)\n"
    "  %r3 = call fastcc i32 @\"ejlstr$cuMemFree_v2$libcuda.so.1\"(i64 %d)\n"
    "  %a = load double, ptr %y, align 8\n"
    "  %p1 = getelementptr inbounds double, ptr %y, i64 1\n"
    "  %b = load double, ptr %p1, align 8\n"
    "  %ab = fmul double %a, %b\n"
    "  %s = fmul double %ab, %a\n"
    "  ret double %s\n}\n"
    "define void @g(ptr %x, ptr %dx) {\n"
    "  %r = call double (...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)\n"
    "  ret void\n}\n"
    "attributes #0 = { \"enzyme_math\"=\"cuMemAlloc_v2\" }\n"
    "attributes #1 = { \"enzyme_math\"=\"cuMemcpyHtoD_v2\" }\n"
    "attributes #2 = { \"enzyme_math\"=\"cuMemcpyDtoH_v2\" }\n"
    "attributes #3 = { \"enzyme_math\"=\"cuMemFree_v2\" }\n";

START_TEST(helpers_follow_the_calling_convention) {
  tanjit_session *s = cs_simulator_session(0);
  tanjit_error *err = NULL;
  char *ir = tanjit_emit_memory(s, fastcc_module, strlen(fastcc_module),
                                "fastcc.ll", &err);
  ck_assert_msg(ir, "emit: %s", err ? tanjit_error_message(err) : "?");
  const char *rev = definition(ir, "@diffef(");
  ck_assert_msg(rev, "no reverse function of f in:\n%s", ir);
  const char *end = strstr(rev, "\n}\n");
  ck_assert_ptr_nonnull(end);
  int renamed = 0;
  for (const char *c = strstr(rev, "call "); c && c < end;
       c = strstr(c + 1, "call ")) {
    const char *eol = strchr(c, '\n');
    const char *q = strstr(c, "@\"ejlstr$");
    if (!q || q > eol)
      continue;
    renamed++;
    ck_assert_msg(strncmp(c, "call fastcc ", 12) == 0, "not fastcc: %.*s",
                  (int)(eol - c), c);
  }
  /* the scratch read, the memset, the write back and the shadow's free */
  ck_assert_int_ge(renamed, 4);
  static const char *const decls[] = {
      "declare fastcc i32 @\"ejlstr$cuMemsetD8_v2$libcuda.so.1\"",
      "declare fastcc i32 @\"ejlstr$cuMemcpyDtoH_v2$libcuda.so.1\"",
      "declare fastcc i32 @\"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1\"",
      "declare fastcc i32 @\"ejlstr$cuMemFree_v2$libcuda.so.1\"",
  };
  for (size_t i = 0; i < sizeof decls / sizeof *decls; i++)
    ck_assert_msg(strstr(ir, decls[i]), "missing: %s", decls[i]);
  tanjit_free(ir);
  /* and it runs: f = x0^2 x1, grad (2 x0 x1, x0^2) added to dx */
  ck_assert_msg(tanjit_load_memory(s, fastcc_module, strlen(fastcc_module),
                                   "fastcc.ll", &err) == 0,
                "load: %s", tanjit_error_message(err));
  void (*g)(double *, double *) =
      (void (*)(double *, double *))tanjit_lookup(s, "g", &err);
  ck_assert_msg(g, "%s", err ? tanjit_error_message(err) : "?");
  /* the session's own library: a context current in this thread */
  void *h = cs_driver_library();
  CUresult (*init)(unsigned) = (CUresult(*)(unsigned))dlsym(h, "cuInit");
  CUresult (*retain)(CUcontext *, CUdevice) =
      (CUresult(*)(CUcontext *, CUdevice))dlsym(h, "cuDevicePrimaryCtxRetain");
  CUresult (*set)(CUcontext) = (CUresult(*)(CUcontext))dlsym(h, "cuCtxSetCurrent");
  CUcontext ctx;
  ck_assert(init && retain && set);
  ck_assert_int_eq(init(0), CUDA_SUCCESS);
  ck_assert_int_eq(retain(&ctx, 0), CUDA_SUCCESS);
  ck_assert_int_eq(set(ctx), CUDA_SUCCESS);
  double x[2] = {1.5, -2.0}, dx[2] = {0.25, 0.5};
  g(x, dx);
  ck_assert_double_eq_tol(dx[0], 0.25 + 2 * 1.5 * -2.0, 1e-12);
  ck_assert_double_eq_tol(dx[1], 0.5 + 1.5 * 1.5, 1e-12);
  dlclose(h);
  tanjit_session_free(s);
}
END_TEST

/* Without a current context a memory call fails, as on a GPU: a reverse
 * that ran its copies in no context would trap rather than compute
 * nothing. */
START_TEST(memory_calls_need_a_context) {
  void *h = cs_driver_library();
  CUresult (*init)(unsigned) = (CUresult(*)(unsigned))dlsym(h, "cuInit");
  CUresult (*set)(CUcontext) = (CUresult(*)(CUcontext))dlsym(h, "cuCtxSetCurrent");
  CUresult (*alloc)(CUdeviceptr *, size_t) =
      (CUresult(*)(CUdeviceptr *, size_t))dlsym(h, "cuMemAlloc_v2");
  CUresult (*memset8)(CUdeviceptr, unsigned char, size_t) =
      (CUresult(*)(CUdeviceptr, unsigned char, size_t))dlsym(h, "cuMemsetD8_v2");
  ck_assert(init && set && alloc && memset8);
  ck_assert_int_eq(init(0), CUDA_SUCCESS);
  ck_assert_int_eq(set(NULL), CUDA_SUCCESS);
  CUdeviceptr d = 0;
  ck_assert_int_eq(alloc(&d, 64), CUDA_ERROR_INVALID_CONTEXT);
  ck_assert_int_eq(memset8(d, 0, 64), CUDA_ERROR_INVALID_CONTEXT);
  dlclose(h);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("rev_cuda");
  TCase *t = tcase_create("julia");
  tcase_set_timeout(t, 240);
  tcase_add_test(t, julia_module_gradient_O2);
  tcase_add_test(t, julia_module_gradient_O0);
  tcase_add_test(t, helpers_are_renamed_and_local);
  tcase_add_test(t, helpers_follow_the_calling_convention);
  tcase_add_test(t, memory_calls_need_a_context);
  suite_add_tcase(suite, t);
  SRunner *r = srunner_create(suite);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
