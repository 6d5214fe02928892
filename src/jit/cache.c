/*
 * The persistent object cache (see cache.h for when a module is cached).
 *
 *   key    XXH3-128 of: the format, tanjit's version and the identity of
 *          the binary holding this code (a rebuild misses), LLVM's version,
 *          the host triple, CPU and features, the opt level, the binding
 *          mode, for request modules the registered custom rules, and the
 *          module's bytes as loaded with its id in the session (which
 *          gives the session-unique names its private symbols get): the
 *          source bytes, so a warm start writes no pristine copy
 *   entry  <dir>/<key in hex>.tjo: a header (magic, format version, key,
 *          payload length, XXH3-64 of the payload) and the object file
 *   store  the object the JIT's object layer sees after codegen, written
 *          to a temporary file in the same directory and renamed over the
 *          entry: readers in other processes see the old entry or the new
 *   fetch  an entry whose header, length or checksum does not match is
 *          ignored (a warning) and rewritten by the compile that follows
 *   bound  after each store, entries beyond the size bound are deleted
 *          oldest first; a hit touches its entry, so the order is LRU
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/Object.h>
#include <llvm-c/TargetMachine.h>
#include <xxhash.h>

#include "common/alloc.h"
#include "common/fdio.h"
#include "common/strbuf.h"
#include "jit/cache.h"
#include "jit/jit.h"

/* 2: derivative code names the run-time report by symbol; objects of 1 may
 * hold another process's addresses */
#define CACHE_FORMAT_VERSION 2u
#define TMP_PREFIX ".tmp-"
#define ENTRY_SUFFIX ".tjo"
/* A temporary file this old is a crashed writer's: eviction removes it. */
#define STALE_TMP_SECONDS 3600

static const char entry_magic[8] = {'T', 'A', 'N', 'J', 'I', 'T', 'O', 'C'};

typedef struct entry_header {
  char magic[8];
  uint32_t format_version;
  uint32_t header_bytes;
  unsigned char key[JIT_CACHE_KEY_BYTES];
  uint64_t payload_bytes;
  uint64_t payload_hash;
} entry_header;

struct jit_cache {
  char *dir;
  size_t max_bytes;
  XXH128_hash_t config;  /* everything but the module and the rules */
  XXH128_hash_t rules;   /* chained over each registered rule */
  int dir_ready;
  int warned_write;      /* one warning per session for failed writes */
};

/* The binary holding this code (libtanjit.so, or a test linking the
 * archive): its path, size and modification time stand for tanjit's
 * build, so a rebuilt tanjit never reuses objects an older one made. */
