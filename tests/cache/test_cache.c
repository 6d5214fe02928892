/*
 * The object cache: a second session (and a second process) sharing a
 * cache directory adds the first one's objects instead of compiling, with
 * bit-identical results; whatever changes the code changes the key; a
 * damaged entry is ignored and rewritten; a cache that cannot be written
 * is a warning; the size bound evicts least recently used entries.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/check_main.h"
#include "tanjit/tanjit.h"

/* Paths here are short names under /tmp; GCC cannot know it. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* f(x) = sin(x*x) * K + exp(x); df its derivative through a request. */
static char *request_module(double k) {
  static const char fmt[] =
      "declare double @llvm.sin.f64(double)\n"
      "declare double @llvm.exp.f64(double)\n"
      "declare double @__enzyme_fwddiff(ptr, ...)\n"
      "define double @f(double %%x) {\n"
      "  %%a = fmul double %%x, %%x\n"
      "  %%b = call double @llvm.sin.f64(double %%a)\n"
      "  %%c = fmul double %%b, %.17e\n"
      "  %%d = call double @llvm.exp.f64(double %%x)\n"
      "  %%e = fadd double %%c, %%d\n"
      "  ret double %%e\n"
      "}\n"
      "define double @df(double %%x) {\n"
      "  %%r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %%x, double 1.0)\n"
      "  ret double %%r\n"
      "}\n";
  char *text = malloc(sizeof fmt + 64);
  snprintf(text, sizeof fmt + 64, fmt, k);
  return text;
}

/* A plain module (no requests): g(x) = x * C + 1. */
/* d/dx (k sin(x^2) + e^x) */
static double expected_df(double k, double x) {
  return 2 * k * x * cos(x * x) + exp(x);
}

static char *plain_module(double c) {
  char *text = malloc(256);
  snprintf(text, 256,
           "define double @g(double %%x) {\n"
           "  %%a = fmul double %%x, %.17e\n"
           "  %%b = fadd double %%a, 1.0\n"
           "  ret double %%b\n"
           "}\n",
           c);
  return text;
}

static char cache_dir[512];

static void make_cache_dir(void) {
  snprintf(cache_dir, sizeof cache_dir, "/tmp/tanjit-cache-test-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(cache_dir));
}

static void remove_cache_dir(void) {
  DIR *d = opendir(cache_dir);
  if (d) {
    struct dirent *de;
    char path[512];
    while ((de = readdir(d)))
      if (de->d_name[0] != '.' || strlen(de->d_name) > 2) {
        snprintf(path, sizeof path, "%s/%s", cache_dir, de->d_name);
        unlink(path);
      }
    closedir(d);
  }
  rmdir(cache_dir);
}

/* The number of entries in the cache directory; the first one's path. */
static int entries(char *first, size_t cap) {
  int n = 0;
  DIR *d = opendir(cache_dir);
  if (!d)
    return 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len > 4 && strcmp(de->d_name + len - 4, ".tjo") == 0) {
      if (!n && first)
        snprintf(first, cap, "%s/%s", cache_dir, de->d_name);
      n++;
    }
  }
  closedir(d);
  return n;
}

static tanjit_session *open_session(int opt_level, size_t bound) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.opt_level = opt_level;
  o.cache_dir = cache_dir;
  o.cache_max_bytes = bound;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_msg(s, "%s", err ? tanjit_error_message(err) : "");
  return s;
}

static void load(tanjit_session *s, const char *text) {
  tanjit_error *err = NULL;
  int rc = tanjit_load_memory(s, text, strlen(text), "m.ll", &err);
  ck_assert_msg(rc == 0, "%s", err ? tanjit_error_message(err) : "");
}

static double call1(tanjit_session *s, const char *name, double x) {
  tanjit_error *err = NULL;
  double (*fn)(double) = (double (*)(double))tanjit_lookup_function(s, name, &err);
  ck_assert_msg(fn, "%s", err ? tanjit_error_message(err) : "");
  return fn(x);
}

