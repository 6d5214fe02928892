/*
 * The `tanjit` command, private to src/cli: what a command line asks for
 * (args.c), how each input becomes a module's bytes (inputs.c), and how the
 * library's errors read on a terminal (report.c).  main.c drives them.
 */
#ifndef TANJIT_CLI_H
#define TANJIT_CLI_H

#include <stddef.h>

#include "tanjit/tanjit.h"

typedef enum cli_command { CLI_RUN = 1, CLI_EMIT = 2 } cli_command;

/* A list of borrowed strings, NULL-terminated (a library_dirs array). */
typedef struct cli_list {
  const char **items;
  int n;
} cli_list;

/* Which wide forward requests differentiate a copy (--pre-ad-wide). */
typedef enum cli_wide_mode {
  CLI_WIDE_AUTO, /* those whose rolled loops would spill pointers (the default) */
  CLI_WIDE_OFF,  /* none */
  CLI_WIDE_ALL   /* every request of width >= 2 */
} cli_wide_mode;

typedef struct cli_args {
  cli_command command;
  cli_list inputs;    /* FILE...; "-" is standard input */
  const char *entry;  /* run: the function called (default "main") */
  const char *output; /* emit: NULL or "-" for standard output */
  cli_list libs, dirs, clang_args;
  int opt_level; /* 0..3 */
  int lazy, stats;
  int trust_bitcode; /* --trust-bitcode: .bc read in this process */
  const char *cache_dir; /* --cache-dir DIR ("": none) */
  int no_cache;          /* --no-cache */
  int compile_lazy;      /* --compile lazy */
  unsigned jobs;         /* --jobs N; 0: the library's default */
  int debug; /* -g: clang -g, and the session's debugger and perf support */
  int strict_derivatives; /* --strict-derivatives: TANJIT_DERIVATIVE_FP_STRICT */
  char **program_args;
  int n_program_args;
  char **words; /* the argv copy getopt permuted; owned */
  const char *pre_ad; /* --pre-ad PASSES; NULL: pre_ad.c's default */
  cli_wide_mode pre_ad_wide; /* --pre-ad-wide auto|off|all */
} cli_args;

/* args.c */
/* The exit status of a command line that is done before loading anything
 * (usage error: 2 after one line on stderr; --help, --version: 0), or
 * CLI_PROCEED with *c filled (free with cli_args_free). */
#define CLI_PROCEED (-1)
int cli_parse_args(int argc, char **argv, cli_args *c);
void cli_args_free(cli_args *c);

/* inputs.c */
typedef enum cli_input_kind {
  CLI_INPUT_IR,    /* .ll text or .bc bitcode, told apart by content */
  CLI_INPUT_STDIN, /* "-": IR read from standard input */
  CLI_INPUT_C,     /* .c */
  CLI_INPUT_CXX    /* .cpp .cc .cxx .C */
} cli_input_kind;
cli_input_kind cli_input_kind_of(const char *path);
/* The most bytes read from one input (a FILE, stdin, clang's output):
 * TANJIT_INPUT_LIMIT, bytes with an optional K, M or G, else the library's
 * default; 0 after printing why the variable cannot be read. */
size_t cli_input_limit(void);

/* One input as the library takes it: `data` NULL means "load the file
 * `name`" (tanjit_load_file reads it); else `len` bytes of IR or bitcode
 * (owned) named `name` in messages. */
typedef struct cli_module {
  const char *name;
  char *data;
  size_t len;
} cli_module;
/* 0, or 1 after printing why: a read error, input past the size limit,
 * clang failing. */
int cli_prepare_input(const cli_args *c, const char *input, cli_module *m);
void cli_module_free(cli_module *m);

/* pre_ad.c */
/* Whether C and C++ are compiled without LLVM's passes and given
 * cli_pre_ad's (from -O1 on). */
int cli_pre_ad_applies(const cli_args *c);
/* Runs the passes that come before differentiation on m's IR text, with
 * the functions Enzyme's registration globals name kept from inlining;
 * replaces m's data.  0, or 1 after printing why. */
int cli_pre_ad(const cli_args *c, cli_module *m);

/* report.c */
/* Prints `err` for a person (a source location first, compiler style, when
 * the message carries one) and any hint it suggests; frees it; returns 1. */
int cli_report(tanjit_error *err, const cli_args *c);
/* A session warning the same way: "FILE:L: warning: ..." or
 * "tanjit: warning: ...". */
void cli_print_warning(const char *msg);

#endif
