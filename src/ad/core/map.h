/* A pointer-keyed hash map (open addressing): the engine's value map,
 * shadow map, activity set and memos.  LLVM-C has no ValueMap, and
 * LLVMValueRef identity is value identity. */
#ifndef TANJIT_AD_CORE_MAP_H
#define TANJIT_AD_CORE_MAP_H

#include <stddef.h>

typedef struct ad_map {
  void **keys, **vals;
  size_t cap, count;
} ad_map;
void ad_map_init(ad_map *m);
void ad_map_free(ad_map *m);
/* 0, or -1 on out of memory. */
int ad_map_put(ad_map *m, const void *key, void *val);
void *ad_map_get(const ad_map *m, const void *key);

#endif
