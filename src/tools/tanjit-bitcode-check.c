/*
 * tanjit-bitcode-check: reads untrusted LLVM bitcode in a process of its
 * own, so that a crash of LLVM's bitcode reader (which is not hardened
 * against hostile input: issue 10) takes down this helper, not the host
 * that embeds tanjit.
 *
 *   tanjit-bitcode-check [--max-memory BYTES] [--max-cpu SECONDS] <in >out
 *
 * Pipeline: limit itself (address space, CPU time, no core file), read all
 * of stdin, parse it fully (every function materialized), verify, write the
 * module back out as bitcode on stdout.  The library then parses that
 * output, written by LLVM's own writer from a verified module, instead of
 * the input (src/jit/bitcode_sandbox.c).
 *
 * Exit status (the library's protocol): 0 bitcode written; 2 the input is
 * not valid bitcode; 3 it fails the verifier; 4 a usage or I/O error.  The
 * reason is the text on stderr.  A signal means the reader crashed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>

#include "common/fdio.h"

enum { EXIT_PARSE = 2, EXIT_VERIFY = 3, EXIT_USAGE = 4 };

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static void limit(int resource, unsigned long long value) {
  struct rlimit r;
  if (getrlimit(resource, &r) == 0 && (r.rlim_max == RLIM_INFINITY ||
                                       value < r.rlim_max)) {
    r.rlim_cur = value;
    r.rlim_max = value; /* cannot be raised again by the reader */
    (void)setrlimit(resource, &r);
  }
}

/* Error diagnostics are the reason for a failed parse; print them. */
static void print_diagnostic(LLVMDiagnosticInfoRef di, void *ctx) {
  (void)ctx;
  if (LLVMGetDiagInfoSeverity(di) != LLVMDSError)
    return;
  char *text = LLVMGetDiagInfoDescription(di);
  fprintf(stderr, "%s\n", text);
  LLVMDisposeMessage(text);
}

int main(int argc, char **argv) {
  unsigned long long max_memory = 0, max_cpu = 0;
  for (int i = 1; i < argc; i++) {
    if (i + 1 < argc && strcmp(argv[i], "--max-memory") == 0)
      max_memory = strtoull(argv[++i], NULL, 10);
    else if (i + 1 < argc && strcmp(argv[i], "--max-cpu") == 0)
      max_cpu = strtoull(argv[++i], NULL, 10);
    else {
      fprintf(stderr, "usage: %s [--max-memory BYTES] [--max-cpu SECONDS] <in.bc >out.bc\n",
              argv[0]);
      return EXIT_USAGE;
    }
  }
  /* Before any input is read.  ASan reserves terabytes of shadow address
   * space, so an instrumented build (src/tools/meson.build makes none) would
   * keep only the CPU limit. */
#ifndef UNDER_ASAN
  if (max_memory)
    limit(RLIMIT_AS, max_memory);
#else
  (void)max_memory;
#endif
  if (max_cpu)
    limit(RLIMIT_CPU, max_cpu);
  limit(RLIMIT_CORE, 0);

  LLVMMemoryBufferRef in = NULL;
  char *msg = NULL;
  if (LLVMCreateMemoryBufferWithSTDIN(&in, &msg)) {
    fprintf(stderr, "cannot read the bitcode: %s\n", msg ? msg : "");
    return EXIT_USAGE;
  }
  LLVMDisposeMessage(msg);
  msg = NULL;
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(ctx, print_diagnostic, NULL);
  LLVMModuleRef m = NULL;
  /* ParseBitcode2 materializes every function, so a reader crash anywhere
   * in the input happens here rather than in the host. */
  if (LLVMParseBitcodeInContext2(ctx, in, &m)) {
    LLVMDisposeMemoryBuffer(in);
    LLVMContextDispose(ctx);
    return EXIT_PARSE;
  }
  LLVMDisposeMemoryBuffer(in);
  /* The writer assumes a well-formed module. */
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    fprintf(stderr, "%s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return EXIT_VERIFY;
  }
  LLVMDisposeMessage(msg);
  LLVMMemoryBufferRef out = LLVMWriteBitcodeToMemoryBuffer(m);
  if (!out || tj_write_all(STDOUT_FILENO, LLVMGetBufferStart(out),
                        LLVMGetBufferSize(out))) {
    fprintf(stderr, "cannot write the checked bitcode: %s\n", strerror(errno));
    return EXIT_USAGE;
  }
  LLVMDisposeMemoryBuffer(out);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return 0;
}
