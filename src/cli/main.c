/*
 * tanjit: the command-line front end, a thin user of the public API.
 *
 *   tanjit run  FILE [--entry NAME] [--lib LIB]... [-L DIR]... [-O N] [--lazy]
 *                    [--stats] [-Xclang-arg ARG]... [-- ARGS...]
 *   tanjit emit FILE [-L DIR]... [-O N] [--stats] [-Xclang-arg ARG]... [-o OUT]
 *   (both also take --trust-bitcode)
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
    "  --entry NAME      run: entry function (default: main)\n"
    "  --lib LIB         run: resolve externals in LIB too (repeatable; loaded\n"
    "                    RTLD_LOCAL, searched in order after the modules)\n"
    "  -L DIR            search DIR for libraries named by a bare soname, e.g.\n"
    "                    by a renamed ccall ejlstr$fn$libcuda.so.1 (repeatable)\n"
    "  -O N              optimization level 0..3 (default 2); for a .c FILE\n"
    "                    also clang's level\n"
    "  --lazy            run: bind unresolved externals to stubs that report\n"
    "                    the call instead of failing the link\n"
    "  --stats           print what compiling cost to standard error at the\n"
    "                    end: time differentiating, optimizing, generating\n"
    "                    code, and differentiate / (optimize + codegen)\n"
    "  --trust-bitcode   parse .bc input in this process instead of in the\n"
    "                    sandboxed reader (only for bitcode you produced)\n"
    "  -Xclang-arg ARG   pass ARG to clang when FILE is C (repeatable)\n"
    "  -g                debug info: clang -g for C, JIT code visible to gdb\n"
    "                    (function, file:line) and perf (/tmp/perf-PID.map)\n"
    "  -o OUT            emit: write to OUT instead of standard output\n"
    "  -h, --help        this text\n"
    "\n"
    "environment: TANJIT_CLANG overrides the clang used for .c files.\n";

typedef struct cli {
  const char *command, *file, *entry, *out;
  const char *libs[MAX_LIST], *dirs[MAX_LIST + 1], *clang_args[MAX_LIST];
  int n_libs, n_dirs, n_clang_args;
  int opt_level, lazy, stats, trust_bitcode, debug;
  char **program_args;
  int n_program_args;
} cli;

static int fail_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "tanjit: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", usage);
  return 2;
}

/* The options, as data: which commands take each, and whether it takes a
 * value (given as the next argument, or glued on for the short ones: -O2,
 * -Lbuild). */
enum { RUN = 1, EMIT = 2 };
typedef enum option_id {
  OPT_ENTRY, OPT_LIB, OPT_DIR, OPT_LEVEL, OPT_LAZY, OPT_STATS, OPT_CLANG_ARG,
  OPT_OUT, OPT_TRUST_BITCODE, OPT_DEBUG
} option_id;
typedef struct option {
  const char *name;
  option_id id;
  int commands;
  int takes_value;
  int may_glue; /* -O2, -Lbuild */
} option;
static const option options[] = {
    {"--entry", OPT_ENTRY, RUN, 1, 0},
    {"--lib", OPT_LIB, RUN, 1, 0},
    {"-L", OPT_DIR, RUN | EMIT, 1, 1},
    {"-O", OPT_LEVEL, RUN | EMIT, 1, 1},
    {"--lazy", OPT_LAZY, RUN, 0, 0},
    {"--stats", OPT_STATS, RUN | EMIT, 0, 0},
    {"-Xclang-arg", OPT_CLANG_ARG, RUN | EMIT, 1, 0},
    {"-o", OPT_OUT, EMIT, 1, 0},
    {"--trust-bitcode", OPT_TRUST_BITCODE, RUN | EMIT, 0, 0},
    {"-g", OPT_DEBUG, RUN | EMIT, 0, 0},
};

static const option *find_option(const char *arg, const char **glued) {
  *glued = NULL;
  for (size_t i = 0; i < sizeof options / sizeof *options; i++) {
    size_t n = strlen(options[i].name);
    if (strcmp(arg, options[i].name) == 0)
      return &options[i];
    if (options[i].may_glue && strncmp(arg, options[i].name, n) == 0 && arg[n]) {
      *glued = arg + n;
      return &options[i];
    }
  }
  return NULL;
}

static int push(const char **list, int *n, const char *value, const char *what) {
  if (*n >= MAX_LIST)
    return fail_usage("too many %s options", what);
  list[(*n)++] = value;
  return 0;
}