static void hash_build_identity(XXH3_state_t *st) {
  Dl_info info;
  struct stat sb;
  if (dladdr((void *)hash_build_identity, &info) && info.dli_fname &&
      stat(info.dli_fname, &sb) == 0) {
    XXH3_128bits_update(st, info.dli_fname, strlen(info.dli_fname) + 1);
    long long parts[3] = {(long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
                          (long long)sb.st_mtim.tv_nsec};
    XXH3_128bits_update(st, parts, sizeof parts);
  }
}

static void hash_string(XXH3_state_t *st, const char *s) {
  XXH3_128bits_update(st, s ? s : "", s ? strlen(s) + 1 : 1);
}

jit_cache *jit_cache_new(const char *dir, size_t max_bytes, int opt_level,
                         int binding, int derivative_fp) {
  jit_cache *c = tj_calloc(1, sizeof *c);
  XXH3_state_t *st = XXH3_createState();
  if (!c || !st || !(c->dir = tj_strdup(dir))) {
    XXH3_freeState(st);
    jit_cache_free(c);
    return NULL;
  }
  c->max_bytes = max_bytes ? max_bytes : TANJIT_DEFAULT_CACHE_BYTES;
  XXH3_128bits_reset(st);
  hash_string(st, "tanjit object cache");
  unsigned format = CACHE_FORMAT_VERSION;
  XXH3_128bits_update(st, &format, sizeof format);
  hash_string(st, TANJIT_VERSION_STRING);
  hash_build_identity(st);
  unsigned llvm[3];
  LLVMGetVersion(&llvm[0], &llvm[1], &llvm[2]);
  XXH3_128bits_update(st, llvm, sizeof llvm);
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  hash_string(st, triple);
  hash_string(st, cpu);
  hash_string(st, features);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  /* what changes the code made from one module: the derivative flags too */
  int settings[3] = {opt_level, binding, derivative_fp};
  XXH3_128bits_update(st, settings, sizeof settings);
  c->config = XXH3_128bits_digest(st);
  XXH3_freeState(st);
  return c;
}

void jit_cache_free(jit_cache *c) {
  if (!c)
    return;
  free(c->dir);
  free(c);
}

void jit_cache_note_rule(jit_cache *c, const char *function,
                         const char *derivative, unsigned flags) {
  if (!c)
    return;
  XXH3_state_t *st = XXH3_createState();
  if (!st) { /* no digest to chain: make every later request key unique */
    c->rules.low64 ^= (uint64_t)(uintptr_t)&c->rules + (uint64_t)time(NULL);
    return;
  }
  XXH3_128bits_reset(st);
  XXH3_128bits_update(st, &c->rules, sizeof c->rules);
  hash_string(st, function);
  hash_string(st, derivative);
  XXH3_128bits_update(st, &flags, sizeof flags);
  c->rules = XXH3_128bits_digest(st);
  XXH3_freeState(st);
}

/* Whether m has static constructors or destructors, which LLJIT's IR
 * platform turns into init symbols an object would not carry. */
static int has_structors(LLVMModuleRef m) {
  return LLVMGetNamedGlobal(m, "llvm.global_ctors") ||
         LLVMGetNamedGlobal(m, "llvm.global_dtors");
}

int jit_cache_policy(LLVMModuleRef m, int generated) {
  if (has_structors(m))
    return JIT_CACHE_NEVER;
  /* tanjit_fwddiff's module: the views of every loaded module's pristine
   * copy and the wrapper, so its bytes are the other modules' bytes and
   * the request; looked up when tanjit_fwddiff looks the wrapper up */
  if (generated)
    return JIT_CACHE_AT_LOOKUP;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (ad_is_request_function(f) && LLVMGetFirstUse(f))
      return JIT_CACHE_AT_LOOKUP;
  return JIT_CACHE_AT_ADD;
}

/* A module's bytes as loaded: the source it was parsed from with its id
 * (which names its promoted symbols: the source and the id give the
 * pristine copy, made only when needed), or that pristine copy. */
static void hash_module_bytes(XXH3_state_t *st, const jit_module *rec) {
  LLVMMemoryBufferRef bytes = rec->source ? rec->source : rec->pristine;
  unsigned long id = rec->source ? rec->id : 0;
  size_t len = bytes ? LLVMGetBufferSize(bytes) : 0;
  XXH3_128bits_update(st, &id, sizeof id);
  XXH3_128bits_update(st, &len, sizeof len);
  if (len)
    XXH3_128bits_update(st, LLVMGetBufferStart(bytes), len);
}

/* rec's key as of now; `views`: its requests will see the other modules'
 * code (views.c), whose bytes are keyed in too, in the order views.c links
 * them.  Under the session's lock (the rules digest, the table). */
static void module_key(const tanjit_session *s, const jit_module *rec, int views,
                       unsigned char key[JIT_CACHE_KEY_BYTES]) {
  const jit_cache *c = s->cache;
  XXH3_state_t *st = XXH3_createState();
  XXH128_hash_t h = {0, 0};
  if (st) {
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, &c->config, sizeof c->config);
    int policy = rec->cache_policy;
    XXH3_128bits_update(st, &policy, sizeof policy);
    if (policy == JIT_CACHE_AT_LOOKUP)
      XXH3_128bits_update(st, &c->rules, sizeof c->rules);
    hash_module_bytes(st, rec);
    XXH3_128bits_update(st, &views, sizeof views);
    for (size_t i = 0; views && i < s->n_modules; i++) {
      const jit_module *other = &s->modules[i];
      if (other == rec || other->generated)
        continue;
      hash_module_bytes(st, other);
    }
    h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
  }
  XXH128_canonical_t canon;
  XXH128_canonicalFromHash(&canon, h);
  memcpy(key, canon.digest, JIT_CACHE_KEY_BYTES);
}

