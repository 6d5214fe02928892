#include "fuzz_common.h"

#include <stdlib.h>

static void count_unresolved(void *user, const char *symbol,
                             const char *library, const char *reason) {
  (void)symbol, (void)library, (void)reason;
  ++*(unsigned long *)user;
}

static unsigned long unresolved_calls;

tanjit_session *fuzz_session(int opt) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.opt_level = opt;
  o.binding = TANJIT_BIND_LAZY;
  o.on_unresolved = count_unresolved;
  o.on_unresolved_user = &unresolved_calls;
  /* No library may be opened by a renamed ccall: inputs must not dlopen
   * arbitrary system libraries and run their constructors. */
  static const char *const none[] = {NULL};
  o.allowed_libraries = none;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  tanjit_error_free(err);
  if (!s)
    abort(); /* the harness, not the library: a session must always open */
  return s;
}

void fuzz_load_and_compile(tanjit_session *s, const uint8_t *buf, size_t len,
                           const char *const *symbols) {
  tanjit_error *err = NULL;
  if (tanjit_load_memory(s, buf, len, "fuzz-input", &err)) {
    tanjit_error_free(err);
    return;
  }
  for (size_t i = 0; symbols && symbols[i]; i++) {
    err = NULL;
    (void)tanjit_lookup(s, symbols[i], &err);
    tanjit_error_free(err);
  }
}
