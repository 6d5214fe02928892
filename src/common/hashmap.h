/*
 * The one hash map of tanjit (open addressing, linear probing, load under
 * 1/2), keyed either by pointer identity (the engine's value maps: LLVM-C
 * has no ValueMap, and LLVMValueRef identity is value identity) or by
 * string (keys copied).  common/strmap.h and src/ad/core/map.h are its two
 * typed faces.  Not synchronized: callers hold their own lock.
 */
#ifndef TANJIT_COMMON_HASHMAP_H
#define TANJIT_COMMON_HASHMAP_H

#include <stddef.h>

typedef enum tj_key_kind {
  TJ_KEYS_POINTERS, /* compared by identity; never dereferenced */
  TJ_KEYS_STRINGS   /* NUL-terminated; the map keeps a copy */
} tj_key_kind;

typedef struct tj_hashmap {
  void **keys, **vals; /* a NULL key is an empty slot */
  size_t cap, count;
  tj_key_kind kind;
} tj_hashmap;

void tj_hashmap_init(tj_hashmap *m, tj_key_kind kind);
/* Frees the table (and copied string keys), not the values. */
void tj_hashmap_free(tj_hashmap *m);
/* The value for key, or NULL (also for a NULL key). */
void *tj_hashmap_get(const tj_hashmap *m, const void *key);
/* Inserts or replaces; 0, or -1 on out of memory. */
int tj_hashmap_put(tj_hashmap *m, const void *key, void *val);

#endif
