/* A string-keyed map: common/hashmap.h with string keys (copied); values
 * are the caller's.  Not synchronized: callers hold their own lock. */
#ifndef TANJIT_COMMON_STRMAP_H
#define TANJIT_COMMON_STRMAP_H

#include "common/hashmap.h"

typedef tj_hashmap strmap;

static inline void strmap_init(strmap *m) {
  tj_hashmap_init(m, TJ_KEYS_STRINGS);
}
/* Frees the keys, not the values. */
static inline void strmap_free(strmap *m) { tj_hashmap_free(m); }
static inline void *strmap_get(const strmap *m, const char *key) {
  return tj_hashmap_get(m, key);
}
/* Inserts or replaces; 0, or -1 on out of memory. */
static inline int strmap_put(strmap *m, const char *key, void *val) {
  return tj_hashmap_put(m, key, val);
}

#endif
