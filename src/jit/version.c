/*
 * Version queries: tanjit's (the header the library was built from, which
 * meson.build keeps equal to the project version) and the LLVM library's
 * own at run time, which a shared libLLVM may report differently from the
 * headers tanjit was compiled against (a patch release).
 */
#include <pthread.h>
#include <stdio.h>

#include <llvm-c/Core.h>

#include "tanjit/tanjit.h"

const char *tanjit_version(void) { return TANJIT_VERSION_STRING; }

static pthread_once_t llvm_version_once = PTHREAD_ONCE_INIT;
static char llvm_version_text[32];

static void format_llvm_version(void) {
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  snprintf(llvm_version_text, sizeof llvm_version_text, "%u.%u.%u", major,
           minor, patch);
}

const char *tanjit_llvm_version(void) {
  pthread_once(&llvm_version_once, format_llvm_version);
  return llvm_version_text;
}
