/*
 * Symbol resolution: one ORC definition generator on the main JITDylib,
 * consulted for every name the loaded modules do not define themselves.
 *
 *   ejlstr$<fn>$<lib>   a Julia-style lazily bound ccall: <lib> (a soname or
 *                       an absolute path, everything after the second `$`,
 *                       so a path holding `$` still works) is opened once per
 *                       session RTLD_LAZY|RTLD_LOCAL and <fn> looked up in
 *                       that handle.  Never made global.
 *   ejlptr$<fn>$<addr>  the same with a handle already open in the process.
 *   any other name      the libraries registered with tanjit_add_library, in
 *                       registration order; else left to LLJIT's process
 *                       symbol JITDylib, which follows the main one; else,
 *                       for the few entry points a newer compiler calls and
 *                       an older runtime lacks, a definition of what the
 *                       older compiler did (runtime_fallbacks.c).
 *
 * Under lazy binding, a name nothing provides is defined as a stub that
 * reports the call (stub.c).  Under strict binding, a renamed ccall that
 * cannot be bound fails the lookup with the reason (dlerror text, allow-list)
 * and a plain name is left unresolved for ORC to report.
 *
 * Unlike PostgreSQL's generator, which defines every requested name (address
 * 0 plus a warning), this one claims only what it can bind.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/rename.h"
#include "common/strbuf.h"
#include "jit/jit.h"

typedef struct library {
  char *name; /* as the session was given it */
  void *handle;
  char *why; /* dlerror text when handle is NULL (renamed ccalls only) */
} library;

typedef struct library_list {
  library *items;
  size_t n, cap;
} library_list;

struct jit_resolver {
  tanjit_session *session;
  pthread_mutex_t lock;
  library_list registered; /* tanjit_add_library, in order */
  library_list renamed;    /* opened for ejlstr$ names, by name as written */
  char **kept;             /* strings stubs point at */
  size_t n_kept, cap_kept;
};


static int list_push(library_list *l, library lib) {
  library *p = tj_grow(l->items, &l->cap, l->n + 1, sizeof *p, 8);
  if (!p)
    return -1;
  l->items = p;
  l->items[l->n++] = lib;
  return 0;
}

static void list_free(library_list *l) {
  for (size_t i = 0; i < l->n; i++) {
    if (l->items[i].handle)
      dlclose(l->items[i].handle);
    free(l->items[i].name);
    free(l->items[i].why);
  }
  free(l->items);
}

const char *jit_resolver_keep_string(jit_resolver *r, const char *s) {
  char *copy = tj_strdup(s ? s : "");
  if (!copy)
    return NULL;
  pthread_mutex_lock(&r->lock);
  char **p = tj_grow(r->kept, &r->cap_kept, r->n_kept + 1, sizeof *p, 16);
  if (!p) {
    pthread_mutex_unlock(&r->lock);
    free(copy);
    return NULL;
  }
  r->kept = p;
  r->kept[r->n_kept++] = copy;
  pthread_mutex_unlock(&r->lock);
  return copy;
}

static char *dl_error_copy(void) {
  const char *e = dlerror();
  return tj_strdup(e ? e : "unknown dlopen error");
}

/* Opens one spelling of a library: the search directories first (for a
 * bare name), then the system's search. */
static void *open_spelling(tanjit_session *s, const char *name, char **why) {
  if (!strchr(name, '/') && s->library_dirs) {
    for (char **dir = s->library_dirs; *dir; dir++) {
      strbuf path;
      sb_init(&path);
      sb_printf(&path, "%s/%s", *dir, name);
      if (!path.failed && access(path.data, F_OK) == 0) {
        void *h = dlopen(path.data, RTLD_LAZY | RTLD_LOCAL);
        if (!h)
          *why = dl_error_copy();
        sb_free(&path);
        return h;
      }
      sb_free(&path);
    }
  }
  void *h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
  if (!h)
    *why = dl_error_copy();
  return h;
}