static char *entry_path(const jit_cache *c, const unsigned char *key,
                        const char *prefix, unsigned long unique) {
  strbuf p;
  sb_init(&p);
  sb_printf(&p, "%s/%s", c->dir, prefix);
  if (unique)
    sb_printf(&p, "%ld-%lu-", (long)getpid(), unique);
  for (int i = 0; i < JIT_CACHE_KEY_BYTES; i++)
    sb_printf(&p, "%02x", key[i]);
  sb_printf(&p, "%s", ENTRY_SUFFIX);
  if (p.failed) {
    sb_free(&p);
    return NULL;
  }
  return sb_take(&p);
}

static void count(tanjit_session *s, unsigned long *field) {
  jit_session_lock(s);
  (*field)++;
  jit_session_unlock(s);
}

/* Reads and checks the entry for key: its object, or NULL (absent, or not
 * a valid entry: then a warning).  Touches a valid entry (LRU). */
static LLVMMemoryBufferRef fetch(tanjit_session *s, const unsigned char *key) {
  char *path = entry_path(s->cache, key, "", 0);
  if (!path)
    return NULL;
  const char *why = NULL;
  char *data = NULL;
  LLVMMemoryBufferRef obj = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  struct stat sb;
  entry_header h;
  if (fd < 0) {
    if (errno != ENOENT && errno != ENOTDIR) /* no entry, or no directory */
      why = strerror(errno);
  } else if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
    why = "not a regular file";
  } else if ((size_t)sb.st_size < sizeof h ||
             pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
             memcmp(h.magic, entry_magic, sizeof h.magic) ||
             h.header_bytes != sizeof h) {
    why = "not a tanjit cache entry";
  } else if (h.format_version != CACHE_FORMAT_VERSION) {
    why = "another format version";
  } else if (memcmp(h.key, key, JIT_CACHE_KEY_BYTES)) {
    why = "another key";
  } else if (h.payload_bytes != (uint64_t)sb.st_size - sizeof h) {
    why = "truncated or padded";
  } else if (!(data = tj_malloc(h.payload_bytes ? h.payload_bytes : 1))) {
    why = "out of memory";
  } else {
    size_t n = 0;
    while (n < h.payload_bytes) {
      ssize_t got = pread(fd, data + n, h.payload_bytes - n, (off_t)(sizeof h + n));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      n += (size_t)got;
    }
    if (n != h.payload_bytes)
      why = "truncated";
    else if (XXH3_64bits(data, n) != h.payload_hash)
      why = "checksum mismatch";
    else if (!(obj = LLVMCreateMemoryBufferWithMemoryRangeCopy(data, n, path)))
      why = "out of memory";
    else
      futimens(fd, NULL); /* most recently used; failure only skews LRU */
  }
  if (fd >= 0)
    close(fd);
  free(data);
  if (why) {
    count(s, &s->stats.cache_errors);
    jit_add_warning(s, "object cache: ignored entry %s (%s); it is rewritten",
                    path, why);
  }
  free(path);
  return obj;
}

/* Whether LLVM reads buf as an object file (a valid entry of a foreign
 * build cannot reach here, its key differs; this guards a hash collision). */
