/*
 * Each input FILE becomes what the library loads: an IR file is loaded by
 * path (tanjit_load_file reads it); standard input and the IR clang writes
 * for a C or C++ file arrive through a pipe and are read here, up to a size
 * limit, so a runaway producer cannot exhaust memory.
 *
 * C and C++ go through the clang matching tanjit's LLVM (posix_spawnp, IR
 * text on its stdout: text, not bitcode, so what tanjit's own clang wrote
 * never needs a bitcode reader kept apart from the process), always with
 * line tables: a differentiation error can then name file:line.  -g asks
 * for full debug info instead.  From -O1 on clang runs none of LLVM's
 * passes; pre_ad.c runs those that come before differentiation.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

#ifndef TANJIT_CLANG
#define TANJIT_CLANG "clang"
#endif

extern char **environ;

#define DEFAULT_INPUT_LIMIT TANJIT_DEFAULT_MAX_INPUT_BYTES

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

cli_input_kind cli_input_kind_of(const char *path) {
  static const char *const cxx[] = {".cpp", ".cc", ".cxx", ".C", ".c++"};
  if (!strcmp(path, "-"))
    return CLI_INPUT_STDIN;
  if (ends_with(path, ".c"))
    return CLI_INPUT_C;
  for (size_t i = 0; i < sizeof cxx / sizeof *cxx; i++)
    if (ends_with(path, cxx[i]))
      return CLI_INPUT_CXX;
  return CLI_INPUT_IR;
}

size_t cli_input_limit(void) {
  const char *text = getenv("TANJIT_INPUT_LIMIT");
  if (!text || !*text)
    return DEFAULT_INPUT_LIMIT;
  char *end;
  errno = 0;
  unsigned long long n = strtoull(text, &end, 10);
  int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
  if (shift)
    end++;
  if (errno || end == text || *end || n == 0 || n > (SIZE_MAX >> shift) - 1) {
    fprintf(stderr,
            "tanjit: TANJIT_INPUT_LIMIT must be a byte count such as 4096, "
            "64M or 2G, not '%s'\n",
            text);
    return 0;
  }
  return (size_t)n << shift;
}

static void print_limit(FILE *f, size_t limit) {
  if (limit % (1 << 30) == 0)
    fprintf(f, "%zuG", limit >> 30);
  else if (limit % (1 << 20) == 0)
    fprintf(f, "%zuM", limit >> 20);
  else
    fprintf(f, "%zu bytes", limit);
}

typedef enum read_status { READ_OK, READ_TOO_BIG, READ_FAILED } read_status;

/* Reads fd to its end, at most `limit` bytes, into a malloc'd buffer.
 * READ_FAILED leaves errno set (ENOMEM when memory ran out). */
static read_status read_bounded(int fd, size_t limit, char **data, size_t *len) {
  size_t cap = 0, n = 0;
  char *buf = NULL;
  *data = NULL;
  *len = 0;
  for (;;) {
    if (n == cap) {
      if (cap > limit) {
        free(buf);
        return READ_TOO_BIG;
      }
      /* One byte past the limit tells "exactly the limit" from "more". */
      size_t grown = cap ? cap * 2 : 1 << 16;
      if (grown > limit + 1)
        grown = limit + 1;
      char *p = realloc(buf, grown);
      if (!p) {
        free(buf);
        errno = ENOMEM;
        return READ_FAILED;
      }
      buf = p;
      cap = grown;
    }
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int saved = errno;
      free(buf);
      errno = saved;
      return READ_FAILED;
    }
    if (got == 0)
      break;
    n += (size_t)got;
    if (n > limit) {
      free(buf);
      return READ_TOO_BIG;
    }
  }
  *data = buf;
  *len = n;
  return READ_OK;
}