void *jit_open_library(tanjit_session *s, const char *name, char **why) {
  *why = NULL;
  void *h = open_spelling(s, name, why);
  /* Julia names libraries without their extension ("libcuda"), as its own
   * dlopen adds it; so does this one, keeping the first failure's text. */
  if (!h && !strchr(name, '/') && !strstr(name, ".so")) {
    strbuf with_ext;
    sb_init(&with_ext);
    sb_printf(&with_ext, "%s.so", name);
    char *second_why = NULL;
    if (!with_ext.failed)
      h = open_spelling(s, with_ext.data, &second_why);
    free(second_why);
    sb_free(&with_ext);
    if (h) {
      free(*why);
      *why = NULL;
    }
  }
  return h;
}

/* Whether a bare allow-list entry names `name`, as written or with the
 * ".so" jit_open_library adds to a name without one. */
static int bare_entry_matches(const char *entry, const char *name) {
  size_t n = strlen(name);
  return strcmp(entry, name) == 0 ||
         (!strstr(name, ".so") && strncmp(entry, name, n) == 0 &&
          strcmp(entry + n, ".so") == 0);
}

/*
 * Whether the allow-list lets a renamed ccall open `name`.  A bare entry
 * allows the bare name only (a path ending in it could be any file); an
 * entry with a '/' allows the file it names, compared by canonical path, so
 * neither ./elsewhere/ nor a symlink reaches another file.  For an allowed
 * path, *canonical is its realpath (caller frees), which is what is then
 * opened: the file that was checked.
 */
static int library_allowed(tanjit_session *s, const char *name,
                           char **canonical) {
  *canonical = NULL;
  if (!s->allowed_libraries)
    return 1;
  if (!strchr(name, '/')) {
    for (char **a = s->allowed_libraries; *a; a++)
      if (!strchr(*a, '/') && bare_entry_matches(*a, name))
        return 1;
    return 0;
  }
  char *real = realpath(name, NULL);
  if (!real)
    return 0;
  for (char **a = s->allowed_libraries; *a; a++) {
    if (!strchr(*a, '/'))
      continue;
    char *entry = realpath(*a, NULL);
    int same = entry && strcmp(entry, real) == 0;
    free(entry);
    if (same) {
      *canonical = real;
      return 1;
    }
  }
  free(real);
  return 0;
}

/*
 * Whether `address` is the start of a data symbol (an ELF object, TLS or
 * common symbol) of a loaded object.  Code and addresses no object's symbol
 * table describes (JIT code, a stripped object) are not.
 */
