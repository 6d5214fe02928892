/*
 * The command line, as lli, opt and clang read theirs: getopt_long with
 * `--name=value` or `--name value`, short options glued or not (-O2, -O 2,
 * -Lbuild), `-` for standard input, `--` before the program's arguments.
 * Every option is one row of `options` below, which also writes --help.
 * A usage error is one line naming the nearest option or command.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#ifndef TANJIT_CLANG
#define TANJIT_CLANG "clang"
#endif

/* Long-only options take ids past every char. */
enum {
  OPT_ENTRY = 256,
  OPT_LIB,
  OPT_LAZY,
  OPT_STATS,
  OPT_CLANG_ARG,
  OPT_VERSION,
  OPT_TRUST_BITCODE,
  OPT_CACHE_DIR,
  OPT_NO_CACHE,
  OPT_COMPILE,
  OPT_JOBS,
  OPT_STRICT_DERIVATIVES,
  OPT_PRE_AD,
  OPT_PRE_AD_WIDE,
};

typedef struct cli_option {
  const char *long_name; /* without the dashes; NULL: short only */
  int short_name;        /* 0: long only */
  int id;                /* short_name when there is one */
  unsigned commands;     /* CLI_RUN | CLI_EMIT; 0: any */
  const char *value;     /* the value's name in --help; NULL: takes none */
  const char *help;
  int single_dash; /* spelled -Xclang-arg, as clang's -Xclang (two work) */
} cli_option;

static const cli_option options[] = {
    {"entry", 0, OPT_ENTRY, CLI_RUN, "NAME", "function to call (default: main)", 0},
    {"lib", 0, OPT_LIB, CLI_RUN, "LIB",
     "resolve externals in LIB too (repeatable)", 0},
    {NULL, 'L', 'L', CLI_RUN | CLI_EMIT, "DIR",
     "search DIR for libraries named by bare soname (repeatable)", 0},
    {NULL, 'O', 'O', CLI_RUN | CLI_EMIT, "N",
     "optimization level 0-3, also clang's (default 2)", 0},
    {"lazy", 0, OPT_LAZY, CLI_RUN, NULL,
     "unresolved externals fail when called, not at link", 0},
    {"stats", 0, OPT_STATS, CLI_RUN | CLI_EMIT, NULL,
     "print compile costs to stderr at the end", 0},
    {"trust-bitcode", 0, OPT_TRUST_BITCODE, CLI_RUN | CLI_EMIT, NULL,
     "read .bc in this process, not the sandboxed reader", 0},
    {"cache-dir", 0, OPT_CACHE_DIR, CLI_RUN, "DIR",
     "keep compiled code in DIR (default ~/.cache/tanjit)", 0},
    {"no-cache", 0, OPT_NO_CACHE, CLI_RUN, NULL,
     "neither read nor write the object cache", 0},
    {"compile", 0, OPT_COMPILE, CLI_RUN, "MODE",
     "lazy (functions at first call) or eager (default)", 0},
    {"jobs", 0, OPT_JOBS, CLI_RUN, "N",
     "compile large modules on N threads (default: cores)", 0},
    {"strict-derivatives", 0, OPT_STRICT_DERIVATIVES, CLI_RUN | CLI_EMIT, NULL,
     "no reassoc/nsz/contract on derivative arithmetic", 0},
    {NULL, 'g', 'g', CLI_RUN | CLI_EMIT, NULL,
     "debug info: clang -g; JIT code seen by gdb and perf", 0},
    {"Xclang-arg", 0, OPT_CLANG_ARG, CLI_RUN | CLI_EMIT, "ARG",
     "pass ARG to clang (repeatable)", 1},
    {"output", 'o', 'o', CLI_EMIT, "OUT", "write to OUT ('-': stdout, the default)", 0},
    {"help", 'h', 'h', 0, NULL, "this text", 0},
    {"version", 0, OPT_VERSION, 0, NULL, "print tanjit's and LLVM's versions", 0},
    {"pre-ad", 0, OPT_PRE_AD, CLI_RUN | CLI_EMIT, "PASSES",
     "C/C++ at -O1+: LLVM passes run before differentiation", 0},
    {"pre-ad-wide", 0, OPT_PRE_AD_WIDE, CLI_RUN | CLI_EMIT, "MODE",
     "C/C++: rolled copies for wide requests (auto, off, all)", 0},
};
#define N_OPTIONS (sizeof options / sizeof *options)

