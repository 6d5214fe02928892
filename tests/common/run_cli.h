/*
 * Runs the `tanjit` command (path in $TANJIT_EXE) with an argv, shell-free,
 * capturing stdout and stderr together; for the Check suites that test the
 * CLI end to end.
 */
#ifndef TANJIT_TESTS_RUN_CLI_H
#define TANJIT_TESTS_RUN_CLI_H

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* `args` is NULL-terminated (at most 30).  Returns the exit status, or
 * 128 + the signal; `output` receives what it printed, NUL-terminated.
 * Standard input is the file `stdin_path` (NULL: inherited). */
static inline int run_tanjit_cli_stdin(const char *const *args,
                                       const char *stdin_path, char *output,
                                       size_t cap) {
  char path[] = "/tmp/tanjit-cli-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  pid_t pid = fork();
  if (pid == 0) {
    if (stdin_path) {
      int in = open(stdin_path, O_RDONLY);
      if (in < 0 || dup2(in, 0) < 0)
        _exit(126);
    }
    dup2(fd, 1);
    dup2(fd, 2);
    const char *argv[32];
    int n = 0;
    argv[n++] = getenv("TANJIT_EXE");
    for (; args[n - 1] && n < 31; n++)
      argv[n] = args[n - 1];
    argv[n] = NULL;
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  lseek(fd, 0, SEEK_SET);
  ssize_t len = read(fd, output, cap - 1);
  output[len > 0 ? len : 0] = '\0';
  close(fd);
  unlink(path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static inline int run_tanjit_cli(const char *const *args, char *output,
                                 size_t cap) {
  return run_tanjit_cli_stdin(args, NULL, output, cap);
}

#endif
