/*
 * IR text: parse, verify and tanjit's load-time rewrites (markers, Julia
 * PLT binding, registrations); then, for text that loads, the transform
 * (differentiation) and the O0 pipeline through tanjit_emit_memory.  Input is taken as text whatever it holds
 * (a leading bitcode magic is replaced, so this harness never reaches the
 * bitcode reader: fuzz_bitcode covers that).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  if (size >= 2 && ((text[0] == 'B' && text[1] == 'C') ||
                    (text[0] == 0xDE && text[1] == 0xC0)))
    text[0] = ';';
  tanjit_session *s = fuzz_session(0);
  tanjit_error *err = NULL;
  if (tanjit_load_memory(s, text, size, "fuzz-input", &err) == 0)
    tanjit_free(tanjit_emit_memory(s, text, size, "fuzz-input", &err));
  tanjit_error_free(err);
  tanjit_session_free(s);
  free(text);
  return 0;
}
