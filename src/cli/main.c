/*
 * tanjit: the command-line front end, a thin user of the public API.
 *
 *   tanjit run  FILE [--entry NAME] [--lib LIB]... [-L DIR]... [-O N] [--lazy]
 *                    [-Xclang-arg ARG]... [-- ARGS...]
 *   tanjit emit FILE [-L DIR]... [-O N] [-Xclang-arg ARG]... [-o OUT]
 *
 * FILE is LLVM IR (.ll text or .bc bitcode, told apart by content) or C
 * (.c), which is compiled to IR by the clang matching tanjit's LLVM.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tanjit/tanjit.h"

#ifndef TANJIT_CLANG
#define TANJIT_CLANG "clang"
#endif

#define MAX_LIST 64

static const char usage[] =
    "usage: tanjit run  FILE [options] [-- ARGS...]\n"
    "       tanjit emit FILE [options] [-o OUT]\n"
    "\n"
    "FILE is LLVM IR (.ll or .bc) or C (.c, compiled with " TANJIT_CLANG ").\n"
    "Every __enzyme_fwddiff call in it is replaced by a forward-mode derivative\n"
    "as it loads; then it is optimized and compiled on LLVM's ORC JIT.\n"
    "\n"
    "  run    call the entry function with (argc, argv) = (FILE ARGS...) and\n"
    "         exit with its return value\n"
    "  emit   print the IR after differentiation and optimization\n"
    "\n"
    "options:\n"
    "  --entry NAME      entry function for run (default: main)\n"
    "  --lib LIB         resolve externals in LIB too (repeatable; loaded\n"
    "                    RTLD_LOCAL, searched in order after the modules)\n"
    "  -L DIR            search DIR for libraries named by a bare soname, e.g.\n"
    "                    by a renamed ccall ejlstr$fn$libcuda.so.1 (repeatable)\n"
    "  -O N              optimization level 0..3 (default 2); for a .c FILE\n"
    "                    also clang's level\n"
    "  --lazy            bind unresolved externals to stubs that report the\n"
    "                    call instead of failing the link\n"
    "  -Xclang-arg ARG   pass ARG to clang when FILE is C (repeatable)\n"
    "  -o OUT            emit: write to OUT instead of standard output\n"
    "  -h, --help        this text\n"
    "\n"
    "environment: TANJIT_CLANG overrides the clang used for .c files.\n";

typedef struct cli {
  const char *command, *file, *entry, *out;
  const char *libs[MAX_LIST], *dirs[MAX_LIST + 1], *clang_args[MAX_LIST];
  int n_libs, n_dirs, n_clang_args;
  int opt_level, lazy;
  char **program_args;
  int n_program_args;
} cli;

static int fail_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "tanjit: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", usage);
  return 2;
}

static int push(const char **list, int *n, const char *value, const char *what) {
  if (*n >= MAX_LIST)
    return fail_usage("too many %s options", what);
  list[(*n)++] = value;
  return 0;
}

/* 0 on success, else the exit status to return. */
static int parse_args(int argc, char **argv, cli *c) {
  memset(c, 0, sizeof *c);
  c->entry = "main";
  c->opt_level = 2;
  if (argc < 2)
    return fail_usage("%s", "missing command");
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    fputs(usage, stdout);
    exit(0);
  }
  c->command = argv[1];
  if (strcmp(c->command, "run") && strcmp(c->command, "emit"))
    return fail_usage("unknown command '%s'", c->command);
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = 0;
    if (!strcmp(a, "--")) {
      c->program_args = argv + i + 1;
      c->n_program_args = argc - i - 1;
      break;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      exit(0);
    } else if (!strcmp(a, "--lazy")) {
      c->lazy = 1;
      continue;
    } else if (!strncmp(a, "-L", 2) && a[2]) {
      rc = push(c->dirs, &c->n_dirs, a + 2, "-L");
    } else if (!strncmp(a, "-O", 2) && a[2]) {
      next = a + 2;
      i--;
      a = "-O";
    } else if (a[0] == '-' && !next) {
      return fail_usage("option %s needs a value", a);
    } else if (a[0] != '-') {
      if (c->file)
        return fail_usage("unexpected argument '%s' (program arguments go "
                          "after --)", a);
      c->file = a;
      continue;
    }
    if (rc)
      return rc;
    if (a[0] == '-' && strncmp(a, "-L", 2) != 0) {
      if (!strcmp(a, "--entry"))
        c->entry = next;
      else if (!strcmp(a, "--lib"))
        rc = push(c->libs, &c->n_libs, next, "--lib");
      else if (!strcmp(a, "-Xclang-arg"))
        rc = push(c->clang_args, &c->n_clang_args, next, "-Xclang-arg");
      else if (!strcmp(a, "-o"))
        c->out = next;
      else if (!strcmp(a, "-O")) {
        char *end;
        long level = strtol(next, &end, 10);
        if (*end || level < 0 || level > 3)
          return fail_usage("-O takes 0, 1, 2 or 3, not '%s'", next);
        c->opt_level = (int)level;
      } else
        return fail_usage("unknown option %s", a);
      if (rc)
        return rc;
      i++;
    } else if (!strcmp(a, "-L")) {
      if ((rc = push(c->dirs, &c->n_dirs, next, "-L")))
        return rc;
      i++;
    }
  }
  if (!c->file)
    return fail_usage("%s", "missing FILE");
  return 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Compiles a C file to bitcode in a temporary file; returns its path (caller
 * unlinks and frees) or NULL after printing why. */
