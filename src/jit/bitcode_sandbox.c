/*
 * Untrusted bitcode is read in a separate process (issue 10): LLVM's bitcode
 * reader is not hardened against hostile input (segfaults in metadata
 * loading and the type table, heap overflows, multi-gigabyte allocations),
 * and inside a language host its crash would be the host's.
 *
 * Pipeline: the input goes to the helper tanjit-bitcode-check
 * (src/tools/) on an anonymous memory file as its stdin; the helper limits
 * its own address space and CPU time, parses (materializing everything),
 * verifies, and writes the module back as bitcode to a second memory file.
 * The library parses *that* output, produced by LLVM's writer from a module
 * that parsed and verified: the in-process reader only ever sees bitcode
 * from a trusted writer.  (Parsing the original after a successful check
 * would also work, but would trust that the helper's reader and ours take
 * the same path through the input.)
 *
 * posix_spawn, not fork: the host may be threaded.  Every descriptor made
 * here is close-on-exec, so children other threads spawn meanwhile do not
 * inherit them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/fdio.h"
#include "common/strbuf.h"
#include "jit/jit.h"

extern char **environ;

#define CHECKER_NAME "tanjit-bitcode-check"
/* Address space: LLVM's own mappings and a generous multiple of the
 * input, which real modules never come near (they expand about 5-20x). */
#define CHECKER_BASE_MEMORY (1ull << 31)
#define CHECKER_MEMORY_PER_BYTE 32ull
#define CHECKER_BASE_CPU_SECONDS 10
#define CHECKER_WALL_SECONDS_PER_CPU_SECOND 3
#define CHECKER_STDERR_KEPT 2048

static int executable_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
         access(path, X_OK) == 0;
}

/* Where the checker is, first match: the session's option, the
 * TANJIT_BITCODE_CHECK environment variable, beside the library that holds
 * this code (its installed libexecdir relative to its libdir, then the
 * build tree's src/tools), the configured libexecdir, and for the test
 * archive the build tree.  0 with *out (caller frees); -1 not found, with
 * *tried listing what was tried; -2 out of memory. */
static int found(const char *path, char **out) {
  return (*out = tj_strdup(path)) ? 0 : -2;
}

static int find_checker(const tanjit_session *s, strbuf *tried, char **out) {
  *out = NULL;
  if (s->bitcode_checker) {
    sb_append(tried, s->bitcode_checker);
    return executable_file(s->bitcode_checker) ? found(s->bitcode_checker, out) : -1;
  }
  const char *env = secure_getenv("TANJIT_BITCODE_CHECK");
  if (env && *env) {
    sb_printf(tried, "%s (TANJIT_BITCODE_CHECK)", env);
    return executable_file(env) ? found(env, out) : -1;
  }
  Dl_info info;
  if (dladdr((void *)find_checker, &info) && info.dli_fname &&
      strchr(info.dli_fname, '/')) {
    const char *slash = strrchr(info.dli_fname, '/');
    const char *relative[] = {TANJIT_LIBEXEC_FROM_LIBDIR, "tools"};
    for (size_t i = 0; i < sizeof relative / sizeof *relative; i++) {
      strbuf path;
      sb_init(&path);
      sb_appendn(&path, info.dli_fname, (size_t)(slash - info.dli_fname));
      sb_printf(&path, "/%s/" CHECKER_NAME, relative[i]);
      if (path.failed || !path.data) {
        sb_free(&path);
        return -2;
      }
      sb_printf(tried, "%s%s", tried->len ? ", " : "", path.data);
      if (executable_file(path.data)) {
        *out = sb_take(&path);
        return 0;
      }
      sb_free(&path);
    }
  }
  const char *fixed[] = {
      TANJIT_LIBEXECDIR "/" CHECKER_NAME,
#ifdef TANJIT_BUILD_TOOLS_DIR
      TANJIT_BUILD_TOOLS_DIR "/" CHECKER_NAME,
#endif
  };
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
    sb_printf(tried, "%s%s", tried->len ? ", " : "", fixed[i]);
    if (executable_file(fixed[i]))
      return found(fixed[i], out);
  }
  return -1;
}