static int apply_option(cli *c, const option *o, const char *value) {
  switch (o->id) {
  case OPT_ENTRY:
    c->entry = value;
    return 0;
  case OPT_LIB:
    return push(c->libs, &c->n_libs, value, "--lib");
  case OPT_DIR:
    return push(c->dirs, &c->n_dirs, value, "-L");
  case OPT_CLANG_ARG:
    return push(c->clang_args, &c->n_clang_args, value, "-Xclang-arg");
  case OPT_OUT:
    c->out = value;
    return 0;
  case OPT_LAZY:
    c->lazy = 1;
    return 0;
  case OPT_STATS:
    c->stats = 1;
    return 0;
  case OPT_TRUST_BITCODE:
    c->trust_bitcode = 1;
    return 0;
  case OPT_DEBUG:
    c->debug = 1;
    return 0;
  case OPT_LEVEL: {
    char *end;
    long level = strtol(value, &end, 10);
    if (!*value || *end || level < 0 || level > 3)
      return fail_usage("-O takes 0, 1, 2 or 3, not '%s'", value);
    c->opt_level = (int)level;
    return 0;
  }
  }
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
  int command = !strcmp(c->command, "run") ? RUN : !strcmp(c->command, "emit") ? EMIT : 0;
  if (!command)
    return fail_usage("unknown command '%s'", c->command);
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) {
      if (command != RUN)
        return fail_usage("%s", "program arguments (after --) are for run");
      c->program_args = argv + i + 1;
      c->n_program_args = argc - i - 1;
      break;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      exit(0);
    }
    if (a[0] != '-' || !a[1]) {
      if (c->file)
        return fail_usage("unexpected argument '%s' (program arguments go "
                          "after --)", a);
      c->file = a;
      continue;
    }
    const char *value;
    const option *o = find_option(a, &value);
    if (!o)
      return fail_usage("unknown option %s", a);
    if (!(o->commands & command))
      return fail_usage(command == RUN ? "option %s is not for run"
                                       : "option %s is not for emit",
                        o->name);
    if (o->takes_value && !value) {
      if (i + 1 >= argc)
        return fail_usage("option %s needs a value", a);
      value = argv[++i];
    }
    int rc = apply_option(c, o, value);
    if (rc)
      return rc;
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
  if (c->debug)
    argv[n++] = "-g";
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

/* The session's warnings not printed yet, as `tanjit: warning: ...`. */
static void print_warnings(tanjit_session *s) {
  static size_t printed;
  size_t n = tanjit_session_warning_count(s);
  for (; printed < n; printed++)
    fprintf(stderr, "tanjit: warning: %s\n", tanjit_session_warning(s, printed));
}

static int report(tanjit_error *err) {
  fprintf(stderr, "tanjit: %s\n", tanjit_error_message(err));
  tanjit_error_free(err);
  return 1;
}

/* Reads the IR at ir_path (FILE itself, or a C file's IR in a temporary
 * file); 0, or 1 after printing why. */
static int read_ir(const char *ir_path, char **data, size_t *len) {
  FILE *f = fopen(ir_path, "rb");
  if (!f) {
    fprintf(stderr, "tanjit: cannot open %s: %s\n", ir_path, strerror(errno));
    return 1;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap)
      break;
    char *grown = realloc(buf, cap *= 2);
    if (!grown)
      free(buf);
    buf = grown;
  }
  int failed = ferror(f);
  int saved = errno;
  fclose(f);
  if (!buf || failed) {
    fprintf(stderr, "tanjit: cannot read %s: %s\n", ir_path,
            buf ? strerror(saved) : "out of memory");
    free(buf);
    return 1;
  }
  *data = buf;
  *len = n;
  return 0;
}

/* Messages name the user's FILE, also when its IR sits in a temporary. */
static int run(const cli *c, tanjit_session *s, const char *ir_path) {
  tanjit_error *err = NULL;
  for (int i = 0; i < c->n_libs; i++)
    if (tanjit_add_library(s, c->libs[i], &err))
      return report(err);
  int rc;
  if (ir_path == c->file) { /* the library reads it: regular files, capped */
    rc = tanjit_load_file(s, ir_path, &err);
  } else {
    char *data;
    size_t len;
    if (read_ir(ir_path, &data, &len))
      return 1;
    rc = tanjit_load_memory(s, data, len, c->file, &err);
    free(data);
  }
  print_warnings(s);
  if (rc)
    return report(err);
  void *entry = tanjit_lookup_function(s, c->entry, &err);
  print_warnings(s);
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
  char *text;
  if (ir_path == c->file) { /* the library reads it: regular files, capped */
    text = tanjit_emit_file(s, ir_path, &err);
  } else {
    char *data;
    size_t len;
    if (read_ir(ir_path, &data, &len))
      return 1;
    text = tanjit_emit_memory(s, data, len, c->file, &err);
    free(data);
  }
  print_warnings(s);
  if (!text)
    return report(err);
  FILE *f = c->out ? fopen(c->out, "w") : stdout;
  if (!f) {
    fprintf(stderr, "tanjit: cannot write %s: %s\n", c->out, strerror(errno));
    tanjit_free(text);
    return 1;
  }
  int failed = fputs(text, f) == EOF;
  failed |= c->out ? fclose(f) != 0 : fflush(f) != 0;
  tanjit_free(text);
  if (failed) {
    fprintf(stderr, "tanjit: cannot write %s: %s\n", c->out ? c->out : "standard output",
            strerror(errno));
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
  fputc('\n', stderr);
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
  /* Bitcode clang just wrote for a .c FILE comes from LLVM's own writer. */
  opts.trust_bitcode = c.trust_bitcode || compiled != NULL;
  opts.debug_info = c.debug; /* -g: gdb sees JIT frames, perf names them */
  opts.perf_map = c.debug;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&opts, &err);
  if (!s) {
    rc = report(err);
  } else {
    const char *ir = compiled ? compiled : c.file;
    rc = strcmp(c.command, "run") == 0 ? run(&c, s, ir) : emit(&c, s, ir);
    if (c.stats)
      print_stats(s);
    tanjit_session_free(s);
  }
  if (compiled) {
    unlink(compiled);
    free(compiled);
  }
  return rc;
}