int jit_address_is_data(const void *address) {
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (!dladdr1(address, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
      info.dli_saddr != address)
    return 0;
  int type = ELF64_ST_TYPE(sym->st_info);
  return type == STT_OBJECT || type == STT_TLS || type == STT_COMMON;
}

/* The file holding `address`, for messages (borrowed from the loader). */
static const char *object_file_of(const void *address) {
  Dl_info info;
  if (dladdr(address, &info) && info.dli_fname && *info.dli_fname)
    return info.dli_fname;
  return "the process";
}

int jit_resolver_add_library(jit_resolver *r, const char *path,
                             tanjit_error **err) {
  char *why;
  void *h = jit_open_library(r->session, path, &why);
  if (!h) {
    tj_fail(err, TANJIT_ERR_LIBRARY, "cannot load library %s: %s", path,
            why ? why : "");
    free(why);
    return -1;
  }
  library lib = {tj_strdup(path), h, NULL};
  pthread_mutex_lock(&r->lock);
  int failed = !lib.name || list_push(&r->registered, lib);
  pthread_mutex_unlock(&r->lock);
  if (failed) {
    free(lib.name);
    dlclose(h);
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory adding %s", path);
  }
  return 0;
}

/* The handle for a renamed ccall's library, opened once per session; on
 * failure NULL and *why (borrowed from the cache).  Under r->lock. */
static void *renamed_library(jit_resolver *r, const char *lib,
                             const char **why) {
  for (size_t i = 0; i < r->renamed.n; i++)
    if (strcmp(r->renamed.items[i].name, lib) == 0) {
      *why = r->renamed.items[i].why;
      return r->renamed.items[i].handle;
    }
  library entry = {tj_strdup(lib), NULL, NULL};
  char *canonical;
  if (!library_allowed(r->session, lib, &canonical))
    entry.why = tj_strdup(strchr(lib, '/')
                              ? "not in the session's library allow-list (a "
                                "path is allowed only by an entry naming the "
                                "same file)"
                              : "not in the session's library allow-list");
  else
    entry.handle = jit_open_library(r->session, canonical ? canonical : lib,
                                    &entry.why);
  free(canonical);
  if (!entry.name || list_push(&r->renamed, entry)) {
    free(entry.name);
    free(entry.why);
    if (entry.handle)
      dlclose(entry.handle);
    *why = "out of memory";
    return NULL;
  }
  *why = entry.why;
  return entry.handle;
}

/* Outcome of resolving one name. */
typedef struct binding {
  void *address;       /* non-NULL: bind here */
  int unresolvable;    /* a name we own that cannot be bound */
  tanjit_error_code code; /* then: why, as a code */
  char *fn;            /* the function part of a renamed name (owned) */
  const char *library; /* NULL for plain names */
  char why[512];
} binding;

/* dl_iterate_phdr callback: whether the object's handle is the one sought. */
static int handle_matches(struct dl_phdr_info *info, size_t size, void *ctx) {
  (void)size;
  void **sought = ctx;
  const char *name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : NULL;
  void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
  if (!h)
    return 0;
  int found = h == sought[0];
  dlclose(h);
  if (found)
    sought[1] = h;
  return found;
}

/*
 * The handle an `ejlptr$fn$<handle>` name carries, if it is one of the
 * handles of the objects loaded in this process; NULL otherwise.  dlsym on
 * anything else would crash, and 0 would mean RTLD_DEFAULT.
 */
static void *open_handle_named_by(const char *text) {
  char *end;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 0);
  if (errno || end == text || *end || value == 0)
    return NULL;
  void *sought[2] = {(void *)(uintptr_t)value, NULL};
  dl_iterate_phdr(handle_matches, sought);
  return sought[1];
}

static void resolve_renamed(jit_resolver *r, const char *name, binding *b) {
  tj_rename rn;
  int parsed = tj_parse_rename(name, &rn);
  int by_handle = parsed == 1 ? rn.kind == TJ_RENAME_FROM_HANDLE
                              : strncmp(name, TJ_RENAME_HANDLE,
                                        sizeof TJ_RENAME_HANDLE - 1) == 0;
  if (parsed != 1) {
    b->unresolvable = 1;
    b->code = TANJIT_ERR_SYMBOL;
    snprintf(b->why, sizeof b->why,
             "malformed renamed ccall: expected %s<function>$<library>",
             by_handle ? TJ_RENAME_HANDLE : TJ_RENAME_LIBRARY);
    return;
  }
  if (!(b->fn = tj_strndup(rn.fn, rn.fn_len))) {
    b->unresolvable = 1;
    b->code = TANJIT_ERR_NO_MEMORY;
    snprintf(b->why, sizeof b->why, "out of memory");
    return;
  }
  b->library = rn.lib;
  void *handle;
  if (by_handle) {
    if (!(handle = open_handle_named_by(b->library))) {
      b->unresolvable = 1;
      b->code = TANJIT_ERR_SYMBOL;
      snprintf(b->why, sizeof b->why,
               "%s is not the handle of a library open in this process",
               b->library);
      return;
    }
  } else {
    const char *why;
    pthread_mutex_lock(&r->lock);
    handle = renamed_library(r, b->library, &why);
    if (!handle)
      snprintf(b->why, sizeof b->why, "cannot load library %s: %s", b->library,
               why ? why : "");
    pthread_mutex_unlock(&r->lock);
    if (!handle) {
      b->unresolvable = 1;
      b->code = TANJIT_ERR_LIBRARY;
      return;
    }
  }
  dlerror();
  b->address = dlsym(handle, b->fn);
  if (!b->address) {
    const char *e = dlerror();
    b->unresolvable = 1;
    b->code = TANJIT_ERR_SYMBOL;
    snprintf(b->why, sizeof b->why, "symbol %s not found in library %s%s%s",
             b->fn, b->library, e ? ": " : "", e ? e : "");
  }
}

