/*
 * The CUDA programs of test_cuda.c against the system's real libcuda.so.1
 * (and libcudart.so.12 where installed), when a GPU is present: each
 * program's own tangent checks must hold.  Without a GPU, or when the only
 * libcuda.so.1 in reach is the simulator, this exits 77 (meson's skip)
 * saying so.  Counters exist only in the simulator; test_cuda checks them.
 */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tanjit/tanjit.h"

static const char *const gpu_programs[][2] = {
    /* file, library to register (NULL: renamed ccalls name it) */
    {"driver_roundtrip-O2.ll", "libcuda.so.1"},
    {"driver_copies-O2.ll", "libcuda.so.1"},
    {"driver_async-O2.ll", "libcuda.so.1"},
    {"driver_v1-O2.ll", "libcuda.so.1"},
    {"runtime_api-O2.ll", "libcudart.so.12"},
    {"julia_async_v1.ll", NULL},
    {"julia_cuda_roundtrip.ll", NULL},
    {"driver_handles-O2.ll", "libcuda.so.1"},
    {"driver_managed-O2.ll", "libcuda.so.1"},
    {"runtime_managed_pitch-O2.ll", "libcudart.so.12"},
    {"driver_structs-O2.ll", "libcuda.so.1"},
};

static int gpu_present(void) {
  void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!h)
    return 0;
  int ok = 0;
  /* the simulator exports its counters; NVIDIA's driver does not */
  if (!dlsym(h, "cudasim_get_counters")) {
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
    ok = init && init(0) == 0;
  }
  dlclose(h);
  return ok;
}

START_TEST(program_on_gpu) {
  const char *file = gpu_programs[_i][0], *lib = gpu_programs[_i][1];
  const char *dir = strncmp(file, "julia_cuda", 10) == 0 ? getenv("SAMPLES_DIR")
                    : strncmp(file, "julia", 5) == 0    ? getenv("CUDA_TEST_SRC")
                                                        : getenv("CUDA_TEST_BUILD");
  ck_assert_ptr_nonnull(dir);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  tanjit_options o;
  tanjit_options_init(&o);
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_ptr_nonnull(s);
  if (lib && tanjit_add_library(s, lib, &err) != 0) {
    printf("SKIP %s: %s\n", file, tanjit_error_message(err));
    tanjit_error_free(err);
    tanjit_session_free(s);
    return;
  }
  ck_assert_msg(tanjit_load_file(s, path, &err) == 0, "%s",
                tanjit_error_message(err));
  int (*entry)(void) = (int (*)(void))tanjit_lookup(s, "main", &err);
  ck_assert_msg(entry, "%s: %s", file, err ? tanjit_error_message(err) : "?");
  int rc = entry();
  tanjit_session_free(s);
  ck_assert_msg(rc == 0, "%s on the GPU: status %d", file, rc);
}
END_TEST

int main(void) {
  if (!gpu_present()) {
    printf("SKIP: no GPU/libcuda (no NVIDIA libcuda.so.1 whose cuInit "
           "succeeds)\n");
    return 77;
  }
  Suite *suite = suite_create("cuda-gpu");
  TCase *t = tcase_create("programs");
  tcase_set_timeout(t, 300);
  tcase_add_loop_test(t, program_on_gpu, 0,
                      (int)(sizeof gpu_programs / sizeof *gpu_programs));
  suite_add_tcase(suite, t);
  SRunner *sr = srunner_create(suite);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
