/*
 * What the Check harnesses of the CUDA programs (tests/cuda, tests/rev_cuda)
 * share: the environment meson sets, the simulator's libcuda.so.1 opened by
 * the very path a session opens it (one loaded object, one state), its
 * counters read through it, and a session bound to the simulator through
 * a search directory ($CUDASIM_DIR).
 */
#ifndef TANJIT_TESTS_CUDASIM_SESSION_H
#define TANJIT_TESTS_CUDASIM_SESSION_H

#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "cudasim.h"
#include "tanjit/tanjit.h"

/* $name, failing the test when meson did not set it. */
static inline const char *cs_env(const char *name) {
  const char *v = getenv(name);
  ck_assert_msg(v && *v, "%s is not set (run through meson test)", name);
  return v;
}

/* A reference to the simulator's driver library; the caller dlcloses it
 * (the library stays loaded while a session holds it). */
static inline void *cs_driver_library(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s/libcuda.so.1", cs_env("CUDASIM_DIR"));
  void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  ck_assert_msg(h, "dlopen %s: %s", path, dlerror());
  return h;
}

static inline void cs_read_counters(struct cudasim_counters *out) {
  void *h = cs_driver_library();
  void (*get)(struct cudasim_counters *) =
      (void (*)(struct cudasim_counters *))dlsym(h, "cudasim_get_counters");
  ck_assert_ptr_nonnull(get);
  get(out);
  dlclose(h);
}

/* A session at `opt` that finds libcuda.so.1 and libcudart.so.12 in the
 * simulator's directory. */
static inline tanjit_session *cs_simulator_session(int opt) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.opt_level = opt;
  const char *dirs[] = {cs_env("CUDASIM_DIR"), NULL};
  o.library_dirs = dirs;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_msg(s, "session: %s", err ? tanjit_error_message(err) : "?");
  return s;
}

#endif
