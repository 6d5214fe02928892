// Exceptions out of a gradient (C++ with exceptions on: the name ends in
// _eh).  f throws from a callee (checked_sq) and from its own body (once
// after enough records to move the tape's buffer) while its aug holds
// memory for the reverse: the tape's records, the shadow of a new[] array
// (freed by a destructor in a cleanup pad) and of locals.  The caller catches and retries 200 times, in combined and in split mode
// (__enzyme_augmentfwd): each exception reaches it unchanged (type and
// message), the shadows it passed are untouched (no reverse ran), and
// what the gradient allocated is freed on the way out: the heap does not
// grow (glibc's count here, the leak check of the ASan build of the
// suite).  Gradients before and after the throws are checked against
// finite differences.
#define RC_OWN_PROTOTYPE
#include <malloc.h>
#include <stdexcept>
#include <string.h>
#include "rev_check.h"
#include "split_abi.h"
extern "C" double __enzyme_autodiff(void *, ...);
extern "C" augmented __enzyme_augmentfwd(void *, ...);
extern "C" void __enzyme_reverse(void *, ...);

enum { N = 6 };

struct scratch {
  double *p;
  explicit scratch(int n) : p(new double[n]) {}
  ~scratch() { delete[] p; }
};

__attribute__((noinline)) static double checked_sq(double x) {
  if (x > 100)
    throw std::range_error("too big");
  return x * x;
}

static double f(double *x, int n) {
  scratch s(n);
  double r = 0;
  for (int i = 0; i < n; i++) {
    double t = checked_sq(x[i]) * std::sin(x[(i + 1) % n]);
    if (x[i] < -50)
      throw std::runtime_error("too small");
    s.p[i] = t;
    r += t;
  }
  /* records enough to move the tape's buffer, then a throw with no call
   * in between that would have copied the header out */
  for (int k = 0; k < 600; k++)
    r = 0.999 * r + 0.001 * std::sin(r + x[k % n]);
  if (x[0] == 42.0)
    throw std::logic_error("late");
  for (int i = 0; i < n; i++)
    r += s.p[i] * x[(i + 2) % n];
  return r;
}

static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  return f(x, N);
}

static size_t heap_in_use() { return mallinfo2().uordblks; }

static void good_input(double *x) {
  for (int i = 0; i < N; i++)
    x[i] = 0.4 + 0.3 * i - 0.07 * i * i;
}

static void check_gradient(const char *name) {
  double x[N], dx[N];
  long double p[N], got[N];
  good_input(x);
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  rc_seed(dx, N);
  __enzyme_autodiff((void *)f, x, dx, N);
  for (int i = 0; i < N; i++)
    got[i] = dx[i] - rc_seed_value(i);
  rc_check(name, run, p, got, N);
}

/* One throwing request of each kind; counts what was caught right. */
static int throw_once(int round) {
  int ok = 0;
  double x[N], dx[N];
  good_input(x);
  rc_seed(dx, N);
  x[2 + round % 3] = 200; /* checked_sq throws at that entry */
  try {
    __enzyme_autodiff((void *)f, x, dx, N);
  } catch (const std::range_error &e) {
    ok += strcmp(e.what(), "too big") == 0;
  }
  good_input(x);
  x[3] = -60; /* f throws after checked_sq(x[3]) */
  try {
    __enzyme_autodiff((void *)f, x, dx, N);
  } catch (const std::runtime_error &e) {
    ok += strcmp(e.what(), "too small") == 0;
  }
  good_input(x);
  x[0] = 42.0;
  try {
    __enzyme_autodiff((void *)f, x, dx, N);
  } catch (const std::logic_error &e) {
    ok += strcmp(e.what(), "late") == 0;
  }
  good_input(x);
  x[4] = 300;
  try {
    augmented a = __enzyme_augmentfwd((void *)f, x, dx, N);
    __enzyme_reverse((void *)f, x, dx, N, 1.0, a.tape);
  } catch (const std::range_error &e) {
    ok += strcmp(e.what(), "too big") == 0;
  }
  for (int i = 0; i < N; i++)
    ok -= dx[i] != rc_seed_value(i); /* no reverse ran */
  return ok;
}

int main() {
  check_gradient("cpp_throw_retry_eh: before");
  throw_once(0); /* the runtime's own first-throw allocations */
  size_t before = heap_in_use();
  int caught = 0;
  for (int round = 0; round < 200; round++)
    caught += throw_once(round);
  size_t after = heap_in_use();
  rc_checks += 2;
  if (caught != 4 * 200) {
    printf("MISMATCH cpp_throw_retry_eh: %d of 800 exceptions caught as "
           "thrown, with shadows untouched\n", caught);
    rc_failures++;
  }
  if (after > before + 64 * 1024) {
    printf("MISMATCH cpp_throw_retry_eh: the heap grew by %zu bytes over "
           "800 exceptions out of gradients\n", after - before);
    rc_failures++;
  }
  check_gradient("cpp_throw_retry_eh: after");
  return rc_result();
}
