/* Stands in for tanjit-bitcode-check in test_bitcode_sandbox: a reader that
 * crashes on every input, as LLVM's does on some malformed files. */
#include <signal.h>

int main(void) {
  raise(SIGSEGV);
  return 0;
}