static void resolve_plain(jit_resolver *r, const char *name, binding *b) {
  void *from_process = dlsym(RTLD_DEFAULT, name);
  pthread_mutex_lock(&r->lock);
  for (size_t i = 0; i < r->registered.n && !b->address; i++) {
    void *a = dlsym(r->registered.items[i].handle, name);
    /* A registered library also answers for what its dependencies (libc)
     * define; those are the process's own, left to the process JITDylib. */
    if (a && a != from_process)
      b->address = a;
  }
  pthread_mutex_unlock(&r->lock);
  if (!b->address && !from_process) {
    void (*fallback)(void) = jit_runtime_fallback(name);
    if (fallback) {
      b->address = (void *)fallback;
      return;
    }
  }
  if (!b->address && !from_process)
    snprintf(b->why, sizeof b->why,
             "not defined by any loaded module, registered library or the "
             "process");
}

/* Names LLJIT's own platform support defines in its JITDylibs. */
static int is_platform_name(const char *name) {
  return strncmp(name, "__lljit", 7) == 0 || strcmp(name, "__dso_handle") == 0;
}

_Thread_local const char *jit_frontend_lookup;
_Thread_local jit_bind_failure jit_thread_bind_failure;

/* Keeps the first failure of the lookup (the one its error names). */
static void note_bind_failure(jit_bind_failure_kind kind,
                              tanjit_error_code code, const char *name,
                              const char *why) {
  jit_bind_failure *f = &jit_thread_bind_failure;
  if (f->kind != JIT_BIND_FAILED_NONE) {
    if (f->kind == JIT_BIND_FAILED_UNDEFINED && kind == f->kind &&
        strcmp(f->name, name) != 0)
      f->more_undefined = 1;
    return;
  }
  f->kind = kind;
  f->code = code;
  snprintf(f->name, sizeof f->name, "%s", name);
  snprintf(f->why, sizeof f->why, "%s", why ? why : "");
}

/* Whether a plain name not claimed here is left to the process JITDylib. */
static int from_process_of(const char *name, int owned) {
  return !owned && !is_platform_name(name) && tj_parse_rename(name, NULL) == 0 &&
         dlsym(RTLD_DEFAULT, name) != NULL;
}

static int declared_as_function(tanjit_session *s, const char *name) {
  jit_session_lock(s);
  int declared = strmap_get(&s->declared_functions, name) != NULL;
  jit_session_unlock(s);
  return declared;
}

