/*
 * tanjit: the command-line front end, a thin user of the public API.
 *
 *   tanjit run  FILE... [options] [-- ARGS...]
 *   tanjit emit FILE [options]
 *
 * Options and usage errors: args.c (`tanjit --help` lists every option).
 * Inputs (IR, stdin, C and C++ through clang): inputs.c.  Errors, with
 * their source location first and hints: report.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

/* The session's warnings not printed yet (location first when they carry
 * one, else `tanjit: warning: ...`). */
static void print_warnings(tanjit_session *s) {
  static size_t printed;
  size_t n = tanjit_session_warning_count(s);
  for (; printed < n; printed++)
    cli_print_warning(tanjit_session_warning(s, printed));
}

/* Adds libstdc++ for C++ input unless --lib named it. */
static int add_libraries(const cli_args *c, tanjit_session *s) {
  tanjit_error *err = NULL;
  for (int i = 0; i < c->libs.n; i++)
    if (tanjit_add_library(s, c->libs.items[i], &err))
      return cli_report(err, c);
  int cxx = 0, named = 0;
  for (int i = 0; i < c->inputs.n; i++)
    cxx |= cli_input_kind_of(c->inputs.items[i]) == CLI_INPUT_CXX;
  for (int i = 0; i < c->libs.n; i++)
    named |= strstr(c->libs.items[i], "libstdc++") != NULL;
  if (cxx && !named && tanjit_add_library(s, "libstdc++.so.6", &err))
    return cli_report(err, c);
  return 0;
}

/* Loads every input, in order; 0, or 1 after printing why. */
static int load_inputs(const cli_args *c, tanjit_session *s) {
  for (int i = 0; i < c->inputs.n; i++) {
    cli_module m;
    if (cli_prepare_input(c, c->inputs.items[i], &m))
      return 1;
    tanjit_error *err = NULL;
    int rc = m.data ? tanjit_load_memory(s, m.data, m.len, m.name, &err)
                    : tanjit_load_file(s, m.name, &err);
    cli_module_free(&m);
    print_warnings(s);
    if (rc) {
      cli_report(err, c);
      /* lli takes its program's arguments after the module; tanjit after --. */
      if (i > 0 && c->command == CLI_RUN && access(c->inputs.items[i], F_OK) != 0)
        fprintf(stderr, "tanjit: hint: every FILE is a module; the program's "
                        "arguments go after --: tanjit run %s -- %s\n",
                c->inputs.items[0], c->inputs.items[i]);
      return 1;
    }
  }
  return 0;
}

static int run(const cli_args *c, tanjit_session *s) {
  if (add_libraries(c, s) || load_inputs(c, s))
    return 1;
  tanjit_error *err = NULL;
  void *entry = tanjit_lookup_function(s, c->entry, &err);
  print_warnings(s);
  if (!entry)
    return cli_report(err, c);
  int argc = c->n_program_args + 1;
  char **argv = calloc((size_t)argc + 1, sizeof *argv);
  if (!argv) {
    fputs("tanjit: out of memory\n", stderr);
    return 1;
  }
  argv[0] = (char *)c->inputs.items[0];
  for (int i = 0; i < c->n_program_args; i++)
    argv[i + 1] = c->program_args[i];
  int (*fn)(int, char **) = (int (*)(int, char **))(uintptr_t)entry;
  int status = fn(argc, argv);
  fflush(NULL);
  free(argv);
  return status;
}

static int emit(const cli_args *c, tanjit_session *s) {
  cli_module m;
  if (cli_prepare_input(c, c->inputs.items[0], &m))
    return 1;
  tanjit_error *err = NULL;
  char *text = m.data ? tanjit_emit_memory(s, m.data, m.len, m.name, &err)
                      : tanjit_emit_file(s, m.name, &err);
  cli_module_free(&m);
  print_warnings(s);
  if (!text)
    return cli_report(err, c);
  int to_stdout = !c->output || !strcmp(c->output, "-");
  const char *where = to_stdout ? "standard output" : c->output;
  FILE *f = to_stdout ? stdout : fopen(c->output, "w");
  if (!f) {
    fprintf(stderr, "tanjit: cannot write %s: %s\n", where, strerror(errno));
    tanjit_free(text);
    return 1;
  }
  int failed = fputs(text, f) == EOF;
  failed |= to_stdout ? fflush(f) != 0 : fclose(f) != 0;
  tanjit_free(text);
  if (failed) {
    fprintf(stderr, "tanjit: cannot write %s: %s\n", where, strerror(errno));
    return 1;
  }
  return 0;
}