/* Spellings of other tools, answered with ours. */
static const struct {
  const char *name, *advice;
} foreign_options[] = {
    {"extra-module", "pass each module as one more FILE"},
    {"entry-function", "did you mean '--entry'?"},
    {"load", "did you mean '--lib'?"},
    {"dlopen", "did you mean '--lib'?"},
};

static const char *const commands[] = {"run", "emit"};

static void print_help(FILE *f) {
  fprintf(f,
          "usage: tanjit run  FILE... [options] [-- ARGS...]\n"
          "       tanjit emit FILE [options]\n"
          "       tanjit --help | --version\n"
          "\n"
          "FILE is LLVM IR (.ll or .bc; '-' reads it from stdin), C (.c) or C++\n"
          "(.cpp .cc .cxx .C; implies --lib libstdc++.so.6), compiled with\n"
          "  %s\n"
          "Each __enzyme_fwddiff call becomes a forward-mode derivative, each\n"
          "__enzyme_autodiff (and __enzyme_augmentfwd / __enzyme_reverse) a\n"
          "gradient, as its module loads; then the code is optimized and compiled\n"
          "on LLVM's ORC.\n"
          "  run   load every FILE, call the entry with (argc, argv) = (first FILE,\n"
          "        ARGS...) and exit with its return value\n"
          "  emit  print FILE's IR after differentiation and optimization\n"
          "\n"
          "options ([run]/[emit]: that command only):\n",
          TANJIT_CLANG);
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const cli_option *o = &options[i];
    char spelling[64];
    int n = 0;
    if (o->short_name)
      n += snprintf(spelling + n, sizeof spelling - n, "-%c%s", o->short_name,
                    o->long_name ? ", " : "");
    if (o->long_name)
      n += snprintf(spelling + n, sizeof spelling - n, "%s%s",
                    o->single_dash ? "-" : "--", o->long_name);
    if (o->value)
      snprintf(spelling + n, sizeof spelling - n, "%s%s",
               o->long_name && !o->single_dash ? "=" : " ", o->value);
    fprintf(f, "  %-18s %s%s\n", spelling,
            o->commands == CLI_RUN    ? "[run] "
            : o->commands == CLI_EMIT ? "[emit] "
                                      : "",
            o->help);
  }
  fputs("\nenvironment: TANJIT_CLANG (the clang for C and C++), TANJIT_INPUT_LIMIT\n"
        "(most bytes read from a FILE, stdin or clang; default 1G)\n",
        f);
}

/* The library's versions; the header's too if this CLI was built against
 * another release than the library it runs with. */
static void print_version(void) {
  printf("tanjit %s (LLVM %s)", tanjit_version(), tanjit_llvm_version());
  if (strcmp(tanjit_version(), TANJIT_VERSION_STRING) != 0)
    printf(" (this command was built with tanjit %s)", TANJIT_VERSION_STRING);
  putchar('\n');
}

/* One line, then the status of a usage error. */
static int usage_error(const char *fmt, const char *arg, const char *suggestion) {
  fputs("tanjit: ", stderr);
  fprintf(stderr, fmt, arg);
  if (suggestion)
    fprintf(stderr, "; %s", suggestion);
  fputs(" (tanjit --help)\n", stderr);
  return 2;
}