static int is_object_file(LLVMMemoryBufferRef buf) {
  char *msg = NULL;
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef view = LLVMCreateMemoryBufferWithMemoryRange(
      LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), "cache", 0);
  LLVMBinaryRef bin = LLVMCreateBinary(view, ctx, &msg);
  int ok = bin && LLVMBinaryGetType(bin) >= LLVMBinaryTypeCOFF;
  if (bin)
    LLVMDisposeBinary(bin);
  LLVMDisposeMessage(msg);
  LLVMDisposeMemoryBuffer(view);
  LLVMContextDispose(ctx);
  return ok;
}

/*
 * A module compiled in partitions (parallel.c) is stored as several
 * objects in one payload: PARTS_MAGIC, a uint32_t count, then each
 * object as a uint64_t length and its bytes.  A payload without the magic
 * is one object.
 */
static const char parts_magic[8] = {'T', 'J', 'P', 'A', 'R', 'T', 'S', '1'};

/* The objects of a fetched payload (copies), at most `cap`; 0 when the
 * payload is not a well-formed list. */
static size_t split_parts(LLVMMemoryBufferRef payload, LLVMMemoryBufferRef *out,
                          size_t cap) {
  const char *p = LLVMGetBufferStart(payload);
  size_t len = LLVMGetBufferSize(payload), at = sizeof parts_magic + 4;
  uint32_t count;
  if (len < at || memcmp(p, parts_magic, sizeof parts_magic))
    return 0;
  memcpy(&count, p + sizeof parts_magic, 4);
  if (count == 0 || count > cap)
    return 0;
  size_t n = 0;
  for (; n < count; n++) {
    uint64_t part;
    if (len - at < sizeof part)
      break;
    memcpy(&part, p + at, sizeof part);
    at += sizeof part;
    if (part > len - at)
      break;
    out[n] = LLVMCreateMemoryBufferWithMemoryRangeCopy(p + at, part, "cache part");
    at += part;
  }
  if (n == count && at == len)
    return n;
  while (n)
    LLVMDisposeMemoryBuffer(out[--n]);
  return 0;
}

static int add_one_object(tanjit_session *s, jit_module *rec, LLVMMemoryBufferRef obj);

static int is_parts(LLVMMemoryBufferRef payload) {
  return LLVMGetBufferSize(payload) >= sizeof parts_magic &&
         memcmp(LLVMGetBufferStart(payload), parts_magic, sizeof parts_magic) == 0;
}

/* Adds a fetched payload (one object or several) under rec's tracker
 * (takes it). */
static int add_object(tanjit_session *s, jit_module *rec, LLVMMemoryBufferRef obj) {
  if (!is_parts(obj))
    return add_one_object(s, rec, obj);
  LLVMMemoryBufferRef parts[JIT_MAX_PARTS + 1];
  size_t n = split_parts(obj, parts, JIT_MAX_PARTS + 1);
  LLVMDisposeMemoryBuffer(obj);
  int ok = n > 0;
  for (size_t i = 0; i < n && ok; i++)
    ok = is_object_file(parts[i]);
  if (!ok) {
    for (size_t i = 0; i < n; i++)
      LLVMDisposeMemoryBuffer(parts[i]);
    count(s, &s->stats.cache_errors);
    jit_add_warning(s, "object cache: an entry for %s is not a list of object "
                       "files; it is rewritten", rec->name);
    return 0;
  }
  /* each part is checked: one the JIT refuses now would be a bug */
  for (size_t i = 0; i + 1 < n; i++) {
    LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(s->jit, rec->tracker, parts[i]);
    if (e) {
      char *msg = LLVMGetErrorMessage(e);
      jit_add_warning(s, "object cache: cannot add a cached part of %s: %s",
                      rec->name, msg);
      LLVMDisposeErrorMessage(msg);
    }
  }
  return add_one_object(s, rec, parts[n - 1]);
}

