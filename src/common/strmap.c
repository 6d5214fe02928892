#include "common/alloc.h"
#include "common/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"

void strmap_init(strmap *m) { memset(m, 0, sizeof *m); }

void strmap_free(strmap *m) {
  for (size_t i = 0; i < m->cap; i++)
    free(m->keys[i]);
  free(m->keys);
  free(m->vals);
  strmap_init(m);
}

static size_t hash_string(const char *s) { /* FNV-1a */
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return (size_t)h;
}

/* The slot holding `key`, or the empty slot where it belongs.  cap > count. */
static size_t find_slot(char **keys, size_t cap, const char *key) {
  size_t i = hash_string(key) & (cap - 1);
  while (keys[i] && strcmp(keys[i], key) != 0)
    i = (i + 1) & (cap - 1);
  return i;
}

void *strmap_get(const strmap *m, const char *key) {
  if (!m->cap)
    return NULL;
  size_t i = find_slot(m->keys, m->cap, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

static int grow(strmap *m) {
  size_t cap = m->cap ? 2 * m->cap : 16;
  char **keys = tj_calloc(cap, sizeof *keys);
  void **vals = tj_calloc(cap, sizeof *vals);
  if (!keys || !vals) {
    free(keys);
    free(vals);
    return -1;
  }
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i]) {
      size_t j = find_slot(keys, cap, m->keys[i]);
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

int strmap_put(strmap *m, const char *key, void *val) {
  /* Keep the load factor under 1/2 so probes stay short. */
  if (2 * (m->count + 1) > m->cap && grow(m))
    return -1;
  size_t i = find_slot(m->keys, m->cap, key);
  if (!m->keys[i]) {
    if (!(m->keys[i] = tj_strdup(key)))
      return -1;
    m->count++;
  }
  m->vals[i] = val;
  return 0;
}