/* One line, after the program's own output: the cost of differentiating
 * on load, next to what compiling costs anyway. */
static void print_stats(tanjit_session *s) {
  tanjit_stats st;
  tanjit_session_stats(s, &st);
  double compile = st.optimize_seconds + st.codegen_seconds;
  fprintf(stderr,
          "tanjit: stats: %lu module%s, %lu derivative request%s; differentiate "
          "%.4f s, optimize %.4f s, codegen %.4f s",
          st.modules, st.modules == 1 ? "" : "s", st.requests,
          st.requests == 1 ? "" : "s", st.differentiate_seconds,
          st.optimize_seconds, st.codegen_seconds);
  if (compile > 0)
    fprintf(stderr, "; differentiate / (optimize + codegen) = %.3f",
            st.differentiate_seconds / compile);
  /* one lookup per call site at most: the rule families are asked once */
  if (st.call_sites)
    fprintf(stderr, "; %lu rule lookup%s for %lu call site%s",
            st.rule_lookups, st.rule_lookups == 1 ? "" : "s", st.call_sites,
            st.call_sites == 1 ? "" : "s");
  if (st.cache_hits || st.cache_misses || st.cache_errors)
    fprintf(stderr, "; object cache: %lu hit%s, %lu miss%s, %lu error%s",
            st.cache_hits, st.cache_hits == 1 ? "" : "s", st.cache_misses,
            st.cache_misses == 1 ? "" : "es", st.cache_errors,
            st.cache_errors == 1 ? "" : "s");
  fputc('\n', stderr);
}

/* The object cache's directory for `run`: --no-cache, none; --cache-dir;
 * $TANJIT_CACHE_DIR (set but empty: none); $XDG_CACHE_HOME/tanjit;
 * ~/.cache/tanjit (XDG's default).  Returned string is the caller's. */
static char *cache_dir_for(const cli_args *c) {
  if (c->no_cache || c->command != CLI_RUN)
    return NULL;
  if (c->cache_dir)
    return *c->cache_dir ? strdup(c->cache_dir) : NULL;
  const char *env = getenv("TANJIT_CACHE_DIR");
  if (env)
    return *env ? strdup(env) : NULL;
  const char *base = getenv("XDG_CACHE_HOME"), *tail = "/tanjit";
  if (!base || base[0] != '/') {
    base = getenv("HOME");
    tail = "/.cache/tanjit";
  }
  if (!base || base[0] != '/')
    return NULL;
  char *dir = malloc(strlen(base) + strlen(tail) + 1);
  if (dir) {
    strcpy(dir, base);
    strcat(dir, tail);
  }
  return dir;
}

int main(int argc, char **argv) {
  cli_args c;
  int rc = cli_parse_args(argc, argv, &c);
  if (rc != CLI_PROCEED)
    return rc;
  size_t input_limit = cli_input_limit();
  if (!input_limit) {
    cli_args_free(&c);
    return 1;
  }
  tanjit_options opts;
  tanjit_options_init(&opts);
  opts.max_input_bytes = input_limit; /* FILEs as stdin and clang's output */
  opts.opt_level = c.opt_level;
  opts.library_dirs = c.dirs.items;
  opts.binding = c.lazy ? TANJIT_BIND_LAZY : TANJIT_BIND_STRICT;
  opts.debug_info = c.debug; /* -g: gdb sees JIT frames, perf names them */
  opts.perf_map = c.debug;
  opts.trust_bitcode = c.trust_bitcode;
  opts.derivative_fp = c.strict_derivatives ? TANJIT_DERIVATIVE_FP_STRICT
                                            : TANJIT_DERIVATIVE_FP_FAST;
  char *cache_dir = cache_dir_for(&c);
  opts.cache_dir = cache_dir;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&opts, &err);
  free(cache_dir); /* the session keeps its own copy */
  if (!s) {
    rc = cli_report(err, &c);
  } else {
    rc = c.command == CLI_RUN ? run(&c, s) : emit(&c, s);
    if (c.stats)
      print_stats(s);
    tanjit_session_free(s);
  }
  cli_args_free(&c);
  return rc;
}
