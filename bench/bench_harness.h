/*
 * What the two timed benchmarks (kernels.c, grad_kernels.c) share: the
 * barrier that keeps repeated calls apart, the clock, the batch timer, the
 * input generator and the allocator.  Included once by each, before its
 * kernels; BENCH_PROGRAM names the program in error messages.
 *
 * Everything here is static and only what a program uses is emitted, so the
 * kernels' IR (and the side-by-side drivers that include grad_kernels.c) is
 * as it was when these lines lived in each file.
 */
#ifndef TANJIT_BENCH_HARNESS_H
#define TANJIT_BENCH_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef BENCH_PROGRAM
#error "define BENCH_PROGRAM (the name error messages start with) first"
#endif

#define NOINLINE __attribute__((noinline))
#define BENCH_UNUSED __attribute__((unused))
/* Keeps the optimizer from merging or hoisting repeated timed calls. */
#define BARRIER() __asm__ volatile("" ::: "memory")

/* The same inputs in every run: xorshift64, uniform in [lo, hi). */
static unsigned long long rng_state = 88172645463325252ULL;
static BENCH_UNUSED double uniform(double lo, double hi) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

static BENCH_UNUSED double *alloc_doubles(int n) {
  double *p = calloc((size_t)n, sizeof(double));
  if (!p) {
    fprintf(stderr, BENCH_PROGRAM ": out of memory\n");
    exit(2);
  }
  return p;
}

/* The thread's CPU time, not the wall clock: on a shared machine the time
 * other processes hold the core is not counted (bench/timectl.c too). */
static BENCH_UNUSED double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The least time one timed batch takes (--quick lowers it). */
static BENCH_UNUSED double min_seconds = 0.05;

/* ns per call: repetitions double until one batch takes min_seconds, and
 * the best of three such batches is kept. */
#define TIME_CALLS(result, call)                                               \
  do {                                                                         \
    long reps = 1;                                                             \
    double best = 1e300;                                                       \
    for (int round = 0; round < 3;) {                                          \
      double t0 = now_ns();                                                    \
      for (long r = 0; r < reps; r++) {                                        \
        call;                                                                  \
        BARRIER();                                                             \
      }                                                                        \
      double per = (now_ns() - t0) / reps;                                     \
      if (per * reps < min_seconds * 1e9) {                                    \
        reps *= 2;                                                             \
        continue;                                                              \
      }                                                                        \
      best = per < best ? per : best;                                          \
      round++;                                                                 \
    }                                                                          \
    result = best;                                                             \
  } while (0)

#endif
