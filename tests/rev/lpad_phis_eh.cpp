// The driver of lpad_phis_eh.ll (linked with it): a function whose landing
// pad block has PHIs merging four invokes' values, and whose normal
// destinations meet in a PHI.  Its gradient on both arms of the normal
// path, checked against finite differences from nonzero shadows; then an
// exception from each invoke in turn, caught here: the landing pad saw
// the tag and the value its PHIs carry for that edge, the exception
// arrives unchanged, the shadows are untouched (no reverse ran), and the
// heap does not grow over the retries.
#define RC_OWN_PROTOTYPE
#include <malloc.h>
#include <stdexcept>
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);
extern "C" double lpad_phis(double *x);

extern "C" __attribute__((noinline)) double checked_sq(double x) {
  if (x > 100)
    throw std::range_error("square");
  return x * x;
}
extern "C" __attribute__((noinline)) double checked_sin(double x) {
  if (x < -50)
    throw std::range_error("sine");
  return std::sin(x);
}
static int last_tag, last_seen;
extern "C" __attribute__((noinline)) void note_unwind(int tag, int seen) {
  last_tag = tag;
  last_seen = seen;
}

enum { N = 3 };

static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  return lpad_phis(x);
}

static void check_at(const char *name, double x0, double x1, double x2) {
  double x[N] = {x0, x1, x2}, dx[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  rc_seed(dx, N);
  __enzyme_autodiff((void *)lpad_phis, x, dx);
  for (int i = 0; i < N; i++)
    got[i] = dx[i] - rc_seed_value(i);
  rc_check(name, run, p, got, N);
}

/* An exception from the invoke `tag` names: 1 when everything was right. */
static int throw_at(int tag, double x0, double x1, double x2, int seen) {
  double x[N] = {x0, x1, x2}, dx[N];
  rc_seed(dx, N);
  last_tag = last_seen = 0;
  int ok = 0;
  try {
    __enzyme_autodiff((void *)lpad_phis, x, dx);
  } catch (const std::range_error &) {
    ok = last_tag == tag && last_seen == seen;
  }
  for (int i = 0; i < N; i++)
    ok &= dx[i] == rc_seed_value(i);
  return ok;
}

static size_t heap_in_use() { return mallinfo2().uordblks; }

int main() {
  check_at("lpad_phis_eh: square arm", 1.5, 0.8, -0.6);
  check_at("lpad_phis_eh: sine arm", 0.6, 0.5, 1.3);
  int bad = 0;
  size_t before = 0;
  for (int round = 0; round < 101; round++) {
    if (round == 1) /* after the runtime's own first-throw allocations */
      before = heap_in_use();
    bad += !throw_at(1, 200.0, 0.5, 0.5, 200); /* checked_sq(x0) */
    bad += !throw_at(2, 9.0, 3.0, 0.5, 3);     /* checked_sq(x0^2 x1) */
    bad += !throw_at(3, 3.0, 1.0, 0.5, 3);     /* checked_sq(b x0) */
    bad += !throw_at(4, 0.01, -60.0, 0.5, -60); /* checked_sin(x1) */
  }
  size_t after = heap_in_use();
  rc_checks += 2;
  if (bad) {
    printf("MISMATCH lpad_phis_eh: %d of 404 exceptions reached the pad or "
           "the caller wrong\n", bad);
    rc_failures++;
  }
  if (after > before + 64 * 1024) {
    printf("MISMATCH lpad_phis_eh: the heap grew by %zu bytes over 400 "
           "exceptions out of gradients\n", after - before);
    rc_failures++;
  }
  return rc_result();
}
