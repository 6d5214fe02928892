/*
 * The persistent object cache (cache.c): compiled modules kept as object
 * files in a directory, keyed by an XXH3-128 hash of everything that can
 * change their code, so a later session (or process) skips transform,
 * optimization and code generation.
 *
 * When a module is decided (jit_cache_policy):
 *   JIT_CACHE_NEVER      not cached: tanjit_fwddiff's modules (made of other
 *                        modules' views), modules with static constructors
 *                        or destructors, and modules with requests whose
 *                        derivatives could see other modules (a declared
 *                        function, an indirect call: views.c)
 *   JIT_CACHE_AT_ADD     no requests: the code depends on the bytes and the
 *                        session's settings only; a hit is added at load
 *   JIT_CACHE_AT_LOOKUP  requests: the code also depends on the custom
 *                        rules registered until it compiles; a hit replaces
 *                        the IR at the lookup that compiles the module
 * A failure of the cache is a session warning, never a failed load.
 */
#ifndef TANJIT_JIT_CACHE_H
#define TANJIT_JIT_CACHE_H

#include <stddef.h>

#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>

#include "tanjit/tanjit.h"

typedef struct jit_cache jit_cache;
struct jit_module;

enum { JIT_CACHE_NEVER = 0, JIT_CACHE_AT_ADD = 1, JIT_CACHE_AT_LOOKUP = 2 };
#define JIT_CACHE_KEY_BYTES 16

/* A cache in `dir` (created when first written), holding at most max_bytes
 * (0: the default).  NULL only when out of memory. */
jit_cache *jit_cache_new(const char *dir, size_t max_bytes, int opt_level,
                         int binding, int derivative_fp);
void jit_cache_free(jit_cache *c); /* NULL-tolerant */
/* A rule registered with tanjit_register_fwd_rule, keyed into later
 * request modules.  Under the session's lock. */
void jit_cache_note_rule(jit_cache *c, const char *function,
                         const char *derivative, unsigned flags);
/* How module m (parsed, about to be added) may be cached. */
int jit_cache_policy(LLVMModuleRef m, int generated);
/* With the module's tracker in rec: on a hit adds the cached object under
 * it and returns 1; 0 on a miss (nothing added).  Under jit_lock, not lock. */
int jit_cache_add_hit(tanjit_session *s, struct jit_module *rec);
/* Before tanjit_lookup(symbol) compiles: an AT_LOOKUP module defining it
 * whose object is cached has its IR replaced by the object.  Under jit_lock. */
void jit_cache_swap_for_lookup(tanjit_session *s, const char *symbol);
/* After module m's transform succeeded: its object (the next one this
 * thread's object layer sees) is stored, keyed as of now. */
void jit_cache_expect_object(tanjit_session *s, LLVMModuleRef m);
/* The object layer's view of each object: stores it when expected. */
void jit_cache_note_object(tanjit_session *s, LLVMMemoryBufferRef obj);
/* Forgets an expected object (its compile failed). */
void jit_cache_forget_expected(void);

#endif
