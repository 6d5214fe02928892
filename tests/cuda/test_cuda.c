/*
 * CUDA transfers in forward mode, end to end: programs in C (driver and
 * runtime API) and Julia-style IR (renamed ccalls into libcuda.so.1) run in
 * a session bound to the simulator (runtime/cudasim, loaded RTLD_LOCAL
 * through a search directory).  Each program checks its own tangents
 * against analytic values (main returns the number of mismatches); this
 * harness checks the simulator's counters around it, read through the same
 * libcuda.so.1 the session loads: the shadow transfers happened (exact
 * counts per direction), every shadow allocation was zeroed and freed, and
 * nothing leaked.  Also: the declarations `tanjit emit` gives the helpers
 * (name, calling convention, parameter types), and reverse mode's refusal
 * of active data sent to device memory with no shadow (tests/rev_cuda has
 * reverse mode's gradients).
 *
 * Environment (meson sets it): CUDASIM_DIR, CUDA_TEST_BUILD (the compiled
 * programs), CUDA_TEST_SRC (the .ll sources), SAMPLES_DIR, TANJIT_EXE.
 */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudasim.h"
#include "tanjit/tanjit.h"
#include "../common/cudasim_session.h"
#include "../common/run_cli.h"

/* ---- the programs ---- */

typedef struct program {
  const char *file;    /* under CUDA_TEST_BUILD, CUDA_TEST_SRC or SAMPLES_DIR */
  const char *where;   /* the environment variable naming its directory */
  const char *library; /* registered with tanjit_add_library, or NULL */
  /* expected counter deltas over one run of main */
  unsigned long long htod, dtoh, dtod, memsets, allocs;
} program;

/* Deltas: each program calls its function once as primal and once per
 * tangent direction through __enzyme_fwddiff; a derivative repeats every
 * transfer into an active destination on shadows, zeroes each shadow
 * allocation once and each shadow region an inactive source lands in once
 * (a memset, or for cudaMemcpyDefault a host-to-device copy of zeros).
 * See each program's header for its transfers. */
