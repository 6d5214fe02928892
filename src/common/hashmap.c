#include "common/alloc.h"
#include "common/hashmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"

void tj_hashmap_init(tj_hashmap *m, tj_key_kind kind) {
  m->keys = m->vals = NULL;
  m->cap = m->count = 0;
  m->kind = kind;
}

void tj_hashmap_free(tj_hashmap *m) {
  if (m->kind == TJ_KEYS_STRINGS)
    for (size_t i = 0; i < m->cap; i++)
      free(m->keys[i]);
  free(m->keys);
  free(m->vals);
  tj_hashmap_init(m, m->kind);
}

static size_t hash_of(tj_key_kind kind, const void *key) {
  if (kind == TJ_KEYS_STRINGS) { /* FNV-1a */
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *s = key; *s; s++)
      h = (h ^ *s) * 1099511628211ull;
    return (size_t)h;
  }
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  return (size_t)h;
}

static int same_key(tj_key_kind kind, const void *a, const void *b) {
  return kind == TJ_KEYS_STRINGS ? strcmp(a, b) == 0 : a == b;
}

/* The slot holding `key`, or the empty slot where it belongs (cap > count). */
static size_t find_slot(tj_key_kind kind, void **keys, size_t cap,
                        const void *key) {
  size_t i = hash_of(kind, key) & (cap - 1);
  while (keys[i] && !same_key(kind, keys[i], key))
    i = (i + 1) & (cap - 1);
  return i;
}

void *tj_hashmap_get(const tj_hashmap *m, const void *key) {
  if (!m->cap || !key)
    return NULL;
  size_t i = find_slot(m->kind, m->keys, m->cap, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

static int grow(tj_hashmap *m) {
  size_t cap = m->cap ? 2 * m->cap : m->kind == TJ_KEYS_STRINGS ? 16 : 64;
  void **keys = tj_calloc(cap, sizeof *keys), **vals = tj_calloc(cap, sizeof *vals);
  if (!keys || !vals) {
    free(keys);
    free(vals);
    return -1;
  }
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i]) {
      size_t j = find_slot(m->kind, keys, cap, m->keys[i]);
      keys[j] = m->keys[i];
      vals[j] = m->vals[i];
    }
  free(m->keys);
  free(m->vals);
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
  return 0;
}

int tj_hashmap_put(tj_hashmap *m, const void *key, void *val) {
  if (2 * (m->count + 1) > m->cap && grow(m))
    return -1;
  size_t i = find_slot(m->kind, m->keys, m->cap, key);
  if (!m->keys[i]) {
    void *k = m->kind == TJ_KEYS_STRINGS ? tj_strdup(key) : (void *)key;
    if (!k)
      return -1;
    m->keys[i] = k;
    m->count++;
  }
  m->vals[i] = val;
  return 0;
}
