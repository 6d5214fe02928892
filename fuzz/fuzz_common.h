/*
 * Shared by the libFuzzer harnesses: one fresh session per input (a session
 * that kept earlier inputs' modules would refuse later ones as duplicate
 * definitions, and would make a crash depend on the input history).
 */
#ifndef TANJIT_FUZZ_COMMON_H
#define TANJIT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "tanjit/tanjit.h"

/* A session at opt level `opt` with lazy binding and a handler that only
 * counts, so an unresolved external never aborts and nothing ever runs. */
tanjit_session *fuzz_session(int opt);

/* Loads buf into s; when it loads, looks up (compiles) each name in
 * `symbols` (NULL-terminated, may be NULL).  Errors are freed: the only
 * failure a harness reports is the process dying. */
void fuzz_load_and_compile(tanjit_session *s, const uint8_t *buf, size_t len,
                           const char *const *symbols);

#endif