/* Optimal string alignment distance (edits, swaps of neighbours). */
static size_t edit_distance(const char *a, const char *b) {
  enum { MAX = 40 };
  size_t n = strlen(a), m = strlen(b);
  if (n >= MAX || m >= MAX)
    return (size_t)-1;
  size_t d[MAX + 1][MAX + 1];
  for (size_t i = 0; i <= n; i++)
    d[i][0] = i;
  for (size_t j = 0; j <= m; j++)
    d[0][j] = j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t best = d[i - 1][j - 1] + cost;
      if (d[i - 1][j] + 1 < best)
        best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best)
        best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

/* The candidate nearest `word`, if near enough to be a typo of it. */
static const char *nearest(const char *word, const char *const *candidates,
                           size_t n) {
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    size_t d = edit_distance(word, candidates[i]);
    size_t allowed = strlen(candidates[i]) / 3 ? strlen(candidates[i]) / 3 : 1;
    if (d <= allowed && d < best_d) {
      best = candidates[i];
      best_d = d;
    }
  }
  return best;
}

/* A usage error for an option getopt refused: `word` is the argument as
 * given (--lzy, --lazy=1, -lazy, -x). */
static int bad_option(const char *word, int missing_value) {
  const char *name = word + strspn(word, "-");
  size_t len = strcspn(name, "=");
  char bare[64];
  snprintf(bare, sizeof bare, "%.*s", (int)(len < 63 ? len : 63), name);
  const char *names[N_OPTIONS];
  size_t n_names = 0, n_prefix = 0;
  const cli_option *match = NULL;
  for (size_t i = 0; i < N_OPTIONS; i++) {
    if (!options[i].long_name)
      continue;
    names[n_names++] = options[i].long_name;
    if (word[1] == '-' && len && strncmp(options[i].long_name, name, len) == 0) {
      n_prefix++;
      if (!match || strlen(options[i].long_name) == len)
        match = &options[i];
    }
  }
  if (missing_value)
    return usage_error("option '%s' needs a value", word, NULL);
  if (word[1] == '-' && match && (n_prefix == 1 || strlen(match->long_name) == len))
    return usage_error("option '--%s' takes no value", match->long_name, NULL);
  if (word[1] == '-' && n_prefix > 1) {
    char candidates[128] = "it may be";
    size_t used = strlen(candidates);
    for (size_t i = 0; i < N_OPTIONS; i++)
      if (options[i].long_name && strncmp(options[i].long_name, name, len) == 0)
        used += (size_t)snprintf(candidates + used, sizeof candidates - used,
                                 " --%s", options[i].long_name);
    return usage_error("option '%s' is ambiguous", word, candidates);
  }
  for (size_t i = 0; i < sizeof foreign_options / sizeof *foreign_options; i++)
    if (strcmp(bare, foreign_options[i].name) == 0)
      return usage_error("unknown option '%s'", word, foreign_options[i].advice);
  /* -x alone has no near long option worth naming. */
  const char *near = word[1] == '-' || len > 1 ? nearest(bare, names, n_names) : NULL;
  if (!near)
    return usage_error("unknown option '%s'", word, NULL);
  char suggestion[96];
  const cli_option *o = NULL;
  for (size_t i = 0; i < N_OPTIONS; i++)
    if (options[i].long_name == near)
      o = &options[i];
  snprintf(suggestion, sizeof suggestion, "did you mean '%s%s'?",
           o && o->single_dash ? "-" : "--", near);
  return usage_error("unknown option '%s'", word, suggestion);
}

static int bad_command(const char *word) {
  if (word[0] == '-')
    return usage_error("missing command (run or emit) before '%s'", word, NULL);
  char suggestion[96];
  if (strchr(word, '.')) {
    snprintf(suggestion, sizeof suggestion, "did you mean 'tanjit run %.60s'?", word);
    return usage_error("unknown command '%s'", word, suggestion);
  }
  const char *near = nearest(word, commands, sizeof commands / sizeof *commands);
  if (near)
    snprintf(suggestion, sizeof suggestion, "did you mean '%s'?", near);
  return usage_error("unknown command '%s'", word, near ? suggestion : NULL);
}

static const cli_option *option_by_id(int id) {
  for (size_t i = 0; i < N_OPTIONS; i++)
    if (options[i].id == id)
      return &options[i];
  return NULL;
}

