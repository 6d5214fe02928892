/*
 * A pointer-keyed hash map (open addressing, linear probing).  The engine's
 * value map, shadow map and activity set are all one of these: LLVM-C gives
 * no ValueMap, and LLVMValueRef identity is value identity.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ad/core/map.h"

void ad_map_init(ad_map *m) {
  m->keys = m->vals = NULL;
  m->cap = m->count = 0;
}

void ad_map_free(ad_map *m) {
  free(m->keys);
  free(m->vals);
  ad_map_init(m);
}

static size_t slot_of(const void *key, size_t cap) {
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  return (size_t)h & (cap - 1);
}

static int grow(ad_map *m) {
  size_t ncap = m->cap ? m->cap * 2 : 64;
  void **nk = calloc(ncap, sizeof *nk), **nv = calloc(ncap, sizeof *nv);
  if (!nk || !nv) {
    free(nk);
    free(nv);
    return -1;
  }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i])
      continue;
    size_t s = slot_of(m->keys[i], ncap);
    while (nk[s])
      s = (s + 1) & (ncap - 1);
    nk[s] = m->keys[i];
    nv[s] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  m->keys = nk;
  m->vals = nv;
  m->cap = ncap;
  return 0;
}

int ad_map_put(ad_map *m, const void *key, void *val) {
  if ((m->count + 1) * 2 > m->cap && grow(m) != 0)
    return -1;
  size_t s = slot_of(key, m->cap);
  while (m->keys[s] && m->keys[s] != key)
    s = (s + 1) & (m->cap - 1);
  if (!m->keys[s])
    m->count++;
  m->keys[s] = (void *)key;
  m->vals[s] = val;
  return 0;
}

void *ad_map_get(const ad_map *m, const void *key) {
  if (!m->cap || !key)
    return NULL;
  size_t s = slot_of(key, m->cap);
  while (m->keys[s]) {
    if (m->keys[s] == key)
      return m->vals[s];
    s = (s + 1) & (m->cap - 1);
  }
  return NULL;
}
