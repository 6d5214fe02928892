// Reverse over reverse with exceptions on (the name ends in _eh): the
// inner gradient can unwind, so the outer differentiates its guard
// (rev/exceptions.c), and the exception thrown in f leaves the inner aug,
// the inner guard's cleanup (tanjit.rev.unwound, cloned by the outer) and
// the outer's own guard before main catches it.  Second derivatives
// before and after 50 throws are checked against finite differences of
// the first; neither the heap (glibc's count) nor the address space grows
// across the throws (each inner tape's shadow is a 64 GiB reservation,
// rev/nested.c, which the outer's guard unmaps).
#define RC_OWN_PROTOTYPE
#include <fcntl.h>
#include <malloc.h>
#include <stdexcept>
#include <stdlib.h>
#include <unistd.h>
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

/* throws at step 3, after the tapes hold records of steps 0..2 */
__attribute__((noinline)) static double checked(double t, int i) {
  if (i == 3 && t > 50)
    throw std::range_error("too big");
  return t;
}

static double f(double x, int n) {
  double s = 0, t = x;
  for (int i = 0; i < n; i++) {
    s += std::sin(t) * checked(t, i);
    t = 0.5 * t + 0.25 * x;
  }
  return s;
}
static double df(double x, int n) {
  return __enzyme_autodiff((void *)f, x, enzyme_const, n);
}
static double ddf(double x, int n) {
  return __enzyme_autodiff((void *)df, x, enzyme_const, n);
}

enum { STEPS = 6 };
static long double run_df(const long double *p) {
  return df((double)p[0], STEPS);
}

/* the address space in bytes (/proc/self/statm's size, read without the
 * heap) */
static long double address_space() {
  char buf[64] = {0};
  int fd = open("/proc/self/statm", O_RDONLY);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  return n > 0 ? strtold(buf, NULL) * sysconf(_SC_PAGESIZE) : 0;
}

static void check_at(double x) {
  long double p[1] = {x}, got[1] = {ddf(x, STEPS)};
  rc_check("second derivative", run_df, p, got, 1);
}

int main() {
  check_at(0.8);
  size_t before = 0;
  long double space = 0;
  int caught = 0;
  for (int k = 0; k < 50; k++) {
    try {
      ddf(150.0 + k, STEPS);
    } catch (const std::range_error &e) {
      caught += std::string(e.what()) == "too big";
    }
    if (k == 0) {
      before = mallinfo2().uordblks;
      space = address_space();
    }
  }
  rc_expect("exceptions caught", caught, 50, 0);
  size_t after = mallinfo2().uordblks;
  rc_expect("heap growth across the throws (bytes)",
            after > before ? (long double)(after - before) : 0, 0, 4096);
  long double grown = address_space() - space;
  rc_expect("address space growth across the throws (GiB)",
            grown > 0 ? grown / (1ull << 30) : 0, 0, 1);
  check_at(-1.3);
  return rc_result();
}