static void push(cli_list *list, const char *value) {
  list->items[list->n++] = value;
  list->items[list->n] = NULL;
}

/* 0, or the exit status. */
static int apply(cli_args *c, const cli_option *o, const char *value) {
  switch (o->id) {
  case OPT_ENTRY:
    c->entry = value;
    return 0;
  case OPT_LIB:
    push(&c->libs, value);
    return 0;
  case 'L':
    push(&c->dirs, value);
    return 0;
  case OPT_CLANG_ARG:
    push(&c->clang_args, value);
    return 0;
  case 'o':
    c->output = value;
    return 0;
  case OPT_LAZY:
    c->lazy = 1;
    return 0;
  case OPT_STATS:
    c->stats = 1;
    return 0;
  case OPT_CACHE_DIR:
    c->cache_dir = value;
    return 0;
  case OPT_NO_CACHE:
    c->no_cache = 1;
    return 0;
  case OPT_PRE_AD:
    c->pre_ad = value;
    return 0;
  case OPT_PRE_AD_WIDE:
    if (!strcmp(value, "auto"))
      c->pre_ad_wide = CLI_WIDE_AUTO;
    else if (!strcmp(value, "off"))
      c->pre_ad_wide = CLI_WIDE_OFF;
    else if (!strcmp(value, "all"))
      c->pre_ad_wide = CLI_WIDE_ALL;
    else {
      fprintf(stderr, "tanjit: --pre-ad-wide takes 'auto', 'off' or 'all', not '%s'\n",
              value);
      return 2;
    }
    return 0;
  case OPT_COMPILE:
    if (strcmp(value, "lazy") && strcmp(value, "eager")) {
      fprintf(stderr, "tanjit: --compile takes 'lazy' or 'eager', not '%s'\n",
              value);
      return 2;
    }
    c->compile_lazy = strcmp(value, "lazy") == 0;
    return 0;
  case OPT_JOBS: {
    char *end;
    long n = strtol(value, &end, 10);
    if (!*value || *end || n < 1 || n > 64) {
      fprintf(stderr, "tanjit: --jobs takes a number of threads from 1 to 64, "
                      "not '%s'\n", value);
      return 2;
    }
    c->jobs = (unsigned)n;
    return 0;
  }
  case OPT_TRUST_BITCODE:
    c->trust_bitcode = 1;
    return 0;
  case OPT_STRICT_DERIVATIVES:
    c->strict_derivatives = 1;
    return 0;
  case 'g':
    c->debug = 1;
    return 0;
  case 'O': {
    char *end;
    long level = strtol(value, &end, 10);
    if (!*value || *end || level < 0 || level > 3)
      return usage_error("-O takes 0, 1, 2 or 3, not '%s'", value, NULL);
    c->opt_level = (int)level;
    return 0;
  }
  case 'h':
    print_help(stdout);
    return fflush(stdout) ? 1 : 0;
  case OPT_VERSION:
    print_version();
    return fflush(stdout) ? 1 : 0;
  }
  return 0;
}

static int alloc_list(cli_list *list, int capacity) {
  list->items = calloc((size_t)capacity + 1, sizeof *list->items);
  list->n = 0;
  return list->items ? 0 : -1;
}

void cli_args_free(cli_args *c) {
  free(c->inputs.items);
  free(c->libs.items);
  free(c->dirs.items);
  free(c->clang_args.items);
  free(c->words);
  memset(c, 0, sizeof *c);
}

