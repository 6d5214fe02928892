/*
 * The library's errors and warnings as a person at a terminal reads them.
 * One with a source location is printed compiler style, location first, so
 * editors and terminals jump to it: the error's location fields
 * (tanjit_error_file/line/column) when set, else one the message carries
 * (LLVM's parser's "FILE:L:C: error: ..." inside it, the engine's "... at
 * FILE:L[:C]"); others as "tanjit: MESSAGE".  Unresolved externals get a hint at the option that
 * supplies them (the CUDA libraries by their names, others --lib), a
 * library not found by its bare soname one at -L.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#ifndef TANJIT_CUDASIM_DIR
#define TANJIT_CUDASIM_DIR ""
#endif

/* A FILE:LINE or FILE:LINE:COL token in [p, end_of_token); its length, or 0. */
static size_t location_token(const char *p, int need_column) {
  size_t file = strcspn(p, " \t\n:");
  if (!file || p[file] != ':' || !isdigit((unsigned char)p[file + 1]))
    return 0;
  size_t n = file + 1;
  while (isdigit((unsigned char)p[n]))
    n++;
  if (p[n] == ':' && isdigit((unsigned char)p[n + 1])) {
    n++;
    while (isdigit((unsigned char)p[n]))
      n++;
  } else if (need_column) {
    return 0;
  }
  return n;
}

/* Strips trailing blanks and newlines from a length. */
static int trimmed(const char *s, int n) {
  while (n > 0 && isspace((unsigned char)s[n - 1]))
    n--;
  return n;
}

/* "FILE:L:C: error: PREFIX: REST", from "PREFIX: FILE:L:C: error: REST". */
static int print_parser_form(const char *severity, const char *msg) {
  const char *tag = strstr(msg, ": error: ");
  if (!tag)
    return 0;
  const char *start = tag;
  while (start > msg && !isspace((unsigned char)start[-1]))
    start--;
  size_t n = location_token(start, 1);
  if (!n || start + n != tag)
    return 0;
  int prefix = trimmed(msg, (int)(start - msg));
  while (prefix > 0 && msg[prefix - 1] == ':')
    prefix = trimmed(msg, prefix - 1);
  const char *rest = tag + strlen(": error: ");
  fprintf(stderr, "%.*s: %s: ", (int)n, start, severity);
  if (prefix)
    fprintf(stderr, "%.*s: ", prefix, msg);
  fprintf(stderr, "%.*s\n", trimmed(rest, (int)strlen(rest)), rest);
  return 1;
}

/* The engine's " at FILE:L[:C]" in msg (the last one): its start, and the
 * token's length after " at ". */
static const char *engine_location(const char *msg, size_t *len) {
  const char *found = NULL;
  for (const char *p = strstr(msg, " at "); p; p = strstr(p + 1, " at ")) {
    size_t n = location_token(p + 4, 0);
    char after = p[4 + n];
    if (n && (after == '\0' || after == ' ' || after == ';' || after == ',' ||
              after == ')' || after == '\n')) {
      found = p;
      *len = n;
    }
  }
  return found;
}

/* MESSAGE with its " at FILE:L..." taken out, after `prefix`. */
static void print_without_location(const char *prefix, const char *severity,
                                   const char *msg) {
  size_t n = 0;
  const char *at = engine_location(msg, &n);
  if (!at) {
    fprintf(stderr, "%s: %s: %.*s\n", prefix, severity, trimmed(msg, (int)strlen(msg)),
            msg);
    return;
  }
  const char *tail = at + 4 + n;
  fprintf(stderr, "%s: %s: %.*s%.*s\n", prefix, severity, (int)(at - msg), msg,
          trimmed(tail, (int)strlen(tail)), tail);
}

/* "FILE:L[:C]: error: MESSAGE", from "MESSAGE at FILE:L[:C]..." (the
 * engine names the source line last). */
static int print_engine_form(const char *severity, const char *msg) {
  size_t n = 0;
  const char *at = engine_location(msg, &n);
  if (!at)
    return 0;
  char prefix[512];
  snprintf(prefix, sizeof prefix, "%.*s", (int)n, at + 4);
  print_without_location(prefix, severity, msg);
  return 1;
}

/* ---- hints for unresolved externals ------------------------------------ */

typedef struct name_group {
  const char *names[3]; /* the first few, for the hint */
  int n;
  int more; /* the message names only some: "and others" */
} name_group;

static void add_name(name_group *g, const char *name) {
  if (g->n < 3)
    g->names[g->n] = name;
  g->n++;
}

static void print_names(const name_group *g) {
  for (int i = 0; i < g->n && i < 3; i++)
    fprintf(stderr, "%s%s", i ? ", " : "", g->names[i]);
  if (g->n > 3)
    fprintf(stderr, " and %d more", g->n - 3);
  else if (g->more)
    fputs(" and others", stderr);
}

static int given_lib(const cli_args *c, const char *lib) {
  for (int i = 0; i < c->libs.n; i++)
    if (strstr(c->libs.items[i], lib))
      return 1;
  return 0;
}

/* cuInit, cuMemAlloc_v2 (driver API); cudaMalloc (runtime API). */
static int is_cuda_driver(const char *name) {
  return !strncmp(name, "cu", 2) && isupper((unsigned char)name[2]);
}
static int is_cuda_runtime(const char *name) {
  return !strncmp(name, "cuda", 4) && isupper((unsigned char)name[4]);
}