static int memory_file(const char *what) {
  return memfd_create(what, MFD_CLOEXEC);
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Reads the child's stderr until it closes (the child exited) or the
 * deadline passes (returns 1: timed out).  Keeps the first bytes. */
static int drain_until_exit(int fd, double deadline, strbuf *kept) {
  for (;;) {
    double left = deadline - now_seconds();
    if (left <= 0)
      return 1;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int ready = poll(&p, 1, (int)(left * 1000) + 1);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      continue; /* re-check the deadline */
    char chunk[512];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return 0;
    if (kept->len < CHECKER_STDERR_KEPT)
      sb_appendn(kept, chunk, (size_t)n);
  }
}

static void trim_newlines(strbuf *sb) {
  while (sb->len && (sb->data[sb->len - 1] == '\n' || sb->data[sb->len - 1] == '\r'))
    sb->data[--sb->len] = '\0';
  for (size_t i = 0; i < sb->len; i++)
    if (sb->data[i] == '\n')
      sb->data[i] = ' ';
}

int jit_bitcode_sanitize(const tanjit_session *s, const void *data, size_t len,
                         const char *name, char **out, size_t *out_len,
                         tanjit_error **err) {
  *out = NULL;
  *out_len = 0;
  strbuf tried, diag;
  sb_init(&tried);
  sb_init(&diag);
  char *checker;
  int where = find_checker(s, &tried, &checker);
  if (where == -2 || (where == -1 && tried.failed)) {
    sb_free(&tried);
    return tj_fail(err, TANJIT_ERR_NO_MEMORY,
                   "%s: out of memory finding " CHECKER_NAME, name);
  }
  if (where) {
    tj_fail(err, TANJIT_ERR_IO,
            "%s: untrusted bitcode is read by the " CHECKER_NAME
            " helper, which was not found (tried %s); install it, name it "
            "with TANJIT_BITCODE_CHECK or the bitcode_checker option, or set "
            "trust_bitcode",
            name, tried.data ? tried.data : "nothing");
    sb_free(&tried);
    return -1;
  }
  sb_free(&tried);

  int rc = -1, in_fd = -1, out_fd = -1, err_pipe[2] = {-1, -1};
  pid_t pid = -1;
  unsigned long long memory = CHECKER_BASE_MEMORY + CHECKER_MEMORY_PER_BYTE * len;
  unsigned long long cpu = CHECKER_BASE_CPU_SECONDS + len / (1u << 20);
  char memory_arg[32], cpu_arg[32];
  snprintf(memory_arg, sizeof memory_arg, "%llu", memory);
  snprintf(cpu_arg, sizeof cpu_arg, "%llu", cpu);
  char *argv[] = {checker, "--max-memory", memory_arg, "--max-cpu", cpu_arg, NULL};

  in_fd = memory_file("tanjit-bitcode-in");
  out_fd = memory_file("tanjit-bitcode-out");
  if (in_fd < 0 || out_fd < 0 || pipe2(err_pipe, O_CLOEXEC) ||
      tj_write_all(in_fd, data, len) || lseek(in_fd, 0, SEEK_SET) != 0) {
    tj_fail(err, TANJIT_ERR_IO, "%s: cannot stage bitcode for " CHECKER_NAME ": %s",
            name, strerror(errno));
    goto done;
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&actions, in_fd, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  /* The host's blocked and ignored signals are not the helper's. */
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  int spawn_error = posix_spawn(&pid, checker, &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(err_pipe[1]);
  err_pipe[1] = -1;
  if (spawn_error) {
    pid = -1;
    tj_fail(err, TANJIT_ERR_IO, "%s: cannot start %s: %s", name, checker,
            strerror(spawn_error));
    goto done;
  }

  double wall = (double)(cpu * CHECKER_WALL_SECONDS_PER_CPU_SECOND);
  int timed_out = drain_until_exit(err_pipe[0], now_seconds() + wall, &diag);
  if (timed_out)
    kill(pid, SIGKILL);
  int status;
  pid_t waited;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
    ;
  pid = -1;
  trim_newlines(&diag);
  const char *why = diag.data ? diag.data : "no message";
  if (waited < 0) {
    /* The host reaps children itself (SIGCHLD ignored or a waitpid(-1)
     * handler): the outcome is unknown, so the input is not accepted. */
    tj_fail(err, TANJIT_ERR_INTERNAL,
            "%s: cannot read the exit status of " CHECKER_NAME ": %s", name,
            strerror(errno));
  } else if (timed_out) {
    tj_fail(err, TANJIT_ERR_PARSE,
            "%s: the bitcode reader did not finish within %.0f s on this "
            "input (%zu bytes)",
            name, wall, len);
  } else if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    tj_fail(err, TANJIT_ERR_PARSE,
            "%s: the bitcode reader crashed on this input (signal %d, %s; "
            "%zu bytes)%s%s",
            name, sig, sig == SIGXCPU ? "out of CPU time" : strsignal(sig), len,
            diag.data ? ": " : "", diag.data ? diag.data : "");
  } else if (WEXITSTATUS(status) == 2) {
    tj_fail(err, TANJIT_ERR_PARSE,
            "%s: invalid or truncated LLVM bitcode (%zu bytes): %s", name,
            len, why);
  } else if (WEXITSTATUS(status) == 3) {
    tj_fail(err, TANJIT_ERR_VERIFY, "%s: the module fails LLVM's verifier: %s",
            name, why);
  } else if (WEXITSTATUS(status) != 0) {
    tj_fail(err, TANJIT_ERR_PARSE,
            "%s: the bitcode reader failed on this input (exit status %d, "
            "%zu bytes): %s",
            name, WEXITSTATUS(status), len, why);
  } else {
    struct stat st;
    if (fstat(out_fd, &st) || st.st_size <= 0) {
      tj_fail(err, TANJIT_ERR_INTERNAL, "%s: " CHECKER_NAME " wrote no bitcode",
              name);
      goto done;
    }
    size_t n = (size_t)st.st_size;
    char *copy = tj_malloc(n);
    if (!copy) {
      tj_fail(err, TANJIT_ERR_NO_MEMORY, "%s: out of memory reading checked bitcode",
              name);
      goto done;
    }
    size_t got = 0;
    while (got < n) {
      ssize_t r = pread(out_fd, copy + got, n - got, (off_t)got);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      got += (size_t)r;
    }
    if (got != n) {
      free(copy);
      tj_fail(err, TANJIT_ERR_IO, "%s: cannot read checked bitcode: %s", name,
              strerror(errno));
      goto done;
    }
    *out = copy;
    *out_len = n;
    rc = 0;
  }
done:
  if (pid > 0) {
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
      ;
  }
  if (in_fd >= 0)
    close(in_fd);
  if (out_fd >= 0)
    close(out_fd);
  if (err_pipe[0] >= 0)
    close(err_pipe[0]);
  if (err_pipe[1] >= 0)
    close(err_pipe[1]);
  sb_free(&diag);
  free(checker);
  return rc;
}