static LLVMErrorRef generate(LLVMOrcDefinitionGeneratorRef gen, void *ctx,
                             LLVMOrcLookupStateRef *state, LLVMOrcLookupKind kind,
                             LLVMOrcJITDylibRef jd, LLVMOrcJITDylibLookupFlags jd_flags,
                             LLVMOrcCLookupSet set, size_t n) {
  (void)gen, (void)state, (void)jd_flags;
  jit_resolver *r = ctx;
  tanjit_session *s = r->session;
  int lazy = s->binding == TANJIT_BIND_LAZY && kind == LLVMOrcLookupKindStatic;
  LLVMOrcCSymbolMapPairs pairs = tj_calloc(n ? n : 1, sizeof *pairs);
  if (!pairs) {
    note_bind_failure(JIT_BIND_FAILED_UNBINDABLE, TANJIT_ERR_NO_MEMORY, "",
                      "out of memory resolving symbols");
    return LLVMCreateStringError("out of memory resolving symbols");
  }
  size_t n_pairs = 0;
  LLVMErrorRef failure = NULL;
  for (size_t i = 0; i < n && !failure; i++) {
    const char *name = LLVMOrcSymbolStringPoolEntryStr(set[i].Name);
    binding b;
    memset(&b, 0, sizeof b);
    int owned = 0;
    if (tj_parse_rename(name, NULL) != 0) {
      owned = 1;
      resolve_renamed(r, name, &b);
    } else if (!is_platform_name(name)) {
      resolve_plain(r, name, &b);
      owned = b.why[0] != '\0'; /* nothing provides it */
    }
    if ((b.address || from_process_of(name, owned)) &&
        declared_as_function(s, name)) {
      const void *target = b.address ? b.address : dlsym(RTLD_DEFAULT, name);
      if (target && jit_address_is_data(target)) {
        b.address = NULL;
        b.unresolvable = 1;
        b.code = TANJIT_ERR_SYMBOL;
        owned = 1;
        snprintf(b.why, sizeof b.why,
                 "the IR calls it as a function, but %s is data (an object "
                 "in %s)",
                 b.fn ? b.fn : name, object_file_of(target));
      }
    }
    if (b.address) {
      LLVMOrcRetainSymbolStringPoolEntry(set[i].Name); /* the pair takes one */
      pairs[n_pairs].Name = set[i].Name;
      pairs[n_pairs].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)b.address;
      pairs[n_pairs].Sym.Flags.GenericFlags =
          LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
      pairs[n_pairs].Sym.Flags.TargetFlags = 0;
      n_pairs++;
      goto next;
    }
    if (!owned ||
        set[i].LookupFlags == LLVMOrcSymbolLookupFlagsWeaklyReferencedSymbol)
      goto next;
    /* the name the frontend itself looks up is never stubbed: a lookup of
     * a missing symbol is an error, and a stub would block a module that
     * defines it later */
    if (lazy && !(jit_frontend_lookup && strcmp(name, jit_frontend_lookup) == 0)) {
      tanjit_error *e = NULL;
      if (jit_define_lazy_stub(s, r, name, b.fn ? b.fn : name,
                               b.library, b.why, &e)) {
        note_bind_failure(JIT_BIND_FAILED_STUB, tanjit_error_get_code(e), name,
                          tanjit_error_message(e));
        failure = LLVMCreateStringError(tanjit_error_message(e));
        tanjit_error_free(e);
      }
    } else if (b.unresolvable) {
      strbuf msg;
      sb_init(&msg);
      sb_printf(&msg, "cannot bind %s: %s", name, b.why);
      note_bind_failure(JIT_BIND_FAILED_UNBINDABLE,
                        !msg.data ? TANJIT_ERR_NO_MEMORY
                        : b.code  ? b.code
                                  : TANJIT_ERR_SYMBOL,
                        name, msg.data ? msg.data : b.why);
      failure = LLVMCreateStringError(msg.data ? msg.data : "out of memory");
      sb_free(&msg);
    } else {
      /* left unresolved: ORC fails the lookup, session.c says why */
      note_bind_failure(JIT_BIND_FAILED_UNDEFINED, TANJIT_ERR_SYMBOL, name,
                        b.why);
    }
  next:
    free(b.fn);
  }
  if (!failure && n_pairs) {
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, n_pairs);
    failure = LLVMOrcJITDylibDefine(jd, mu);
    if (failure)
      LLVMOrcDisposeMaterializationUnit(mu);
  } else {
    for (size_t i = 0; i < n_pairs; i++)
      LLVMOrcReleaseSymbolStringPoolEntry(pairs[i].Name);
  }
  free(pairs);
  return failure;
}

static void dispose_resolver(void *ctx) {
  jit_resolver *r = ctx;
  list_free(&r->registered);
  list_free(&r->renamed);
  for (size_t i = 0; i < r->n_kept; i++)
    free(r->kept[i]);
  free(r->kept);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

int jit_resolver_attach(tanjit_session *s, tanjit_error **err) {
  jit_resolver *r = tj_calloc(1, sizeof *r);
  if (!r)
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory creating a session");
  r->session = s;
  pthread_mutex_init(&r->lock, NULL);
  LLVMOrcDefinitionGeneratorRef gen =
      LLVMOrcCreateCustomCAPIDefinitionGenerator(generate, r, dispose_resolver);
  LLVMOrcJITDylibAddGenerator(s->main_jd, gen); /* takes gen */
  s->resolver = r;
  return 0;
}