static void print_simulator_advice(const char *soname) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", TANJIT_CUDASIM_DIR, soname);
  if (*TANJIT_CUDASIM_DIR && access(path, R_OK) == 0)
    fprintf(stderr, " (add -L %s for tanjit's CUDA simulator)", TANJIT_CUDASIM_DIR);
  else
    fputs(" (with -L DIR where DIR holds tanjit's CUDA simulator)", stderr);
}

/* "unresolved external [ a, b ]" (ORC's list) or "unresolved external a". */
static void hint_unresolved(const char *msg, const cli_args *c) {
  const char *p = strstr(msg, "unresolved external ");
  if (!p)
    return;
  p += strlen("unresolved external ");
  char *list = NULL;
  int more = 0;
  if (*p == '[') {
    const char *close = strchr(p, ']');
    if (!close)
      return;
    list = strndup(p + 1, (size_t)(close - p - 1));
  } else {
    size_t n = strcspn(p, " ;,()\n");
    list = strndup(p, n);
    more = !strncmp(p + n, " and others", 11); /* the first name only */
  }
  if (!list)
    return;
  name_group driver = {0}, runtime = {0}, host = {0};
  driver.more = runtime.more = host.more = more;
  for (char *save = NULL, *name = strtok_r(list, " ,", &save); name;
       name = strtok_r(NULL, " ,", &save)) {
    if (strchr(name, '$')) /* a renamed ccall: its own message says why */
      continue;
    add_name(is_cuda_runtime(name) ? &runtime : is_cuda_driver(name) ? &driver : &host,
             name);
  }
  if (driver.n && !given_lib(c, "libcuda.so")) {
    fprintf(stderr, "tanjit: hint: %s ",
            driver.n == 1 && !more ? "a CUDA driver call" : "CUDA driver calls");
    print_names(&driver);
    fputs(": pass --lib libcuda.so.1", stderr);
    print_simulator_advice("libcuda.so.1");
    fputc('\n', stderr);
  }
  if (runtime.n && !given_lib(c, "libcudart")) {
    fprintf(stderr, "tanjit: hint: %s ",
            runtime.n == 1 && !more ? "a CUDA runtime call" : "CUDA runtime calls");
    print_names(&runtime);
    fputs(": pass --lib libcudart.so.12", stderr);
    print_simulator_advice("libcudart.so.12");
    fputc('\n', stderr);
  }
  if (host.n) {
    int single = host.n == 1 && !more;
    fputs("tanjit: hint: ", stderr);
    print_names(&host);
    fprintf(stderr, " %s defined in no module, --lib library or the process: pass "
                    "--lib LIB for the library that defines %s (-L DIR to search "
                    "DIR for a bare soname)%s\n",
            single ? "is" : "are", single ? "it" : "them",
            c->command == CLI_RUN && !c->lazy
                ? (single ? ", or --lazy to fail only if it is called"
                               : ", or --lazy to fail only if one is called")
                : "");
  }
  free(list);
}

/* One diagnostic, location first when it has one. */
static void print_diagnostic(const char *severity, const char *msg) {
  if (!print_parser_form(severity, msg) && !print_engine_form(severity, msg))
    fprintf(stderr, "tanjit: %s%s%.*s\n", strcmp(severity, "error") ? severity : "",
            strcmp(severity, "error") ? ": " : "", trimmed(msg, (int)strlen(msg)), msg);
}

void cli_print_warning(const char *msg) { print_diagnostic("warning", msg); }

/* "cannot load library NAME: why": a bare soname is searched in -L DIRs. */
static void hint_library(const char *msg) {
  const char *p = strstr(msg, "cannot load library ");
  if (!p)
    return;
  p += strlen("cannot load library ");
  int n = (int)strcspn(p, ": \n");
  if (!n || memchr(p, '/', (size_t)n))
    return;
  fprintf(stderr, "tanjit: hint: -L DIR searches DIR for %.*s", n, p);
  if (!strncmp(p, "libcuda.so", 10) || !strncmp(p, "libcudart.so", 12)) {
    char soname[64];
    snprintf(soname, sizeof soname, "%.*s", n, p);
    print_simulator_advice(soname);
  }
  fputc('\n', stderr);
}

int cli_report(tanjit_error *err, const cli_args *c) {
  const char *msg = tanjit_error_message(err);
  const char *file = tanjit_error_file(err);
  unsigned line = tanjit_error_line(err), column = tanjit_error_column(err);
  if (file && *file && line) {
    /* The error's own location (with its column), not the message's. */
    char where[4200];
    if (column)
      snprintf(where, sizeof where, "%s:%u:%u", file, line, column);
    else
      snprintf(where, sizeof where, "%s:%u", file, line);
    print_without_location(where, "error", msg);
  } else {
    print_diagnostic("error", msg);
  }
  if (tanjit_error_get_code(err) == TANJIT_ERR_SYMBOL) {
    char no_entry[300];
    snprintf(no_entry, sizeof no_entry, "no symbol '%s':", c->entry);
    if (c->command == CLI_RUN && !strncmp(msg, no_entry, strlen(no_entry)))
      fprintf(stderr, "tanjit: hint: --entry NAME calls another function than '%s'\n",
              c->entry);
    hint_unresolved(msg, c);
  }
  if (tanjit_error_get_code(err) == TANJIT_ERR_LIBRARY)
    hint_library(msg);
  if (strstr(msg, "more than the limit of") && strstr(msg, "max_input_bytes"))
    fputs("tanjit: hint: TANJIT_INPUT_LIMIT sets the limit (e.g. TANJIT_INPUT_LIMIT=4G)\n",
          stderr);
  tanjit_error_free(err);
  return 1;
}
