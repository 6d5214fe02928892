/*
 * The one place that knows which LLVM tanjit is built against.  Supported:
 * LLVM 19 (the baseline) to 22.  Each fork in the LLVM-C API is a static
 * inline shim here, so the rest of the code is version-free.
 */
#ifndef TANJIT_JIT_LLVM_COMPAT_H
#define TANJIT_JIT_LLVM_COMPAT_H

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Orc.h>
#include <llvm/Config/llvm-config.h>

#if LLVM_VERSION_MAJOR < 19 || LLVM_VERSION_MAJOR > 22
#error "tanjit supports LLVM 19 to 22"
#endif

/* LLVMOrcLLJITEnableDebugSupport (llvm-c/LLJITUtils.h, debug.c) exists
 * with the same signature in every supported version (since LLVM 18),
 * and so does __jit_debug_descriptor in libLLVM: no shim needed. */

/*
 * A module's LLVMContext and the ThreadSafeContext that will own it.  LLVM 21
 * removed LLVMOrcThreadSafeContextGetContext: there the context is created
 * first and wrapped later; before 21 the ThreadSafeContext creates it.
 */
typedef struct jit_context {
  LLVMContextRef ctx;
#if LLVM_VERSION_MAJOR < 21
  LLVMOrcThreadSafeContextRef tsc;
#endif
} jit_context;

static inline void jit_context_create(jit_context *c) {
#if LLVM_VERSION_MAJOR < 21
  c->tsc = LLVMOrcCreateNewThreadSafeContext();
  c->ctx = LLVMOrcThreadSafeContextGetContext(c->tsc);
#else
  c->ctx = LLVMContextCreate();
#endif
}

/* Returns a ThreadSafeContext reference owning the context (the caller
 * disposes the reference once a module holds it). */
static inline LLVMOrcThreadSafeContextRef jit_context_wrap(jit_context *c) {
#if LLVM_VERSION_MAJOR < 21
  return c->tsc;
#else
  return LLVMOrcCreateNewThreadSafeContextFromLLVMContext(c->ctx);
#endif
}

/* Disposes a context that was never wrapped (and everything in it). */
static inline void jit_context_abandon(jit_context *c) {
#if LLVM_VERSION_MAJOR < 21
  LLVMOrcDisposeThreadSafeContext(c->tsc);
#else
  LLVMContextDispose(c->ctx);
#endif
}

/*
 * Parses IR text; the caller keeps ownership of `buf` in every version
 * (LLVMParseIRInContext takes it, LLVMParseIRInContext2 of LLVM 22 does not).
 */
static inline LLVMBool jit_parse_ir_text(LLVMContextRef ctx,
                                         LLVMMemoryBufferRef buf,
                                         const char *name, LLVMModuleRef *out,
                                         char **msg) {
#if LLVM_VERSION_MAJOR >= 22
  (void)name; /* the buffer carries it */
  return LLVMParseIRInContext2(ctx, buf, out, msg);
#else
  const char *start = LLVMGetBufferStart(buf);
  size_t size = LLVMGetBufferSize(buf);
  LLVMMemoryBufferRef copy = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      start, size, name);
  return LLVMParseIRInContext(ctx, copy, out, msg); /* takes `copy` */
#endif
}

#endif
