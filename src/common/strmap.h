/* A string-keyed hash map (open addressing); keys are copied, values are the
 * caller's.  Not synchronized: callers hold their own lock. */
#ifndef TANJIT_COMMON_STRMAP_H
#define TANJIT_COMMON_STRMAP_H

#include <stddef.h>

typedef struct strmap {
  char **keys;
  void **vals;
  size_t cap, count;
} strmap;

void strmap_init(strmap *m);
void strmap_free(strmap *m); /* frees the keys, not the values */
void *strmap_get(const strmap *m, const char *key);
/* Inserts or replaces; 0, or -1 on out of memory. */
int strmap_put(strmap *m, const char *key, void *val);

#endif
