/*
 * Bitcode load through the public API, as a host would call it: untrusted
 * bitcode goes through the sandboxed reader (src/tools/tanjit-bitcode-check),
 * so no input may take this process down.  Inputs that do not start with a
 * bitcode magic get one, so every input reaches the bitcode path.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint8_t magic[] = {'B', 'C', 0xC0, 0xDE};
  uint8_t *bc = malloc(size + sizeof magic);
  if (!bc)
    return 0;
  size_t len = size;
  if (size >= 4 && (memcmp(data, magic, 4) == 0 ||
                    (data[0] == 0xDE && data[1] == 0xC0 && data[2] == 0x17 &&
                     data[3] == 0x0B))) {
    memcpy(bc, data, size);
  } else {
    memcpy(bc, magic, sizeof magic);
    memcpy(bc + sizeof magic, data, size);
    len += sizeof magic;
  }
  tanjit_session *s = fuzz_session(0);
  fuzz_load_and_compile(s, bc, len, NULL);
  tanjit_session_free(s);
  free(bc);
  return 0;
}