static char *compile_c(const cli *c) {
  const char *clang = getenv("TANJIT_CLANG");
  if (!clang || !*clang)
    clang = TANJIT_CLANG;
  const char *tmpdir = getenv("TMPDIR");
  char *path = malloc(4096);
  if (!path)
    return NULL;
  snprintf(path, 4096, "%s/tanjit-XXXXXX.bc", tmpdir && *tmpdir ? tmpdir : "/tmp");
  int fd = mkstemps(path, 3);
  if (fd < 0) {
    fprintf(stderr, "tanjit: cannot create a temporary file: %s\n", strerror(errno));
    free(path);
    return NULL;
  }
  close(fd);
  char level[4];
  snprintf(level, sizeof level, "-O%d", c->opt_level);
  const char *argv[MAX_LIST + 16];
  int n = 0;
  argv[n++] = clang;
  argv[n++] = level;
  argv[n++] = "-emit-llvm";
  argv[n++] = "-c";
  for (int i = 0; i < c->n_clang_args; i++)
    argv[n++] = c->clang_args[i];
  argv[n++] = "-o";
  argv[n++] = path;
  argv[n++] = c->file;
  argv[n] = NULL;
  pid_t pid = fork();
  if (pid == 0) {
    execvp(clang, (char *const *)argv);
    fprintf(stderr, "tanjit: cannot run %s: %s\n", clang, strerror(errno));
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 127)
      fprintf(stderr, "tanjit: %s failed to compile %s\n", clang, c->file);
    unlink(path);
    free(path);
    return NULL;
  }
  return path;
}

static int report(tanjit_error *err) {
  fprintf(stderr, "tanjit: %s\n", tanjit_error_message(err));
  tanjit_error_free(err);
  return 1;
}

/* Loads the IR at ir_path, naming it after the user's FILE in messages (a
 * .c file's IR sits in a temporary file). */
static int load(const cli *c, tanjit_session *s, const char *ir_path,
                tanjit_error **err) {
  if (strcmp(ir_path, c->file) == 0)
    return tanjit_load_file(s, ir_path, err);
  FILE *f = fopen(ir_path, "rb");
  if (!f)
    return tanjit_load_file(s, ir_path, err); /* reports the error */
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = size > 0 ? malloc((size_t)size) : NULL;
  size_t got = data ? fread(data, 1, (size_t)size, f) : 0;
  fclose(f);
  int rc = data && got == (size_t)size
               ? tanjit_load_memory(s, data, got, c->file, err)
               : tanjit_load_file(s, ir_path, err);
  free(data);
  return rc;
}

static int run(const cli *c, tanjit_session *s, const char *ir_path) {
  tanjit_error *err = NULL;
  for (int i = 0; i < c->n_libs; i++)
    if (tanjit_add_library(s, c->libs[i], &err))
      return report(err);
  if (load(c, s, ir_path, &err))
    return report(err);
  void *entry = tanjit_lookup(s, c->entry, &err);
  if (!entry)
    return report(err);
  int argc = c->n_program_args + 1;
  char **argv = calloc((size_t)argc + 1, sizeof *argv);
  if (!argv)
    return 1;
  argv[0] = (char *)c->file;
  for (int i = 0; i < c->n_program_args; i++)
    argv[i + 1] = c->program_args[i];
  int (*fn)(int, char **) = (int (*)(int, char **))(uintptr_t)entry;
  int status = fn(argc, argv);
  fflush(NULL);
  free(argv);
  return status;
}

static int emit(const cli *c, tanjit_session *s, const char *ir_path) {
  tanjit_error *err = NULL;
  char *text = tanjit_emit_file(s, ir_path, &err);
  if (!text)
    return report(err);
  FILE *f = c->out ? fopen(c->out, "w") : stdout;
  if (!f) {
    fprintf(stderr, "tanjit: cannot write %s: %s\n", c->out, strerror(errno));
    tanjit_free(text);
    return 1;
  }
  fputs(text, f);
  tanjit_free(text);
  if (c->out)
    fclose(f);
  return 0;
}

int main(int argc, char **argv) {
  cli c;
  int rc = parse_args(argc, argv, &c);
  if (rc)
    return rc;
  char *compiled = NULL;
  if (ends_with(c.file, ".c")) {
    if (!(compiled = compile_c(&c)))
      return 1;
  }
  tanjit_options opts;
  tanjit_options_init(&opts);
  opts.opt_level = c.opt_level;
  opts.library_dirs = c.dirs;
  opts.binding = c.lazy ? TANJIT_BIND_LAZY : TANJIT_BIND_STRICT;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&opts, &err);
  if (!s) {
    rc = report(err);
  } else {
    const char *ir = compiled ? compiled : c.file;
    rc = strcmp(c.command, "run") == 0 ? run(&c, s, ir) : emit(&c, s, ir);
    tanjit_session_free(s);
  }
  if (compiled) {
    unlink(compiled);
    free(compiled);
  }
  return rc;
}