/* Adds a fetched object under rec's tracker (takes obj). */
static int add_one_object(tanjit_session *s, jit_module *rec, LLVMMemoryBufferRef obj) {
  /* the object layer sees this object too: it is not one to store */
  jit_cache_forget_expected();
  if (!is_object_file(obj)) {
    LLVMDisposeMemoryBuffer(obj);
    count(s, &s->stats.cache_errors);
    jit_add_warning(s, "object cache: an entry for %s is not an object file; "
                       "it is rewritten", rec->name);
    return 0;
  }
  LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(s->jit, rec->tracker, obj);
  if (e) {
    char *msg = LLVMGetErrorMessage(e);
    count(s, &s->stats.cache_errors);
    jit_add_warning(s, "object cache: cannot add the cached object of %s: %s",
                    rec->name, msg);
    LLVMDisposeErrorMessage(msg);
    return 0;
  }
  count(s, &s->stats.cache_hits);
  /* Its code holds addresses, but which names it binds to is not known
   * without its IR: tanjit_unload re-links it whenever anything goes. */
  rec->compiled = 1;
  rec->references_unknown = 1;
  return 1;
}

int jit_cache_add_hit(tanjit_session *s, jit_module *rec) {
  if (!s->cache || rec->cache_policy != JIT_CACHE_AT_ADD)
    return 0;
  unsigned char key[JIT_CACHE_KEY_BYTES];
  jit_session_lock(s);
  module_key(s, rec, 0, key); /* no requests: no views */
  jit_session_unlock(s);
  LLVMMemoryBufferRef obj = fetch(s, key);
  return obj && add_object(s, rec, obj);
}

void jit_cache_swap_for_lookup(tanjit_session *s, const char *symbol) {
  if (!s->cache)
    return;
  unsigned char key[JIT_CACHE_KEY_BYTES];
  unsigned long id = 0;
  LLVMModuleRef ir = NULL;
  jit_session_lock(s);
  for (size_t i = 0; i < s->n_modules && !id; i++) {
    jit_module *rec = &s->modules[i];
    if (rec->cache_policy != JIT_CACHE_AT_LOOKUP || !rec->pending || rec->failed)
      continue;
    for (size_t k = 0; k < rec->n_defined; k++)
      if (strcmp(rec->defined[k], symbol) == 0) {
        id = rec->id;
        ir = rec->pending;
        break;
      }
  }
  jit_session_unlock(s);
  if (!id)
    return;
  /* This lookup compiles the module: what its transform would see now is
   * what it would see then (nothing else runs under jit_lock).  Its IR is
   * only read. */
  int views = jit_views_needed(s, ir);
  jit_session_lock(s);
  jit_module *keyed = jit_module_by_id(s, id);
  if (keyed)
    module_key(s, keyed, views, key);
  jit_session_unlock(s);
  LLVMMemoryBufferRef obj = fetch(s, key);
  if (!obj || !(is_parts(obj) || is_object_file(obj))) {
    if (obj)
      LLVMDisposeMemoryBuffer(obj);
    return;
  }
  /* Under jit_lock nothing else compiles or adds: the module's IR, not
   * materialized, is dropped and its object takes its place under a new
   * tracker.  The record stays where it is (lock only guards the table). */
  jit_session_lock(s);
  jit_module *rec = jit_module_by_id(s, id);
  if (!rec) { /* (cannot happen under jit_lock: kept for safety) */
    jit_session_unlock(s);
    LLVMDisposeMemoryBuffer(obj);
    return;
  }
  LLVMOrcResourceTrackerRef old = rec->tracker;
  rec->tracker = LLVMOrcJITDylibCreateResourceTracker(s->main_jd);
  rec->pending = NULL;
  jit_session_unlock(s);
  LLVMErrorRef e = LLVMOrcResourceTrackerRemove(old);
  LLVMOrcReleaseResourceTracker(old);
  if (e) {
    LLVMConsumeError(e);
    rec->failed = 1;
    LLVMDisposeMemoryBuffer(obj);
    return;
  }
  if (!add_object(s, rec, obj))
    rec->failed = 1; /* its IR is gone: the lookup fails and removes it */
}

/* The key of the object this thread's object layer will see next, and
 * the partitions' objects (parallel.c) stored with it. */
