/*
 * Runs a program made of several IR modules in one tanjit session, the
 * JIT's counterpart of linking translation units: each module is loaded
 * (and differentiated) on its own, and ORC links them.  Used for the
 * Enzyme tests whose translation units cannot be merged by llvm-link
 * (lto_prelink_rule: each unit registers a rule under the same name).
 * Usage: load_modules FILE...   exits with main's return value.
 */
#include <stdio.h>

#include "tanjit/tanjit.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE...\n", argv[0]);
    return 2;
  }
  tanjit_options o;
  tanjit_options_init(&o);
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  if (!s) {
    fprintf(stderr, "session: %s\n", err ? tanjit_error_message(err) : "?");
    return 2;
  }
  int rc = 2;
  for (int i = 1; i < argc; i++)
    if (tanjit_load_file(s, argv[i], &err) != 0) {
      fprintf(stderr, "%s\n", tanjit_error_message(err));
      goto out;
    }
  int (*entry)(void) = (int (*)(void))tanjit_lookup(s, "main", &err);
  if (!entry) {
    fprintf(stderr, "%s\n", err ? tanjit_error_message(err) : "no main");
    goto out;
  }
  rc = entry();
out:
  if (err)
    tanjit_error_free(err);
  tanjit_session_free(s);
  return rc;
}
