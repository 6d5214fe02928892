/* A pointer-keyed map (common/hashmap.h by identity): the engine's value
 * map, shadow map, activity set and memos. */
#ifndef TANJIT_AD_CORE_MAP_H
#define TANJIT_AD_CORE_MAP_H

#include "common/hashmap.h"

typedef tj_hashmap ad_map;

static inline void ad_map_init(ad_map *m) {
  tj_hashmap_init(m, TJ_KEYS_POINTERS);
}
static inline void ad_map_free(ad_map *m) { tj_hashmap_free(m); }
/* 0, or -1 on out of memory. */
static inline int ad_map_put(ad_map *m, const void *key, void *val) {
  return tj_hashmap_put(m, key, val);
}
static inline void *ad_map_get(const ad_map *m, const void *key) {
  return tj_hashmap_get(m, key);
}

#endif