/* 0, or 1 after printing why. */
static int read_pipe(int fd, const char *what, const char *advice, cli_module *m) {
  size_t limit = cli_input_limit();
  if (!limit)
    return 1;
  read_status st = read_bounded(fd, limit, &m->data, &m->len);
  if (st == READ_TOO_BIG) {
    fprintf(stderr, "tanjit: %s is larger than ", what);
    print_limit(stderr, limit);
    fprintf(stderr, " (TANJIT_INPUT_LIMIT); %s\n", advice);
    return 1;
  }
  if (st == READ_FAILED) {
    fprintf(stderr, "tanjit: cannot read %s: %s\n", what, strerror(errno));
    return 1;
  }
  return 0;
}

static const char *clang_program(void) {
  const char *clang = getenv("TANJIT_CLANG");
  return clang && *clang ? clang : TANJIT_CLANG;
}

/* Compiles `path` to IR text through a pipe into m; 0, or 1 after printing
 * why (clang's own diagnostics are on stderr already). */
static int compile_with_clang(const cli_args *c, const char *path, int cxx,
                              cli_module *m) {
  const char *clang = clang_program();
  char level[4];
  snprintf(level, sizeof level, "-O%d", c->opt_level);
  size_t n_argv = 14 + (size_t)c->clang_args.n;
  const char **argv = calloc(n_argv, sizeof *argv);
  if (!argv) {
    fputs("tanjit: out of memory\n", stderr);
    return 1;
  }
  size_t n = 0;
  argv[n++] = clang;
  if (cxx)
    argv[n++] = "--driver-mode=g++"; /* clang++ */
  argv[n++] = level;
  if (cli_pre_ad_applies(c)) { /* the -O level's attributes, none of its passes */
    argv[n++] = "-Xclang";
    argv[n++] = "-disable-llvm-passes";
  }
  argv[n++] = c->debug ? "-g" : "-gline-tables-only";
  argv[n++] = "-emit-llvm";
  argv[n++] = "-S";
  for (int i = 0; i < c->clang_args.n; i++)
    argv[n++] = c->clang_args.items[i];
  argv[n++] = "-o";
  argv[n++] = "-";
  argv[n++] = path;
  argv[n] = NULL;

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    fprintf(stderr, "tanjit: cannot create a pipe: %s\n", strerror(errno));
    free(argv);
    return 1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  pid_t pid;
  int rc = posix_spawnp(&pid, clang, &actions, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  free(argv);
  close(fds[1]);
  if (rc != 0) {
    fprintf(stderr, "tanjit: cannot run %s to compile %s: %s (TANJIT_CLANG names another)\n",
            clang, path, strerror(rc));
    close(fds[0]);
    return 1;
  }
  char what[512];
  snprintf(what, sizeof what, "the IR %s made of %s", clang, path);
  int failed = read_pipe(fds[0], what, "compile it yourself with clang -emit-llvm",
                         m);
  /* Closing before waiting ends a clang still writing past the limit. */
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (failed) {
    cli_module_free(m);
    return 1;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (WIFSIGNALED(status))
      fprintf(stderr, "tanjit: %s was killed by signal %d compiling %s\n", clang,
              WTERMSIG(status), path);
    else
      fprintf(stderr, "tanjit: %s failed to compile %s (exit status %d)\n", clang,
              path, WEXITSTATUS(status));
    cli_module_free(m);
    return 1;
  }
  if (cli_pre_ad_applies(c) && cli_pre_ad(c, m)) {
    cli_module_free(m);
    return 1;
  }
  return 0;
}

int cli_prepare_input(const cli_args *c, const char *input, cli_module *m) {
  memset(m, 0, sizeof *m);
  m->name = input;
  switch (cli_input_kind_of(input)) {
  case CLI_INPUT_IR:
    return 0;
  case CLI_INPUT_STDIN:
    m->name = "<stdin>";
    return read_pipe(STDIN_FILENO, "standard input",
                     "save it to a file and pass its path", m);
  case CLI_INPUT_C:
    return compile_with_clang(c, input, 0, m);
  case CLI_INPUT_CXX:
    return compile_with_clang(c, input, 1, m);
  }
  return 0;
}

void cli_module_free(cli_module *m) {
  free(m->data);
  m->data = NULL;
  m->len = 0;
}
