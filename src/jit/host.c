/*
 * Host symbols: names the embedder binds to addresses in its own process
 * (tanjit_define_symbol), and forward rules given by address
 * (tanjit_register_fwd_rule_address).
 *
 * A host symbol is an absolute symbol defined in the main JITDylib, so ORC
 * finds it before it ever asks the definition generator (resolve.c): it
 * comes before the registered libraries, renamed ccalls and the process,
 * and needs no -rdynamic.  A rule by address is a host symbol with a name
 * made from the function and the address, registered like a rule by name.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/strbuf.h"
#include "jit/jit.h"

/* Under jit_lock.  Defining the same name at the same address again is a
 * no-op; any other existing definition is an error. */
static int define_host_symbol(tanjit_session *s, const char *name,
                              void *address, tanjit_error **err) {
  void *known = strmap_get(&s->host_symbols, name);
  if (known == address)
    return 0;
  if (known)
    return tj_fail(err, TANJIT_ERR_LINK,
                   "tanjit_define_symbol: %s is already defined at %p", name,
                   known);
  LLVMOrcExecutionSessionRef es = LLVMOrcLLJITGetExecutionSession(s->jit);
  LLVMOrcCSymbolMapPair pair;
  pair.Name = LLVMOrcExecutionSessionIntern(es, name); /* the pair takes it */
  pair.Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)address;
  pair.Sym.Flags.GenericFlags =
      LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
  pair.Sym.Flags.TargetFlags = 0;
  LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(&pair, 1);
  LLVMErrorRef e = LLVMOrcJITDylibDefine(s->main_jd, mu);
  if (e) {
    LLVMOrcDisposeMaterializationUnit(mu);
    char *why = LLVMGetErrorMessage(e);
    tj_fail(err, TANJIT_ERR_LINK,
            "tanjit_define_symbol: %s is already defined in the session (by a "
            "loaded module, or resolved by an earlier compile): %s",
            name, why);
    LLVMDisposeErrorMessage(why);
    return -1;
  }
  if (strmap_put(&s->host_symbols, name, address))
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory defining %s", name);
  return 0;
}

int tanjit_define_symbol(tanjit_session *s, const char *name, void *address,
                         tanjit_error **err) {
  if (!s || !name || !*name || !address)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_define_symbol: session, name and a non-NULL address "
                   "are required");
  pthread_mutex_lock(&s->jit_lock);
  int rc = define_host_symbol(s, name, address, err);
  pthread_mutex_unlock(&s->jit_lock);
  return rc;
}

int tanjit_register_fwd_rule_address(tanjit_session *s, const char *function,
                                     void *derivative, unsigned flags,
                                     tanjit_error **err) {
  if (!s || !function || !*function || !derivative)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_register_fwd_rule_address: session, function and a "
                   "non-NULL derivative are required");
  /* The name messages show for the derivative: what it is, not a made-up
   * symbol. */
  strbuf name;
  sb_init(&name);
  sb_printf(&name, "derivative of %s at %p", function, derivative);
  if (name.failed)
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
  pthread_mutex_lock(&s->jit_lock);
  int rc = define_host_symbol(s, name.data, derivative, err);
  pthread_mutex_unlock(&s->jit_lock);
  if (rc == 0)
    rc = tanjit_register_fwd_rule(s, function, name.data, flags, err);
  sb_free(&name);
  return rc;
}

int tanjit_register_rev_rule_address(tanjit_session *s, const char *function,
                                     void *augmented, void *reverse,
                                     unsigned flags, tanjit_error **err) {
  if (!s || !function || !*function || !reverse)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "tanjit_register_rev_rule_address: session, function and "
                   "a non-NULL reverse are required");
  strbuf aug, rev;
  sb_init(&aug);
  sb_init(&rev);
  if (augmented)
    sb_printf(&aug, "augmented forward of %s at %p", function, augmented);
  sb_printf(&rev, "reverse of %s at %p", function, reverse);
  int rc = -1;
  if (aug.failed || rev.failed) {
    tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
  } else {
    pthread_mutex_lock(&s->jit_lock);
    rc = augmented ? define_host_symbol(s, aug.data, augmented, err) : 0;
    if (rc == 0)
      rc = define_host_symbol(s, rev.data, reverse, err);
    pthread_mutex_unlock(&s->jit_lock);
    if (rc == 0)
      rc = tanjit_register_rev_rule(s, function, augmented ? aug.data : NULL,
                                    rev.data, flags, err);
  }
  sb_free(&aug);
  sb_free(&rev);
  return rc;
}

/* AD_RUNTIME_RELEASE_COPY_SYMBOL (ad.h): one slot for the whole process,
 * so at most one cache copy is held; its block stays reachable from here
 * (leak checkers see it held, not lost). */
static void *_Atomic held_copy;

static void release_copy_late(void *copy) {
  free(atomic_exchange(&held_copy, copy));
}

/* NULL past 1 GiB: the copy is then mapped lazily (rev/blas.c), as
 * Enzyme's fake-BLAS tests' terabyte arrays need; a sanitizer's malloc
 * would stop the program on such a size rather than return NULL. */
static void *alloc_copy(size_t bytes) {
  return bytes > ((size_t)1 << 30) ? NULL : malloc(bytes);
}

/* The run-time report derivative code calls (ad.h: named, not by address,
 * so that a cached object of it is valid in this process too). */
int jit_define_runtime_report(tanjit_session *s, tanjit_error **err) {
  pthread_mutex_lock(&s->jit_lock);
  int rc = define_host_symbol(s, AD_RUNTIME_REPORT_SYMBOL,
                              (void *)(uintptr_t)jit_report_runtime_failure, err);
  if (rc == 0)
    rc = define_host_symbol(s, AD_RUNTIME_TARGET_REPORT_SYMBOL,
                            (void *)(uintptr_t)jit_report_runtime_target, err);
  if (rc == 0)
    rc = define_host_symbol(s, AD_RUNTIME_REPORT_DATA_SYMBOL, s, err);
  if (rc == 0)
    rc = define_host_symbol(s, AD_RUNTIME_RELEASE_COPY_SYMBOL,
                            (void *)(uintptr_t)release_copy_late, err);
  if (rc == 0)
    rc = define_host_symbol(s, AD_RUNTIME_ALLOC_COPY_SYMBOL,
                            (void *)(uintptr_t)alloc_copy, err);
  pthread_mutex_unlock(&s->jit_lock);
  return rc;
}