static const program programs[] = {
    /* 1 primal (alloc, htod, dtoh, free) + 4 directions (each 2x that, +1
     * memset zeroing the shadow allocation) */
    {"driver_roundtrip-O0.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 9, 9, 0, 4, 9},
    {"driver_roundtrip-O2.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 9, 9, 0, 4, 9},
    /* 1 primal (2 alloc, 2 htod, 1 dtod, 2 dtoh) + 6 directions (4 alloc,
     * 3 htod: one source inactive, 2 dtod, 4 dtoh, 3 memsets) */
    {"driver_copies-O0.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 20, 26, 13, 18, 26},
    {"driver_copies-O2.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 20, 26, 13, 18, 26},
    /* 1 primal (1 alloc, 2 htod, 1 dtoh) + 4 directions (2 alloc, 3 htod,
     * 2 dtoh, 2 async memsets) */
    {"driver_async-O0.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 14, 9, 0, 8, 9},
    {"driver_async-O2.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 14, 9, 0, 8, 9},
    /* 1 primal (1 alloc, 2 htod, 1 dtoh) + 3 directions (2 alloc, 3 htod,
     * 2 dtoh, 2 memsets: cuMemsetD8 with 32-bit counts) */
    {"driver_v1-O0.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 11, 7, 0, 6, 7},
    {"driver_v1-O2.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 11, 7, 0, 6, 7},
    /* 1 primal (2 alloc, 3 htod, 1 dtod, 1 dtoh) + 4 directions (4 alloc,
     * 5 htod: x's shadow and the Default-kind zeroing copy, 2 dtod, 2 dtoh,
     * 3 memsets: 2 cudaMemset, 1 cudaMemsetAsync) */
    {"runtime_api-O0.ll", "CUDA_TEST_BUILD", "libcudart.so.12", 23, 9, 9, 12, 18},
    {"runtime_api-O2.ll", "CUDA_TEST_BUILD", "libcudart.so.12", 23, 9, 9, 12, 18},
    /* Julia-style: 1 primal (2 alloc, 2 htod, 1 dtod, 1 dtoh) + 3
     * directions (4 alloc, 3 htod, 2 dtod, 2 dtoh, 3 memsets) */
    {"julia_async_v1.ll", "CUDA_TEST_SRC", NULL, 11, 7, 7, 9, 14},
    /* the flagship sample: as driver_roundtrip */
    {"julia_cuda_roundtrip.ll", "SAMPLES_DIR", NULL, 9, 9, 0, 4, 9},
    /* handles passed to helpers: 1 primal f (1 alloc, 1 htod, 2 dtoh) and
     * g (1 alloc, 1 htod, 1 dtoh) + 4 directions of each (twice that, and
     * one memset per shadow allocation) */
    {"driver_handles-O0.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 18, 27, 0, 8, 18},
    {"driver_handles-O2.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 18, 27, 0, 8, 18},
    /* a helper allocating and returning the handle: 4 directions of (2
     * alloc, 2 htod, 2 dtoh, 1 memset) */
    {"driver_alloc_helper-O0.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 8, 8, 0, 4, 8},
    {"driver_alloc_helper-O2.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 8, 8, 0, 4, 8},
    /* pinned host staging: 3 directions of (2 device alloc, 2 htod, 2
     * dtoh, 1 memset of the device shadow) */
    {"runtime_pinned-O0.ll", "CUDA_TEST_BUILD", "libcudart.so.12", 6, 6, 0, 3, 6},
    {"runtime_pinned-O2.ll", "CUDA_TEST_BUILD", "libcudart.so.12", 6, 6, 0, 3, 6},
    /* managed memory: 3 directions of (2 alloc, 2 htod, 2 dtoh, 1 memset)
     * and one width-2 call (3 alloc, 3 htod, 3 dtoh, 2 memsets); before
     * each, 32 allocations dirtied by a memset and freed */
    {"driver_managed-O0.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 9, 9, 0, 133, 137},
    {"driver_managed-O2.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 9, 9, 0, 133, 137},
    /* pitched, _v2 and old: 8 directional calls of (2 alloc, 4 htod, 2
     * dtoh, 1 memset), each after 32 dirtied allocations */
    {"driver_pitch-O0.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 32, 16, 0, 264, 272},
    {"driver_pitch-O2.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 32, 16, 0, 264, 272},
    /* runtime managed + pitched: 3 directions of (4 alloc, 2 htod, 2 dtod,
     * 6 dtoh, 2 memsets), each after 32 dirtied allocations */
    {"runtime_managed_pitch-O0.ll", "CUDA_TEST_BUILD", "libcudart.so.12", 6, 18, 6, 102, 108},
    {"runtime_managed_pitch-O2.ll", "CUDA_TEST_BUILD", "libcudart.so.12", 6, 18, 6, 102, 108},
    /* Enzyme's cudamemcpy.cpp: 2 directions of (2 alloc, 2 htod, 2 dtoh,
     * 1 memset zeroing the shadow allocation); it reads the simulator's
     * counters itself, so it is not in test_cuda_gpu's list */
    {"runtime_cudamemcpy-O0.ll", "CUDA_TEST_BUILD", "libcudart.so.12", 4, 4, 0, 2, 4},
    {"runtime_cudamemcpy-O2.ll", "CUDA_TEST_BUILD", "libcudart.so.12", 4, 4, 0, 2, 4},
    /* an out-slot picked at run time: own slot (2 alloc, 2 htod, 2 dtoh, 1
     * memset), then an enzyme_const one (no shadow allocation, no shadow
     * transfers: 1 alloc, 1 htod, 1 dtoh) */
    {"driver_const_slot-O0.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 3, 3, 0, 1, 3},
    {"driver_const_slot-O2.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 3, 3, 0, 1, 3},
    /* structs mixing kinds: 1 primal (2 alloc, 1 htod, 1 dtod, 1 dtoh) + 2
     * directions (4 alloc, 2 memsets, and each transfer once for the primal
     * and once per shadow piece: the double, the padding and the pointer of
     * each of the 4 items, the int left alone) */
    {"driver_structs-O0.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 27, 27, 27, 4, 10},
    {"driver_structs-O2.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 27, 27, 27, 4, 10},
    /* a stream in a mutable global, set by main: 1 primal (1 alloc, 1
     * htod, 1 dtoh) + 3 directions and one width-2 call (2 and 3 of each,
     * 1 and 2 memsets) + one gradient (aug: 2 alloc, 1 htod, 1 dtoh, 1
     * memset; the reverse of the DtoH reads and writes the device
     * adjoint: 1 dtoh, 1 htod; of the HtoD reads and zeroes it: 1 dtoh,
     * 1 memset) */
    {"driver_stream_global-O0.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 12, 13, 0, 7, 12},
    {"driver_stream_global-O2.ll", "CUDA_TEST_BUILD", "libcuda.so.1", 12, 13, 0, 7, 12},
    {"runtime_stream_global-O0.ll", "CUDA_TEST_BUILD", "libcudart.so.12", 12, 13, 0, 7, 12},
    {"runtime_stream_global-O2.ll", "CUDA_TEST_BUILD", "libcudart.so.12", 12, 13, 0, 7, 12},
};
#define NPROGRAMS (int)(sizeof programs / sizeof *programs)

static void run_program(const program *p, int opt) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", cs_env(p->where), p->file);
  tanjit_session *s = cs_simulator_session(opt);
  tanjit_error *err = NULL;
  if (p->library)
    ck_assert_msg(tanjit_add_library(s, p->library, &err) == 0, "%s: %s",
                  p->library, tanjit_error_message(err));
  ck_assert_msg(tanjit_load_file(s, path, &err) == 0, "load %s: %s", path,
                tanjit_error_message(err));
  int (*entry)(void) = (int (*)(void))tanjit_lookup(s, "main", &err);
  ck_assert_msg(entry, "%s: %s", p->file, err ? tanjit_error_message(err) : "?");

  struct cudasim_counters before, after;
  cs_read_counters(&before);
  int rc = entry();
  cs_read_counters(&after);
  tanjit_session_free(s);

  ck_assert_msg(rc == 0, "%s -O%d: %d tangent mismatches (see output)",
                p->file, opt, rc);
  ck_assert_msg(after.errors == before.errors, "%s: %llu CUDA calls failed",
                p->file, after.errors - before.errors);
#define DELTA(field, want)                                                     \
  ck_assert_msg(after.field - before.field == (want),                          \
                "%s -O%d: " #field " grew by %llu, expected %llu", p->file,    \
                opt, after.field - before.field, (unsigned long long)(want))
  DELTA(htod, p->htod);
  DELTA(dtoh, p->dtoh);
  DELTA(dtod, p->dtod);
  DELTA(memsets, p->memsets);
  DELTA(allocs, p->allocs);
  DELTA(frees, p->allocs); /* every shadow allocation freed */
#undef DELTA
  ck_assert_msg(after.live_allocations == before.live_allocations &&
                    after.live_bytes == before.live_bytes,
                "%s: leaked %llu device allocations", p->file,
                after.live_allocations - before.live_allocations);
}

START_TEST(program_under_simulator) { run_program(&programs[_i], 2); }
END_TEST

/* Unoptimized JIT too: the derivative as emitted, before LLVM cleans it. */
START_TEST(program_under_simulator_O0) { run_program(&programs[_i], 0); }
END_TEST

/* ---- emitted declarations ---- */

static char output[1 << 20];

/* The CLI, run with `args`; its output lands in `output`. */
static int run_cli(const char *const *args) {
  return run_tanjit_cli(args, output, sizeof output);
}

static void emit_ir(const char *ir) {
  char path[] = "/tmp/tanjit-cuda-emit-XXXXXX.ll";
  int fd = mkstemps(path, 3);
  ck_assert_int_ge(fd, 0);
  ck_assert(write(fd, ir, strlen(ir)) == (ssize_t)strlen(ir));
  close(fd);
  const char *args[] = {"emit", path, "-O0", NULL};
  int rc = run_cli(args);
  unlink(path);
  if (rc != 0)
    printf("---- tanjit emit ----\n%s\n", output);
  ck_assert_msg(rc == 0, "tanjit emit failed (output above)");
}

/* Check's messages are short: the IR goes to stdout when a check fails. */
static void assert_emitted(const char *text) {
  if (!strstr(output, text))
    printf("---- emitted IR ----\n%s\n", output);
  ck_assert_msg(strstr(output, text), "expected in the emitted IR: %s", text);
}

static int count_emitted(const char *text) {
  int n = 0;
  for (const char *p = output; (p = strstr(p, text)); p += strlen(text))
    n++;
  return n;
}

#define LIB "$libcuda.so.1"
#define RT "$libcudart.so.12"
static const char emit_prelude[] =
    "@enzyme_dup = external global i32\n"
    "@enzyme_const = external global i32\n"
    "declare double @__enzyme_fwddiff(...)\n"
    "declare ptr @malloc(i64)\n";

/* Driver API under fastcc through renamed ccalls: every helper follows the
 * call it accompanies (convention, ejlstr$ rename, enzyme_math), and its
 * memset matches the allocation's size type. */
START_TEST(emit_driver_helpers) {
  char ir[8192];
  snprintf(ir, sizeof ir,
           "%s"
           "declare fastcc i32 @\"ejlstr$cuMemAlloc" LIB "\"(ptr, i32)\n"
           "declare fastcc i32 @\"ejlstr$cuMemAlloc_v2" LIB "\"(ptr, i64)\n"
           "declare fastcc i32 @\"ejlstr$cuMemAllocAsync" LIB "\"(ptr, i64, ptr)\n"
           "declare fastcc i32 @\"ejlstr$cuMemcpyHtoD" LIB "\"(i64, ptr, i32)\n"
           "declare fastcc i32 @\"ejlstr$cuMemcpyHtoDAsync_v2" LIB "\"(i64, ptr, i64, ptr)\n"
           "declare fastcc i32 @\"ejlstr$cuMemcpy" LIB "\"(i64, i64, i64)\n"
           "declare fastcc i32 @\"ejlstr$cuMemcpyDtoH_v2" LIB "\"(ptr, i64, i64)\n"
           "declare fastcc i32 @\"ejlstr$cuMemFree_v2" LIB "\"(i64)\n"
           "define double @f(ptr %%x, ptr %%c, ptr %%s, ptr %%y) {\n"
           "  %%s1 = alloca i64\n  %%s2 = alloca i64\n  %%s3 = alloca i64\n"
           "  call fastcc i32 @\"ejlstr$cuMemAlloc" LIB "\"(ptr %%s1, i32 16)\n"
           "  call fastcc i32 @\"ejlstr$cuMemAlloc_v2" LIB "\"(ptr %%s2, i64 16)\n"
           "  call fastcc i32 @\"ejlstr$cuMemAllocAsync" LIB "\"(ptr %%s3, i64 16, ptr %%s)\n"
           "  %%a = load i64, ptr %%s1\n  %%b = load i64, ptr %%s2\n"
           "  %%d = load i64, ptr %%s3\n"
           "  call fastcc i32 @\"ejlstr$cuMemcpyHtoD" LIB "\"(i64 %%a, ptr %%x, i32 16)\n"
           "  call fastcc i32 @\"ejlstr$cuMemcpyHtoDAsync_v2" LIB "\"(i64 %%d, ptr %%c, i64 16, ptr %%s)\n"
           "  %%ci = ptrtoint ptr %%c to i64\n"
           "  call fastcc i32 @\"ejlstr$cuMemcpy" LIB "\"(i64 %%b, i64 %%ci, i64 16)\n"
           "  call fastcc i32 @\"ejlstr$cuMemcpy" LIB "\"(i64 %%b, i64 %%a, i64 16)\n"
           "  call fastcc i32 @\"ejlstr$cuMemcpy" LIB "\"(i64 %%d, i64 %%b, i64 16)\n"
           "  call fastcc i32 @\"ejlstr$cuMemcpyDtoH_v2" LIB "\"(ptr %%y, i64 %%d, i64 16)\n"
           "  call fastcc i32 @\"ejlstr$cuMemFree_v2" LIB "\"(i64 %%a)\n"
           "  %%v = load double, ptr %%y\n  ret double %%v\n}\n"
           "define double @g(ptr %%x, ptr %%dx, ptr %%c, ptr %%s, ptr %%y, ptr %%dy) {\n"
           "  %%m = load i32, ptr @enzyme_dup\n  %%k = load i32, ptr @enzyme_const\n"
           "  %%r = call double (...) @__enzyme_fwddiff(ptr @f, i32 %%m, ptr %%x, ptr %%dx,"
           " i32 %%k, ptr %%c, i32 %%k, ptr %%s, i32 %%m, ptr %%y, ptr %%dy)\n"
           "  ret double %%r\n}\n",
           emit_prelude);
  emit_ir(ir);
  /* the plain cuMemAlloc (unsigned int size) pairs with cuMemsetD8 */
  assert_emitted("declare fastcc i32 @\"ejlstr$cuMemsetD8" LIB "\"(i64, i8, i32)");
  assert_emitted("declare fastcc i32 @\"ejlstr$cuMemsetD8_v2" LIB "\"(i64, i8, i64)");
  assert_emitted("declare fastcc i32 @\"ejlstr$cuMemsetD8Async" LIB "\"(i64, i8, i64, ptr)");
  assert_emitted("\"enzyme_math\"=\"cuMemsetD8\"");
  assert_emitted("\"enzyme_math\"=\"cuMemsetD8_v2\"");
  assert_emitted("\"enzyme_math\"=\"cuMemsetD8Async\"");
  /* the unified copy from an inactive source zeroes through a host buffer,
   * synchronizing no stream (none) */
  assert_emitted("call ptr @calloc(");
  /* shadow allocations: the same call on the shadow slots (each call is
   * in the primal f once and in its derivative twice) */
  ck_assert_int_eq(count_emitted("call fastcc i32 @\"ejlstr$cuMemAlloc" LIB "\"("), 3);
  ck_assert_int_eq(count_emitted("call fastcc i32 @\"ejlstr$cuMemAlloc_v2" LIB "\"("), 3);
  ck_assert_int_eq(count_emitted("call fastcc i32 @\"ejlstr$cuMemAllocAsync" LIB "\"("), 3);
  /* a checked shadow free */
  ck_assert_int_eq(count_emitted("call fastcc i32 @\"ejlstr$cuMemFree_v2" LIB "\"("), 3);
  assert_emitted("shadow.free");
  /* integers are never `nocapture` */
  ck_assert_msg(!strstr(output, "i64 nocapture"), "nocapture on an integer");
}
END_TEST

/* Runtime API: cudaMemset[Async] for device destinations, an LLVM memset
 * for host ones, a zeroed host buffer + stream synchronize for a kind only
 * known at run time. */
START_TEST(emit_runtime_helpers) {
  char ir[8192];
  snprintf(ir, sizeof ir,
           "%s"
           "declare i32 @\"ejlstr$cudaMalloc" RT "\"(ptr, i64)\n"
           "declare i32 @\"ejlstr$cudaMallocAsync" RT "\"(ptr, i64, ptr)\n"
           "declare i32 @\"ejlstr$cudaMemcpy" RT "\"(ptr, ptr, i64, i32)\n"
           "declare i32 @\"ejlstr$cudaMemcpyAsync" RT "\"(ptr, ptr, i64, i32, ptr)\n"
           "declare i32 @\"ejlstr$cudaFree" RT "\"(ptr)\n"
           "declare i32 @\"ejlstr$cudaFreeAsync" RT "\"(ptr, ptr)\n"
           "define double @f(ptr %%x, ptr %%c, ptr %%s, ptr %%y, i32 %%kind) {\n"
           "  %%s1 = alloca ptr\n  %%s2 = alloca ptr\n"
           "  call i32 @\"ejlstr$cudaMalloc" RT "\"(ptr %%s1, i64 32)\n"
           "  call i32 @\"ejlstr$cudaMallocAsync" RT "\"(ptr %%s2, i64 32, ptr %%s)\n"
           "  %%a = load ptr, ptr %%s1\n  %%b = load ptr, ptr %%s2\n"
           "  call i32 @\"ejlstr$cudaMemcpy" RT "\"(ptr %%a, ptr %%x, i64 16, i32 1)\n"
           "  %%a2 = getelementptr i8, ptr %%a, i64 16\n"
           "  call i32 @\"ejlstr$cudaMemcpyAsync" RT "\"(ptr %%a2, ptr %%c, i64 16, i32 1, ptr %%s)\n"
           "  call i32 @\"ejlstr$cudaMemcpyAsync" RT "\"(ptr %%b, ptr %%c, i64 16, i32 %%kind, ptr %%s)\n"
           "  call i32 @\"ejlstr$cudaMemcpy" RT "\"(ptr %%y, ptr %%a, i64 32, i32 2)\n"
           "  call i32 @\"ejlstr$cudaMemcpy" RT "\"(ptr %%y, ptr %%b, i64 16, i32 2)\n"
           "  call i32 @\"ejlstr$cudaMemcpy" RT "\"(ptr %%y, ptr %%c, i64 8, i32 0)\n"
           "  call i32 @\"ejlstr$cudaFree" RT "\"(ptr %%a)\n"
           "  call i32 @\"ejlstr$cudaFreeAsync" RT "\"(ptr %%b, ptr %%s)\n"
           "  %%v = load double, ptr %%y\n  ret double %%v\n}\n"
           "define double @g(ptr %%x, ptr %%dx, ptr %%c, ptr %%s, ptr %%y, ptr %%dy) {\n"
           "  %%m = load i32, ptr @enzyme_dup\n  %%k = load i32, ptr @enzyme_const\n"
           "  %%r = call double (...) @__enzyme_fwddiff(ptr @f, i32 %%m, ptr %%x, ptr %%dx,"
           " i32 %%k, ptr %%c, i32 %%k, ptr %%s, i32 %%m, ptr %%y, ptr %%dy, i32 %%k, i32 3)\n"
           "  ret double %%r\n}\n",
           emit_prelude);
  emit_ir(ir);
  assert_emitted("declare i32 @\"ejlstr$cudaMemset" RT "\"(ptr, i32, i64)");
  assert_emitted("declare i32 @\"ejlstr$cudaMemsetAsync" RT "\"(ptr, i32, i64, ptr)");
  assert_emitted("declare i32 @\"ejlstr$cudaStreamSynchronize" RT "\"(ptr)");
  assert_emitted("\"enzyme_math\"=\"cudaMemset\"");
  /* the run-time kind: a zeroed host buffer copied with cudaMemcpyDefault */
  assert_emitted("call ptr @calloc(");
  assert_emitted(", i32 4, ptr %s)");
  /* the host destination of a host-to-host copy from an inactive source */
  assert_emitted("call void @llvm.memset.p0.i64(");
  /* the kind of every shadow transfer is the primal's */
  ck_assert_int_eq(count_emitted("ptr %\"x'\", i64 16, i32 1)"), 1);
  /* primal f once, its derivative twice (checked) */
  ck_assert_int_eq(count_emitted("call i32 @\"ejlstr$cudaFree" RT "\"(ptr"), 3);
  ck_assert_int_eq(count_emitted("call i32 @\"ejlstr$cudaFreeAsync" RT "\"(ptr"), 3);
}
END_TEST

/* Managed and pitched allocations through renamed ccalls: managed memory
 * is zeroed as device memory; a pitched shadow gets a pitch slot of its
 * own, of the height's type (the old cuMemAllocPitch: unsigned int, so its
 * memset is the 32-bit cuMemsetD8), and pitch * height bytes zeroed. */
START_TEST(emit_managed_and_pitched_helpers) {
  char ir[8192];
  snprintf(ir, sizeof ir,
           "%s"
           "declare i32 @\"ejlstr$cuMemAllocManaged" LIB "\"(ptr, i64, i32)\n"
           "declare i32 @\"ejlstr$cuMemAllocPitch" LIB "\"(ptr, ptr, i32, i32, i32)\n"
           "declare i32 @\"ejlstr$cuMemAllocPitch_v2" LIB "\"(ptr, ptr, i64, i64, i32)\n"
           "declare i32 @\"ejlstr$cudaMallocManaged" RT "\"(ptr, i64, i32)\n"
           "declare i32 @\"ejlstr$cudaMallocPitch" RT "\"(ptr, ptr, i64, i64)\n"
           "declare i32 @\"ejlstr$cuMemcpyHtoD_v2" LIB "\"(i64, ptr, i64)\n"
           "declare i32 @\"ejlstr$cudaMemcpy" RT "\"(ptr, ptr, i64, i32)\n"
           "define double @f(ptr %%x, ptr %%y) {\n"
           "  %%s1 = alloca i64\n  %%s2 = alloca i64\n  %%s3 = alloca i64\n"
           "  %%s4 = alloca ptr\n  %%s5 = alloca ptr\n"
           "  %%p2 = alloca i32\n  %%p3 = alloca i64\n  %%p5 = alloca i64\n"
           "  call i32 @\"ejlstr$cuMemAllocManaged" LIB "\"(ptr %%s1, i64 16, i32 1)\n"
           "  call i32 @\"ejlstr$cuMemAllocPitch" LIB "\"(ptr %%s2, ptr %%p2, i32 16, i32 2, i32 8)\n"
           "  call i32 @\"ejlstr$cuMemAllocPitch_v2" LIB "\"(ptr %%s3, ptr %%p3, i64 16, i64 2, i32 8)\n"
           "  call i32 @\"ejlstr$cudaMallocManaged" RT "\"(ptr %%s4, i64 16, i32 1)\n"
           "  call i32 @\"ejlstr$cudaMallocPitch" RT "\"(ptr %%s5, ptr %%p5, i64 16, i64 2)\n"
           "  %%a = load i64, ptr %%s1\n  %%b = load i64, ptr %%s2\n  %%c = load i64, ptr %%s3\n"
           "  %%d = load ptr, ptr %%s4\n  %%e = load ptr, ptr %%s5\n"
           "  call i32 @\"ejlstr$cuMemcpyHtoD_v2" LIB "\"(i64 %%a, ptr %%x, i64 16)\n"
           "  call i32 @\"ejlstr$cuMemcpyHtoD_v2" LIB "\"(i64 %%b, ptr %%x, i64 16)\n"
           "  call i32 @\"ejlstr$cuMemcpyHtoD_v2" LIB "\"(i64 %%c, ptr %%x, i64 16)\n"
           "  call i32 @\"ejlstr$cudaMemcpy" RT "\"(ptr %%d, ptr %%x, i64 16, i32 1)\n"
           "  call i32 @\"ejlstr$cudaMemcpy" RT "\"(ptr %%e, ptr %%x, i64 16, i32 1)\n"
           "  %%v = load double, ptr %%y\n  ret double %%v\n}\n"
           "define double @g(ptr %%x, ptr %%dx, ptr %%y) {\n"
           "  %%m = load i32, ptr @enzyme_dup\n  %%k = load i32, ptr @enzyme_const\n"
           "  %%r = call double (...) @__enzyme_fwddiff(ptr @f, i32 %%m, ptr %%x, ptr %%dx,"
           " i32 %%k, ptr %%y)\n"
           "  ret double %%r\n}\n",
           emit_prelude);
  emit_ir(ir);
  assert_emitted("declare i32 @\"ejlstr$cuMemsetD8" LIB "\"(i64, i8, i32)");
  assert_emitted("declare i32 @\"ejlstr$cuMemsetD8_v2" LIB "\"(i64, i8, i64)");
  assert_emitted("declare i32 @\"ejlstr$cudaMemset" RT "\"(ptr, i32, i64)");
  /* the shadow pitches: slots of their own, never the program's (which
   * only the primal f and its clone in the derivative pass), read back as
   * the height's type */
  ck_assert_int_eq(count_emitted("'ipa\", ptr %shadow.pitch"), 3);
  ck_assert_int_eq(count_emitted("ptr %p2, i32 16, i32 2, i32 8)"), 2);
  ck_assert_int_eq(count_emitted("ptr %p3, i64 16, i64 2, i32 8)"), 2);
  ck_assert_int_eq(count_emitted("ptr %p5, i64 16, i64 2)"), 2);
  ck_assert_int_eq(count_emitted("mul i32 %shadow.pitch"), 1);
  ck_assert_int_eq(count_emitted("mul i64 %shadow.pitch"), 2);
  /* and the program's pitch slots' shadows mirror the pitch */
  ck_assert_int_eq(count_emitted("store i32 %shadow.pitch"), 1);
  ck_assert_int_eq(count_emitted("store i64 %shadow.pitch"), 2);
  /* managed memory: the same call, flags unchanged, zeroed on the device */
  ck_assert_int_eq(count_emitted("(ptr %\"s1'ipa\", i64 16, i32 1)"), 1);
  ck_assert_int_eq(count_emitted("(ptr %\"s4'ipa\", i64 16, i32 1)"), 1);
}
END_TEST

/* An async device-to-host copy from an inactive source zeroes the host
 * shadow only after the stream has drained (earlier shadow copies into it
 * may still be in flight on a real GPU). */
START_TEST(async_host_zeroing_waits_for_the_stream) {
  static const char ir[] =
      "declare i32 @\"ejlstr$cuMemcpyDtoHAsync_v2$libcuda.so.1\"(ptr, i64, i64, ptr) #0\n"
      "declare double @__enzyme_fwddiff(...)\n"
      "define double @f(ptr %y, i64 %d, ptr %st, double %x) {\n"
      "  store double %x, ptr %y\n"
      "  %r = call i32 @\"ejlstr$cuMemcpyDtoHAsync_v2$libcuda.so.1\"(ptr %y, i64 %d, i64 8, ptr %st)\n"
      "  %v = load double, ptr %y\n  %m = fmul double %v, %x\n  ret double %m\n}\n"
      "define double @g(ptr %y, ptr %dy, i64 %d, ptr %st, double %x) {\n"
      "  %r = call double (...) @__enzyme_fwddiff(ptr @f, metadata !\"enzyme_dup\", ptr %y,"
      " ptr %dy, metadata !\"enzyme_const\", i64 %d, metadata !\"enzyme_const\", ptr %st,"
      " double %x, double 1.0)\n  ret double %r\n}\n"
      "attributes #0 = { \"enzyme_math\"=\"cuMemcpyDtoHAsync_v2\" }\n";
  emit_ir(ir);
  const char *sync = strstr(output, "call i32 @\"ejlstr$cuStreamSynchronize$libcuda.so.1\"(ptr %st)");
  const char *zero = strstr(output, "call void @llvm.memset.p0.i64(ptr align 1 %\"y'\"");
  ck_assert_msg(sync && zero && sync < zero, "expected the stream drained before the "
                                            "host shadow is zeroed:\n%s", output);
}
END_TEST

/* ---- reverse mode (tests/rev_cuda has the gradients) ---- */

/* Loading `ir` succeeds, and looking up its request g fails: unsupported,
 * with `message` in the error, naming the function f. */
static void expect_reverse_refusal(const char *ir, const char *message) {
  tanjit_session *s = cs_simulator_session(2);
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_load_memory(s, ir, strlen(ir), "reverse.ll", &err), 0);
  ck_assert_ptr_null(tanjit_lookup(s, "g", &err));
  ck_assert_ptr_nonnull(err);
  ck_assert_int_eq(tanjit_error_get_code(err), TANJIT_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(tanjit_error_message(err), message),
                "unclear message: %s", tanjit_error_message(err));
  ck_assert_msg(strstr(tanjit_error_message(err), " in f"),
                "message does not name the function: %s",
                tanjit_error_message(err));
  tanjit_error_free(err);
  tanjit_session_free(s);
}

/* Active data copied to a device address the request made constant (an
 * integer with no shadow): the gradient would be lost, so it is refused. */
START_TEST(reverse_mode_refuses_an_unshadowed_destination) {
  static const char ir[] =
      "declare i32 @\"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1\"(i64, ptr, i64) #0\n"
      "declare double @__enzyme_autodiff(...)\n"
      "define double @f(ptr %x, i64 %d) {\n"
      "  call i32 @\"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1\"(i64 %d, ptr %x, i64 8)\n"
      "  %v = load double, ptr %x\n  ret double %v\n}\n"
      "define double @g(ptr %x, ptr %dx, i64 %d) {\n"
      "  %r = call double (...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %d)\n"
      "  ret double %r\n}\n"
      "attributes #0 = { \"enzyme_math\"=\"cuMemcpyHtoD_v2\" }\n";
  expect_reverse_refusal(ir, "reverse mode: cuMemcpyHtoD_v2 copies active "
                             "memory into memory with no shadow");
}
END_TEST

/* A transfer whose bytes mix a float with bytes type analysis cannot
 * classify (16 bytes no access reads: not padding) is refused, naming the
 * byte; one of floats, ints and padding is not (tests/rev_cuda's mixed
 * programs). */
START_TEST(reverse_mode_refuses_unclassified_transfer_bytes) {
  static const char ir[] =
      "declare i32 @\"ejlstr$cuMemAlloc_v2$libcuda.so.1\"(ptr, i64) #0\n"
      "declare i32 @\"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1\"(i64, ptr, i64) #1\n"
      "declare double @__enzyme_autodiff(...)\n"
      "define double @f(ptr %x) {\n"
      "  %slot = alloca i64\n"
      "  call i32 @\"ejlstr$cuMemAlloc_v2$libcuda.so.1\"(ptr %slot, i64 24)\n"
      "  %d = load i64, ptr %slot\n"
      "  call i32 @\"ejlstr$cuMemcpyHtoD_v2$libcuda.so.1\"(i64 %d, ptr %x, i64 24)\n"
      "  %v = load double, ptr %x\n  ret double %v\n}\n"
      "define double @g(ptr %x, ptr %dx) {\n"
      "  %r = call double (...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)\n"
      "  ret double %r\n}\n"
      "attributes #0 = { \"enzyme_math\"=\"cuMemAlloc_v2\" }\n"
      "attributes #1 = { \"enzyme_math\"=\"cuMemcpyHtoD_v2\" }\n";
  expect_reverse_refusal(ir, "reverse mode: cuMemcpyHtoD_v2 of memory with "
                             "bytes type analysis cannot classify (at byte 8 "
                             "of the transfer: not a float, pointer, integer "
                             "nor padding) is not supported");
}
END_TEST

static Suite *cuda_suite(void) {
  Suite *s = suite_create("cuda");
  TCase *t = tcase_create("programs");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, program_under_simulator, 0, NPROGRAMS);
  tcase_add_loop_test(t, program_under_simulator_O0, 0, NPROGRAMS);
  suite_add_tcase(s, t);
  TCase *e = tcase_create("emit");
  tcase_set_timeout(e, 60);
  tcase_add_test(e, emit_driver_helpers);
  tcase_add_test(e, emit_runtime_helpers);
  tcase_add_test(e, emit_managed_and_pitched_helpers);
  tcase_add_test(e, async_host_zeroing_waits_for_the_stream);
  tcase_add_test(e, reverse_mode_refuses_an_unshadowed_destination);
  tcase_add_test(e, reverse_mode_refuses_unclassified_transfer_bytes);
  suite_add_tcase(s, e);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(cuda_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
