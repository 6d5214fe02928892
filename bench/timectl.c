/* The callgrind driver's two hooks (cg_on, cg_off_dump: see the anchor's
 * cgctl.c) as a stopwatch, built as a shared library for `tanjit run --lib`,
 * so the same driver and the same JIT-compiled code are timed natively:
 * each window prints "TIME <label><TAB><nanoseconds>" on stdout.
 *
 * The clock is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not the
 * wall clock: on a shared machine the time other processes hold the core
 * is not counted (their effect on caches and clock frequency still is). */
#include <stdio.h>
#include <time.h>

static struct timespec started;

void cg_on(void) { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &started); }

void cg_off_dump(const char *label) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  double ns = (double)(now.tv_sec - started.tv_sec) * 1e9 +
              (double)(now.tv_nsec - started.tv_nsec);
  printf("TIME %s\t%.0f\n", label, ns);
}

void cg_zero(void) {}
