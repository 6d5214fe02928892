/*
 * ad_driver IN.ll [OUT.ll]: parses IN (text or bitcode), runs the
 * forward-mode transform, verifies, prints the result (to OUT or stdout).
 * Exit 1 with the engine's message on failure; AD_DRIVER_STATS=1 prints
 * how many rule lookups the transform made.  A debugging aid and the
 * way the shell tests feed programs to lli.
 */
#include <stdio.h>
#include <stdlib.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "ad/ad.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s IN.ll [OUT.ll]\n", argv[0]);
    return 2;
  }
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf;
  char *msg = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(argv[1], &buf, &msg)) {
    fprintf(stderr, "%s: %s\n", argv[1], msg);
    return 1;
  }
  LLVMModuleRef m;
  if (LLVMParseIRInContext(ctx, buf, &m, &msg)) {
    fprintf(stderr, "%s: %s\n", argv[1], msg);
    return 1;
  }
  ad_engine *e = ad_engine_new();
  tanjit_error *err = NULL;
  int rc = 0;
  if (ad_transform_module(e, m, &err) != 0) {
    fprintf(stderr, "error: %s\n", tanjit_error_message(err));
    tanjit_error_free(err);
    rc = 1;
  } else {
    /* the verifier allocates its message even when it has nothing to say */
    msg = NULL;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
      fprintf(stderr, "verify: %s\n", msg);
      rc = 1;
    }
    LLVMDisposeMessage(msg);
  }
  /* AD_DRIVER_STATS=1: what the transform cost in rule lookups */
  if (getenv("AD_DRIVER_STATS"))
    fprintf(stderr, "ad_driver: %lu rule lookups\n", ad_engine_rule_lookups(e));
  if (rc == 0 || getenv("AD_DRIVER_PRINT_ANYWAY")) {
    if (argc > 2) {
      if (LLVMPrintModuleToFile(m, argv[2], &msg)) {
        fprintf(stderr, "%s: %s\n", argv[2], msg);
        rc = 1;
      }
    } else {
      char *s = LLVMPrintModuleToString(m);
      fputs(s, stdout);
      LLVMDisposeMessage(s);
    }
  }
  ad_engine_free(e);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return rc;
}
