/*
 * The allocator every heap allocation of tanjit's own code goes through
 * (LLVM's allocations do not), so that tests can make allocation number N
 * fail and check that each caller turns it into TANJIT_ERR_NO_MEMORY and
 * leaves the session usable (SQLite's fault injection, Lua's allocation
 * limits).  Memory from these is released with free(); tj_free is free.
 *
 * The fault hook is internal (hidden in libtanjit; the test suite links the
 * static archive): tests only.
 */
#ifndef TANJIT_COMMON_ALLOC_H
#define TANJIT_COMMON_ALLOC_H

#include <stddef.h>

void *tj_malloc(size_t n);
void *tj_calloc(size_t count, size_t size);
void *tj_realloc(void *p, size_t n);
void tj_free(void *p);
/* A growing array's storage: p itself when its capacity *cap (elements of
 * `size` bytes) holds `need`, else p reallocated to the next doubling of
 * *cap (from `first` when 0) that does, *cap updated; NULL when out of
 * memory, p then still valid and *cap unchanged.  The one copy of the
 * push-back pattern:
 *     T *g = tj_grow(a->v, &a->cap, a->n + 1, sizeof *g, 16);
 *     if (!g) return -1;
 *     a->v = g;
 *     a->v[a->n++] = x;  */
void *tj_grow(void *p, size_t *cap, size_t need, size_t size, size_t first);
/* Heap copies (strbuf.c), from tj_malloc; tj_strndup copies at most n
 * bytes and stops at a NUL. */
char *tj_strdup(const char *s);
char *tj_strndup(const char *s, size_t n);

/*
 * Test hook.  tj_alloc_fail_at(n) counts allocations from now on and makes
 * the n-th fail (n >= 1), then, if `persistent`, every later one too;
 * n == 0 turns faults off but keeps counting.  tj_alloc_count() is the
 * number of allocations counted since the last call to tj_alloc_fail_at,
 * and tj_alloc_faults() how many of them were made to fail.  Counters are
 * atomic: allocations on other threads count too.
 */
void tj_alloc_fail_at(unsigned long n, int persistent);
unsigned long tj_alloc_count(void);
unsigned long tj_alloc_faults(void);

#endif