static _Thread_local int expecting_object;
static _Thread_local unsigned char expected_key[JIT_CACHE_KEY_BYTES];
static _Thread_local LLVMMemoryBufferRef expected_parts[JIT_MAX_PARTS];
static _Thread_local size_t n_expected_parts;

static void forget_parts(void) {
  while (n_expected_parts)
    LLVMDisposeMemoryBuffer(expected_parts[--n_expected_parts]);
}

void jit_cache_forget_expected(void) {
  expecting_object = 0;
  forget_parts();
}

void jit_cache_expect_parts(LLVMMemoryBufferRef *objects, size_t n) {
  forget_parts();
  if (!expecting_object)
    return;
  for (size_t i = 0; i < n && i < JIT_MAX_PARTS; i++)
    expected_parts[n_expected_parts++] = LLVMCreateMemoryBufferWithMemoryRangeCopy(
        LLVMGetBufferStart(objects[i]), LLVMGetBufferSize(objects[i]), "part");
}

void jit_cache_expect_object(tanjit_session *s, LLVMModuleRef m) {
  jit_cache_forget_expected();
  if (!s->cache)
    return;
  /* (m is transformed by now: its requests are gone, the views too; the
   * question is asked of its pristine copy's answer at transform time,
   * kept by the transform) */
  int views = jit_thread_linked_views;
  unsigned long id = jit_module_id_of(m);
  jit_session_lock(s);
  jit_module *rec = jit_module_by_id(s, id);
  if (rec && rec->cache_policy != JIT_CACHE_NEVER) {
    module_key(s, rec, views, expected_key);
    expecting_object = 1;
    s->stats.cache_misses++;
  }
  jit_session_unlock(s);
}

static int ensure_dir(const char *dir) {
  struct stat sb;
  if (stat(dir, &sb) == 0)
    return S_ISDIR(sb.st_mode) ? 0 : (errno = ENOTDIR, -1);
  /* parents first (XDG's ~/.cache may not exist yet) */
  char *copy = tj_strdup(dir);
  if (!copy)
    return -1;
  for (char *p = copy + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(copy, 0700) && errno != EEXIST) {
        free(copy);
        return -1;
      }
      *p = '/';
    }
  free(copy);
  return mkdir(dir, 0700) && errno != EEXIST ? -1 : 0;
}

typedef struct entry_stat {
  char *path;
  off_t size;
  struct timespec used;
} entry_stat;

static int older_first(const void *a, const void *b) {
  const entry_stat *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec)
    return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  if (x->used.tv_nsec != y->used.tv_nsec)
    return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
  return strcmp(x->path, y->path);
}

/* Deletes entries, least recently used first, until the directory's
 * entries fit the bound, and temporary files crashed writers left.  Other
 * processes may delete the same files: ENOENT is fine. */
static void evict(tanjit_session *s) {
  jit_cache *c = s->cache;
  DIR *d = opendir(c->dir);
  if (!d)
    return;
  entry_stat *entries = NULL;
  size_t n = 0, cap = 0;
  unsigned long long total = 0;
  time_t now = time(NULL);
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    int is_tmp = strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0;
    int is_entry = !is_tmp && len > strlen(ENTRY_SUFFIX) &&
                   strcmp(de->d_name + len - strlen(ENTRY_SUFFIX), ENTRY_SUFFIX) == 0;
    if (!is_tmp && !is_entry)
      continue;
    strbuf p;
    sb_init(&p);
    sb_printf(&p, "%s/%s", c->dir, de->d_name);
    struct stat sb;
    if (p.failed || lstat(p.data, &sb) || !S_ISREG(sb.st_mode)) {
      sb_free(&p);
      continue;
    }
    if (is_tmp) {
      if (now - sb.st_mtim.tv_sec > STALE_TMP_SECONDS)
        unlink(p.data);
      sb_free(&p);
      continue;
    }
    if (n == cap) {
      size_t ncap = cap ? 2 * cap : 64;
      entry_stat *q = tj_realloc(entries, ncap * sizeof *q);
      if (!q) {
        sb_free(&p);
        break;
      }
      entries = q;
      cap = ncap;
    }
    entries[n++] = (entry_stat){sb_take(&p), sb.st_size, sb.st_mtim};
    total += (unsigned long long)sb.st_size;
  }
  closedir(d);
  if (total > c->max_bytes && n) {
    qsort(entries, n, sizeof *entries, older_first);
    for (size_t i = 0; i < n && total > c->max_bytes; i++)
      if (unlink(entries[i].path) == 0 || errno == ENOENT) {
        total -= (unsigned long long)entries[i].size;
        count(s, &s->stats.cache_evictions);
      }
  }
  for (size_t i = 0; i < n; i++)
    free(entries[i].path);
  free(entries);
}