int cli_parse_args(int argc, char **argv, cli_args *c) {
  memset(c, 0, sizeof *c);
  c->entry = "main";
  c->opt_level = 2;
  if (argc < 2)
    return usage_error("%s", "missing command (run or emit)", NULL);
  const char *first = argv[1];
  if (!strcmp(first, "-h") || !strcmp(first, "--help")) {
    print_help(stdout);
    return fflush(stdout) ? 1 : 0;
  }
  if (!strcmp(first, "--version")) {
    print_version();
    return fflush(stdout) ? 1 : 0;
  }
  if (!strcmp(first, "run"))
    c->command = CLI_RUN;
  else if (!strcmp(first, "emit"))
    c->command = CLI_EMIT;
  else
    return bad_command(first);

  /* getopt sees argv without the command, -Xclang-arg as --Xclang-arg. */
  int n = argc - 1;
  c->words = calloc((size_t)n + 1, sizeof *c->words);
  if (!c->words || alloc_list(&c->inputs, n) || alloc_list(&c->libs, n) ||
      alloc_list(&c->dirs, n) || alloc_list(&c->clang_args, n)) {
    fputs("tanjit: out of memory\n", stderr);
    cli_args_free(c);
    return 1;
  }
  static char xclang_long[] = "--Xclang-arg";
  c->words[0] = argv[0];
  int before_separator = 1;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--"))
      before_separator = 0;
    c->words[i - 1] = before_separator && !strcmp(argv[i], "-Xclang-arg")
                          ? xclang_long
                          : argv[i];
  }

  struct option longs[N_OPTIONS + 1];
  char shorts[2 + 2 * N_OPTIONS + 1] = "-:"; /* in order; report errors here */
  size_t n_longs = 0, k = 2;
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const cli_option *o = &options[i];
    if (o->long_name)
      longs[n_longs++] = (struct option){o->long_name,
                                         o->value ? required_argument : no_argument,
                                         NULL, o->id};
    if (o->short_name) {
      shorts[k++] = (char)o->short_name;
      if (o->value)
        shorts[k++] = ':';
    }
  }
  shorts[k] = '\0';
  longs[n_longs] = (struct option){NULL, 0, NULL, 0};

  opterr = 0;
  optind = 1;
  int rc = 0, done = 0;
  for (;;) {
    /* In order, the word getopt reads next is the one it reports on. */
    const char *word = optind < n ? c->words[optind] : "";
    int ch = getopt_long(n, c->words, shorts, longs, NULL);
    if (ch == -1)
      break;
    if (ch == 1) {
      push(&c->inputs, optarg);
      continue;
    }
    if (ch == '?' || ch == ':') {
      rc = bad_option(word == xclang_long ? "-Xclang-arg" : word, ch == ':');
      break;
    }
    const cli_option *o = option_by_id(ch);
    if (o->commands && !(o->commands & c->command)) {
      char what[80];
      if (o->long_name && (word[1] == '-' || !o->short_name))
        snprintf(what, sizeof what, "option '%s%s' is not for %s",
                 o->single_dash ? "-" : "--", o->long_name,
                 c->command == CLI_RUN ? "run" : "emit");
      else
        snprintf(what, sizeof what, "option '-%c' is not for %s", o->short_name,
                 c->command == CLI_RUN ? "run" : "emit");
      rc = usage_error("%s", what, NULL);
      break;
    }
    rc = apply(c, o, optarg);
    if (rc || o->id == 'h' || o->id == OPT_VERSION) {
      done = 1;
      break;
    }
  }
  if (rc || done) {
    cli_args_free(c);
    return rc;
  }
  c->program_args = c->words + optind;
  c->n_program_args = n - optind;

  int n_stdin = 0;
  for (int i = 0; i < c->inputs.n; i++)
    n_stdin += !strcmp(c->inputs.items[i], "-");
  if (!c->inputs.n)
    rc = usage_error("%s", "missing FILE", NULL);
  else if (n_stdin > 1)
    rc = usage_error("%s", "standard input ('-') can be only one FILE", NULL);
  else if (c->command == CLI_EMIT && c->inputs.n > 1)
    rc = usage_error("emit takes one FILE, not '%s' too", c->inputs.items[1], NULL);
  else if (c->command == CLI_EMIT && c->n_program_args)
    rc = usage_error("%s", "program arguments (after --) are for run", NULL);
  if (rc)
    cli_args_free(c);
  return rc ? rc : CLI_PROCEED;
}
