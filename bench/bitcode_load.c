/*
 * What the sandboxed bitcode reader costs per load (issue 10): the same
 * bitcode file loaded N times through tanjit_load_memory with the default
 * (untrusted: helper spawn, parse, verify, re-serialize, then parse the
 * helper's output) and with trust_bitcode (parse in-process), in fresh
 * sessions, nothing compiled.  Prints the median and minimum per load.
 *
 *   bitcode_load FILE.bc [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tanjit/tanjit.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Times n loads; fills times[] (seconds); 0 or -1. */
static int time_loads(const char *buf, size_t len, int trust, int n,
                      double *times) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.trust_bitcode = trust;
  for (int i = 0; i < n; i++) {
    tanjit_error *err = NULL;
    tanjit_session *s = tanjit_session_new(&o, &err);
    if (!s) {
      fprintf(stderr, "session: %s\n", tanjit_error_message(err));
      return -1;
    }
    double t0 = now();
    int rc = tanjit_load_memory(s, buf, len, "bench.bc", &err);
    times[i] = now() - t0;
    tanjit_session_free(s);
    if (rc) {
      fprintf(stderr, "load: %s\n", tanjit_error_message(err));
      tanjit_error_free(err);
      return -1;
    }
  }
  qsort(times, (size_t)n, sizeof *times, by_value);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE.bc [N]\n", argv[0]);
    return 2;
  }
  int n = argc > 2 ? atoi(argv[2]) : 30;
  if (n < 1)
    n = 1;
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  static char buf[64 << 20];
  size_t len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  double *direct = calloc((size_t)n, sizeof *direct);
  double *sandboxed = calloc((size_t)n, sizeof *sandboxed);
  if (!direct || !sandboxed || time_loads(buf, len, 1, n, direct) ||
      time_loads(buf, len, 0, n, sandboxed))
    return 1;
  printf("bitcode load, %zu bytes, %d loads each (ms per load, median / min):\n",
         len, n);
  printf("  trusted (in-process)   %7.2f / %7.2f\n", 1e3 * direct[n / 2],
         1e3 * direct[0]);
  printf("  untrusted (sandboxed)  %7.2f / %7.2f\n", 1e3 * sandboxed[n / 2],
         1e3 * sandboxed[0]);
  printf("  sandbox adds           %7.2f ms per load (median)\n",
         1e3 * (sandboxed[n / 2] - direct[n / 2]));
  free(direct);
  free(sandboxed);
  return 0;
}