/* One session: load the request module, call df(x); the stats after. */
static double run_df(double k, int opt_level, double x, tanjit_stats *st) {
  tanjit_session *s = open_session(opt_level, 0);
  char *text = request_module(k);
  load(s, text);
  free(text);
  double v = call1(s, "df", x);
  tanjit_session_stats(s, st);
  tanjit_session_free(s);
  return v;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

START_TEST(second_session_hits_with_identical_results) {
  make_cache_dir();
  tanjit_stats st;
  double cold = run_df(3.0, 2, 0.7, &st);
  ck_assert_uint_eq(st.cache_hits, 0);
  ck_assert_uint_eq(st.cache_misses, 1);
  ck_assert_uint_eq(st.modules, 1);
  ck_assert_int_eq(entries(NULL, 0), 1);
  double warm = run_df(3.0, 2, 0.7, &st);
  ck_assert_uint_eq(st.cache_hits, 1);
  ck_assert_uint_eq(st.cache_misses, 0);
  ck_assert_uint_eq(st.modules, 0); /* nothing was transformed */
  ck_assert_msg(same_bits(cold, warm), "cold %.17g, warm %.17g", cold, warm);
    ck_assert_double_eq_tol(warm, expected_df(3.0, 0.7), 1e-9);
  /* a run-time derivative of a function whose module came from the cache
   * is made from the module's pristine copy (not cached itself) */
  tanjit_session *s = open_session(2, 0);
  char *text = request_module(3.0);
  load(s, text);
  free(text);
  call1(s, "df", 0.7);
  tanjit_activity dup = TANJIT_DUP;
  tanjit_error *err = NULL;
  double (*dfx)(double, double) =
      (double (*)(double, double))tanjit_fwddiff(s, "f", &dup, 1, 1, &err);
  ck_assert_msg(dfx, "%s", err ? tanjit_error_message(err) : "");
  ck_assert_double_eq_tol(dfx(0.7, 1.0), expected_df(3.0, 0.7), 1e-12);
  tanjit_session_stats(s, &st);
  ck_assert_uint_eq(st.cache_hits, 1);
  tanjit_session_free(s);
  remove_cache_dir();
}
END_TEST

/* tanjit_fwddiff's derivatives are cached too, keyed by every loaded
 * module's bytes and the request: a second session adds the object. */
static double runtime_derivative(double k, tanjit_activity act, tanjit_stats *st) {
  tanjit_session *s = open_session(2, 0);
  char *text = request_module(k);
  load(s, text);
  free(text);
  tanjit_error *err = NULL;
  double (*dfx)(double, double) =
      (double (*)(double, double))tanjit_fwddiff(s, "f", &act, 1, 1, &err);
  ck_assert_msg(dfx, "%s", err ? tanjit_error_message(err) : "");
  double v = dfx(0.7, 1.0);
  tanjit_session_stats(s, st);
  tanjit_session_free(s);
  return v;
}

/* Derivative code reports what it could not differentiate (an indirect
 * call's target without a derivative) through the session's handler
 * before it traps.  A cached object of it must report to the session that
 * added it: it once held the first session's address (and the address of
 * strings on that process's heap), so a second session's call reached a
 * freed one. */
static const char indirect_module[] =
    "declare double @significand(double)\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @square(double %x) {\n  %r = fmul double %x, %x\n"
    "  ret double %r\n}\n"
    "define double @opaque_user(double %x) {\n"
    "  %r = call double @significand(double %x)\n  ret double %r\n}\n"
    "@table = global [2 x ptr] [ptr @square, ptr @opaque_user]\n"
    "define double @apply(i64 %k, double %x) {\n"
    "  %p = getelementptr [2 x ptr], ptr @table, i64 0, i64 %k\n"
    "  %fp = load ptr, ptr %p\n"
    "  %r = call double %fp(double %x)\n  ret double %r\n}\n"
    "define double @dapply(i64 %k, double %x) {\n"
    "  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @apply, i64 %k, "
    "double %x, double 1.0)\n  ret double %d\n}\n";

static int second_session_marker;

static void report_to_second_session(void *user, const char *symbol,
                                     const char *library, const char *why) {
  (void)library;
  int ok = user == &second_session_marker && strstr(symbol, "opaque_user") &&
           strstr(why, "no forward-mode derivative") &&
           strstr(why, "significand");
  remove_cache_dir();
  _exit(ok ? 3 : 4); /* the derivative traps after the report */
}

static double (*indirect_session(tanjit_session *s))(long, double) {
  load(s, indirect_module);
  tanjit_error *err = NULL;
  double (*dapply)(long, double) =
      (double (*)(long, double))tanjit_lookup_function(s, "dapply", &err);
  ck_assert_msg(dapply, "%s", err ? tanjit_error_message(err) : "");
  ck_assert_double_eq(dapply(0, 3.0), 6.0);
  return dapply;
}

START_TEST(cached_report_reaches_the_session_that_added_it) {
  make_cache_dir();
  tanjit_session *first = open_session(2, 0);
  indirect_session(first);
  tanjit_session_free(first);
  tanjit_options o;
  tanjit_options_init(&o);
  o.opt_level = 2;
  o.cache_dir = cache_dir;
  o.on_unresolved = report_to_second_session;
  o.on_unresolved_user = &second_session_marker;
  tanjit_session *second = tanjit_session_new(&o, NULL);
  ck_assert_ptr_nonnull(second);
  double (*dapply)(long, double) = indirect_session(second);
  tanjit_stats st;
  tanjit_session_stats(second, &st);
  ck_assert_uint_eq(st.cache_hits, 1);
  dapply(1, 3.0); /* opaque_user: reported to `second` */
  ck_abort_msg("the call through the pointer returned");
}
END_TEST

START_TEST(runtime_derivative_hits_in_second_session) {
  make_cache_dir();
  tanjit_stats cold_st, warm_st, other_st;
  double cold = runtime_derivative(3.0, TANJIT_DUP, &cold_st);
  ck_assert_uint_eq(cold_st.cache_hits, 0);
  ck_assert_uint_ge(cold_st.cache_misses, 1);
  double warm = runtime_derivative(3.0, TANJIT_DUP, &warm_st);
  ck_assert_uint_ge(warm_st.cache_hits, 1);
  ck_assert_uint_eq(warm_st.cache_misses, 0);
  ck_assert_uint_eq(warm_st.modules, 0); /* nothing was differentiated */
  ck_assert_msg(same_bits(cold, warm), "cold %.17g, warm %.17g", cold, warm);
  ck_assert_double_eq_tol(warm, expected_df(3.0, 0.7), 1e-12);
  /* another request, or other module bytes, is another entry */
  double dupnoneed = runtime_derivative(3.0, TANJIT_DUPNONEED, &other_st);
  ck_assert_uint_ge(other_st.cache_misses, 1);
  ck_assert(same_bits(dupnoneed, cold));
  double other = runtime_derivative(4.0, TANJIT_DUP, &other_st);
  ck_assert_uint_eq(other_st.cache_hits, 0);
  ck_assert_double_eq_tol(other, expected_df(4.0, 0.7), 1e-12);
  remove_cache_dir();
}
END_TEST

START_TEST(plain_module_hits_at_load) {
  make_cache_dir();
  double v[2];
  for (int i = 0; i < 2; i++) {
    tanjit_session *s = open_session(2, 0);
    char *text = plain_module(2.5);
    load(s, text);
    free(text);
    tanjit_stats st;
    tanjit_session_stats(s, &st);
    ck_assert_uint_eq(st.cache_hits, (unsigned long)i); /* at load */
    v[i] = call1(s, "g", 4.0);
    tanjit_session_stats(s, &st);
    ck_assert_uint_eq(st.cache_misses, (unsigned long)(1 - i));
    tanjit_session_free(s);
  }
  ck_assert(same_bits(v[0], v[1]));
  ck_assert_double_eq(v[1], 11.0);
  remove_cache_dir();
}
END_TEST

START_TEST(changed_bytes_opt_level_or_rules_miss) {
  make_cache_dir();
  tanjit_stats st;
  run_df(3.0, 2, 0.7, &st);
  double other = run_df(4.0, 2, 0.7, &st); /* other bytes */
  ck_assert_uint_eq(st.cache_hits, 0);
  ck_assert_double_eq_tol(other, expected_df(4.0, 0.7), 1e-9);
  run_df(3.0, 1, 0.7, &st); /* other opt level */
  ck_assert_uint_eq(st.cache_hits, 0);
  ck_assert_int_eq(entries(NULL, 0), 3);
  /* a registered custom rule is keyed into request modules */
  tanjit_session *s = open_session(2, 0);
  tanjit_error *err = NULL;
  ck_assert_int_eq(tanjit_register_fwd_rule(s, "unused_fn", "unused_fn_d", 0, &err), 0);
  char *text = request_module(3.0);
  load(s, text);
  free(text);
  call1(s, "df", 0.7);
  tanjit_session_stats(s, &st);
  ck_assert_uint_eq(st.cache_hits, 0);
  ck_assert_uint_eq(st.cache_misses, 1);
  tanjit_session_free(s);
  remove_cache_dir();
}
END_TEST

/* Strict derivative arithmetic (tanjit_options.derivative_fp) makes other
 * code from the same module: another entry, never the fast one's. */
START_TEST(strict_derivatives_miss) {
  make_cache_dir();
  tanjit_stats st;
  run_df(3.0, 2, 0.7, &st);
  for (int i = 0; i < 2; i++) {
    tanjit_options o;
    tanjit_options_init(&o);
    o.cache_dir = cache_dir;
    o.derivative_fp = TANJIT_DERIVATIVE_FP_STRICT;
    tanjit_error *err = NULL;
    tanjit_session *s = tanjit_session_new(&o, &err);
    ck_assert_msg(s, "%s", err ? tanjit_error_message(err) : "");
    char *text = request_module(3.0);
    load(s, text);
    free(text);
    ck_assert_double_eq_tol(call1(s, "df", 0.7), expected_df(3.0, 0.7), 1e-9);
    tanjit_session_stats(s, &st);
    ck_assert_uint_eq(st.cache_hits, (unsigned long)i); /* then its own */
    tanjit_session_free(s);
  }
  ck_assert_int_eq(entries(NULL, 0), 2);
  remove_cache_dir();
}
END_TEST

/* Module A's request differentiates through h, which module B defines:
 * A's object depends on B's bytes. */
static const char views_a[] =
    "declare double @h(double)\n"
    "declare double @__enzyme_fwddiff(ptr, ...)\n"
    "define double @fa(double %x) {\n"
    "  %a = call double @h(double %x)\n"
    "  ret double %a\n"
    "}\n"
    "define double @dfa(double %x) {\n"
    "  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @fa, double %x, double 1.0)\n"
    "  ret double %r\n"
    "}\n";

static double run_views(double c, tanjit_stats *st) {
  tanjit_session *s = open_session(2, 0);
  char b[256];
  snprintf(b, sizeof b,
           "define double @h(double %%x) {\n"
           "  %%a = fmul double %%x, %%x\n  %%b = fmul double %%a, %.17e\n"
           "  ret double %%b\n}\n",
           c);
  load(s, b);
  load(s, views_a);
  double v = call1(s, "dfa", 2.0);
  tanjit_session_stats(s, st);
  tanjit_session_free(s);
  return v;
}

START_TEST(other_modules_bytes_are_keyed_for_views) {
  make_cache_dir();
  tanjit_stats st;
  ck_assert_double_eq(run_views(1.0, &st), 4.0); /* d(x^2)/dx at 2 */
  ck_assert_double_eq(run_views(1.0, &st), 4.0);
  ck_assert_uint_eq(st.cache_hits, 2); /* h's module at load, A's at lookup */
  /* h changed: A's derivative must be made against the new h */
  ck_assert_double_eq(run_views(3.0, &st), 12.0);
  ck_assert_uint_eq(st.cache_hits, 0);
  remove_cache_dir();
}
END_TEST

static void damage(const char *path, int how) {
  if (how == 0) { /* flip a byte of the object */
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    unsigned char c;
    ck_assert_int_eq(pread(fd, &c, 1, 200), 1);
    c ^= 0x5a;
    ck_assert_int_eq(pwrite(fd, &c, 1, 200), 1);
    close(fd);
  } else if (how == 1) { /* truncated */
    ck_assert_int_eq(truncate(path, 100), 0);
  } else { /* foreign: not an entry at all */
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("\x7f" "ELF but not ours, and not a tanjit cache entry either", f);
    fclose(f);
  }
}

START_TEST(damaged_entry_is_ignored_and_rewritten) {
  make_cache_dir();
  tanjit_stats st;
  double cold = run_df(3.0, 2, 0.7, &st);
  char path[512];
  ck_assert_int_eq(entries(path, sizeof path), 1);
  struct stat good;
  ck_assert_int_eq(stat(path, &good), 0);
  damage(path, _i);
  tanjit_session *s = open_session(2, 0);
  char *text = request_module(3.0);
  load(s, text);
  free(text);
  double v = call1(s, "df", 0.7);
  tanjit_session_stats(s, &st);
  ck_assert_uint_eq(st.cache_hits, 0);
  ck_assert_uint_eq(st.cache_misses, 1);
  ck_assert_uint_eq(st.cache_errors, 1);
  ck_assert_uint_ge(tanjit_session_warning_count(s), 1);
  ck_assert_ptr_nonnull(strstr(tanjit_session_warning(s, 0), "object cache: ignored entry"));
  tanjit_session_free(s);
  ck_assert(same_bits(cold, v));
  struct stat again;
  ck_assert_int_eq(stat(path, &again), 0);
  ck_assert_int_eq(again.st_size, good.st_size); /* rewritten */
  double warm = run_df(3.0, 2, 0.7, &st);
  ck_assert_uint_eq(st.cache_hits, 1);
  ck_assert(same_bits(cold, warm));
  remove_cache_dir();
}
END_TEST

START_TEST(unwritable_cache_is_a_warning) {
  /* a directory under a regular file cannot be made, even by root */
  snprintf(cache_dir, sizeof cache_dir, "/tmp/tanjit-cache-file-XXXXXX");
  int fd = mkstemp(cache_dir);
  ck_assert_int_ge(fd, 0);
  close(fd);
  char file[512];
  snprintf(file, sizeof file, "%s", cache_dir);
  strncat(cache_dir, "/sub", sizeof cache_dir - strlen(cache_dir) - 1);
  tanjit_stats st;
  for (int i = 0; i < 2; i++) {
    tanjit_session *s = open_session(2, 0);
    char *text = request_module(3.0);
    load(s, text);
    free(text);
    ck_assert_double_eq_tol(call1(s, "df", 0.7),
                            expected_df(3.0, 0.7), 1e-9);
    text = plain_module(2.0);
    load(s, text);
    free(text);
    ck_assert_double_eq(call1(s, "g", 1.0), 3.0);
    tanjit_session_stats(s, &st);
    ck_assert_uint_eq(st.cache_hits, 0);
    ck_assert_uint_eq(st.cache_errors, 2);
    /* one warning for the writes of a session */
    ck_assert_uint_eq(tanjit_session_warning_count(s), 1);
    ck_assert_ptr_nonnull(strstr(tanjit_session_warning(s, 0), "object cache: cannot write"));
    tanjit_session_free(s);
  }
  unlink(file);
}
END_TEST

START_TEST(size_bound_evicts_least_recently_used) {
  make_cache_dir();
  tanjit_stats st;
  run_df(1.0, 2, 0.5, &st);
  char path[512];
  ck_assert_int_eq(entries(path, sizeof path), 1);
  struct stat one;
  ck_assert_int_eq(stat(path, &one), 0);
  /* room for two entries of this size, not three */
  size_t bound = (size_t)one.st_size * 5 / 2;
  const double ks[] = {1.0, 2.0, 1.0, 3.0};
  unsigned long evicted = 0;
  for (int i = 0; i < 4; i++) {
    sleep(i ? 1 : 0); /* distinct modification times */
    tanjit_session *s = open_session(2, bound);
    char *text = request_module(ks[i]);
    load(s, text);
    free(text);
    call1(s, "df", 0.5);
    tanjit_session_stats(s, &st);
    /* k=1 is a hit the second time (touched: most recently used) */
    ck_assert_uint_eq(st.cache_hits, i == 2 ? 1 : i == 0 ? 1 : 0);
    evicted += st.cache_evictions;
    tanjit_session_free(s);
    ck_assert_int_le(entries(NULL, 0), 2);
  }
  ck_assert_uint_eq(evicted, 1); /* k=2 went when k=3 came */
  tanjit_session *s = open_session(2, bound);
  char *text = request_module(1.0);
  load(s, text);
  free(text);
  call1(s, "df", 0.5);
  tanjit_session_stats(s, &st);
  ck_assert_uint_eq(st.cache_hits, 1);
  tanjit_session_free(s);
  remove_cache_dir();
}
END_TEST

/* The CLI twice on one file and one cache: the same output, the second
 * reporting a hit. */
static char *run_cli_with(const char *env, const char *flags, const char *file,
                          char *stats_line, size_t cap) {
  const char *exe = getenv("TANJIT_EXE");
  ck_assert_ptr_nonnull(exe);
  char cmd[1024], errfile[] = "/tmp/tanjit-cache-cli-XXXXXX";
  int fd = mkstemp(errfile);
  ck_assert_int_ge(fd, 0);
  close(fd);
  snprintf(cmd, sizeof cmd, "env -u TANJIT_CACHE_DIR %s '%s' run '%s' %s --stats 2>'%s'",
           env, exe, file, flags, errfile);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  char *out = calloc(1, 256);
  size_t n = fread(out, 1, 255, p);
  out[n] = 0;
  ck_assert_int_eq(pclose(p), 0);
  FILE *e = fopen(errfile, "r");
  stats_line[0] = 0;
  if (e) {
    size_t m = fread(stats_line, 1, cap - 1, e);
    stats_line[m] = 0;
    fclose(e);
  }
  unlink(errfile);
  return out;
}

static char *run_cli(const char *file, char *stats_line, size_t cap) {
  char flags[600];
  snprintf(flags, sizeof flags, "--cache-dir '%s'", cache_dir);
  return run_cli_with("", flags, file, stats_line, cap);
}

static void write_program(const char *file) {
  FILE *f = fopen(file, "w");
  ck_assert_ptr_nonnull(f);
  char *text = request_module(3.0);
  fputs(text, f);
  free(text);
  fputs("declare i32 @printf(ptr, ...)\n"
        "@fmt = private unnamed_addr constant [7 x i8] c\"%.17g\\0A\\00\"\n"
        "define i32 @main(i32 %c, ptr %v) {\n"
        "  %d = call double @df(double 0.7)\n"
        "  call i32 (ptr, ...) @printf(ptr @fmt, double %d)\n"
        "  ret i32 0\n}\n",
        f);
  fclose(f);
}

/* Without --cache-dir the CLI uses $XDG_CACHE_HOME/tanjit; --no-cache
 * neither reads nor writes it. */
START_TEST(cli_default_directory_and_no_cache) {
  make_cache_dir();
  char file[600], env[600], err[1024];
  snprintf(file, sizeof file, "%s.ll", cache_dir);
  write_program(file);
  snprintf(env, sizeof env, "XDG_CACHE_HOME='%s'", cache_dir);
  free(run_cli_with(env, "--no-cache", file, err, sizeof err));
  ck_assert_msg(!strstr(err, "object cache"), "%s", err);
  char sub[400];
  snprintf(sub, sizeof sub, "%s/tanjit", cache_dir);
  struct stat sb;
  ck_assert_int_ne(stat(sub, &sb), 0); /* nothing written */
  free(run_cli_with(env, "", file, err, sizeof err));
  ck_assert_msg(strstr(err, "object cache: 0 hits, 1 miss"), "%s", err);
  free(run_cli_with(env, "", file, err, sizeof err));
  ck_assert_msg(strstr(err, "object cache: 1 hit, 0 misses"), "%s", err);
  char saved[512];
  snprintf(saved, sizeof saved, "%s", cache_dir);
  snprintf(cache_dir, sizeof cache_dir, "%s", sub);
  ck_assert_int_eq(entries(NULL, 0), 1);
  remove_cache_dir();
  snprintf(cache_dir, sizeof cache_dir, "%s", saved);
  remove_cache_dir();
  unlink(file);
}
END_TEST

START_TEST(cli_second_process_hits) {
  make_cache_dir();
  char file[600];
  snprintf(file, sizeof file, "%s.ll", cache_dir);
  write_program(file);
  char err1[1024], err2[1024];
  char *cold = run_cli(file, err1, sizeof err1);
  char *warm = run_cli(file, err2, sizeof err2);
  ck_assert_str_eq(cold, warm);
  ck_assert_double_eq_tol(strtod(cold, NULL), expected_df(3.0, 0.7),
                          1e-9);
  ck_assert_msg(strstr(err1, "object cache: 0 hits, 1 miss"), "%s", err1);
  ck_assert_msg(strstr(err2, "object cache: 1 hit, 0 misses"), "%s", err2);
  free(cold);
  free(warm);
  unlink(file);
  remove_cache_dir();
}
END_TEST

int main(void) {
  Suite *s = suite_create("cache");
  TCase *tc = tcase_create("cache");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, second_session_hits_with_identical_results);
  tcase_add_test(tc, plain_module_hits_at_load);
  tcase_add_test(tc, runtime_derivative_hits_in_second_session);
  tcase_add_exit_test(tc, cached_report_reaches_the_session_that_added_it, 3);
  tcase_add_test(tc, changed_bytes_opt_level_or_rules_miss);
  tcase_add_test(tc, strict_derivatives_miss);
  tcase_add_test(tc, other_modules_bytes_are_keyed_for_views);
  tcase_add_loop_test(tc, damaged_entry_is_ignored_and_rewritten, 0, 3);
  tcase_add_test(tc, unwritable_cache_is_a_warning);
  tcase_add_test(tc, size_bound_evicts_least_recently_used);
  tcase_add_test(tc, cli_second_process_hits);
  tcase_add_test(tc, cli_default_directory_and_no_cache);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