static void write_failed(tanjit_session *s, const char *what, int e) {
  count(s, &s->stats.cache_errors);
  jit_session_lock(s);
  int first = !s->cache->warned_write;
  s->cache->warned_write = 1;
  jit_session_unlock(s);
  if (first)
    jit_add_warning(s, "object cache: cannot write to %s (%s: %s); compiled "
                       "code is not cached",
                    s->cache->dir, what, strerror(e));
}

static void store(tanjit_session *s, const unsigned char *key, const void *obj,
                  size_t len) {
  jit_cache *c = s->cache;
  if (!c->dir_ready) {
    if (ensure_dir(c->dir)) {
      write_failed(s, "creating the directory", errno);
      return;
    }
    c->dir_ready = 1;
  }
  static unsigned long writes; /* tells this process's temporary files apart */
  unsigned long unique = __atomic_add_fetch(&writes, 1, __ATOMIC_RELAXED);
  char *tmp = entry_path(c, key, TMP_PREFIX, unique);
  char *path = entry_path(c, key, "", 0);
  if (!tmp || !path) {
    free(tmp);
    free(path);
    return;
  }
  entry_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, entry_magic, sizeof h.magic);
  h.format_version = CACHE_FORMAT_VERSION;
  h.header_bytes = sizeof h;
  memcpy(h.key, key, JIT_CACHE_KEY_BYTES);
  h.payload_bytes = len;
  h.payload_hash = XXH3_64bits(obj, len);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    write_failed(s, "creating a file", errno);
  } else {
    int bad = tj_write_all(fd, &h, sizeof h) || tj_write_all(fd, obj, len);
    int e = errno;
    if (close(fd) && !bad) {
      bad = 1;
      e = errno;
    }
    if (bad) {
      write_failed(s, "writing", e);
      unlink(tmp);
    } else if (rename(tmp, path)) {
      write_failed(s, "renaming", errno);
      unlink(tmp);
    } else {
      evict(s);
    }
  }
  free(tmp);
  free(path);
}

void jit_cache_note_object(tanjit_session *s, LLVMMemoryBufferRef obj) {
  if (!expecting_object)
    return;
  expecting_object = 0;
  if (!s->cache || !obj) {
    forget_parts();
    return;
  }
  if (!n_expected_parts) {
    store(s, expected_key, LLVMGetBufferStart(obj), LLVMGetBufferSize(obj));
    return;
  }
  /* the partitions, then the module's own object (its data) */
  strbuf payload;
  sb_init(&payload);
  uint32_t n = (uint32_t)n_expected_parts + 1;
  sb_appendn(&payload, parts_magic, sizeof parts_magic);
  sb_appendn(&payload, (const char *)&n, sizeof n);
  for (uint32_t i = 0; i < n; i++) {
    LLVMMemoryBufferRef part = i + 1 < n ? expected_parts[i] : obj;
    uint64_t len = LLVMGetBufferSize(part);
    sb_appendn(&payload, (const char *)&len, sizeof len);
    sb_appendn(&payload, LLVMGetBufferStart(part), len);
  }
  forget_parts();
  if (!payload.failed)
    store(s, expected_key, payload.data, payload.len);
  sb_free(&payload);
}
