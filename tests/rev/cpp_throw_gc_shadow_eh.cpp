// Exceptions out of a gradient whose augmented pass holds Julia-style
// shadows (C++ with exceptions on): f boxes values with Julia's GC
// allocation (`julia.gc_alloc_obj`, declared here under its name and
// served by calloc; each box gets a host shadow from reverse mode), then a
// callee may throw.  The caller catches and retries 200 times: the heap
// does not grow (the gradient's guard frees the boxes' shadows with the
// other shadow blocks), and gradients before and after are checked
// against finite differences.
#define RC_OWN_PROTOTYPE
#include <malloc.h>
#include <stdexcept>
#include <stdlib.h>
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);
extern "C" void *gc_alloc(void *, long, void *) asm("julia.gc_alloc_obj");

enum { N = 4 };
static void *boxes[64];
static int nboxes;

__attribute__((noinline)) static double checked(double v) {
  if (v > 100)
    throw std::range_error("too big");
  return v * v;
}

static double f(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double *box = (double *)gc_alloc(nullptr, sizeof(double), nullptr);
    boxes[nboxes++ % 64] = box; /* the "GC" frees them */
    *box = std::sin(x[i]) * x[(i + 1) % n];
    s += checked(*box + x[i]);
  }
  return s;
}

static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  return f(x, N);
}

static void collect() {
  for (int i = 0; i < 64; i++)
    free(boxes[i]), boxes[i] = nullptr;
  nboxes = 0;
}

static void check_gradient(const char *name) {
  double x[N] = {0.5, -1.25, 2.0, 0.75}, dx[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  rc_seed(dx, N);
  __enzyme_autodiff((void *)f, x, dx, N);
  collect();
  for (int i = 0; i < N; i++)
    got[i] = dx[i] - rc_seed_value(i);
  rc_check(name, run, p, got, N);
  collect();
}

int main() {
  check_gradient("cpp_throw_gc_shadow_eh: before");
  size_t before = 0;
  int caught = 0;
  for (int round = 0; round < 201; round++) {
    if (round == 1)
      before = mallinfo2().uordblks; /* after the runtime's first throw */
    double x[N] = {0.5, -1.25, 2.0, 0.75}, dx[N] = {0, 0, 0, 0};
    x[N - 1] = 500; /* every box is made before checked throws */
    try {
      __enzyme_autodiff((void *)f, x, dx, N);
    } catch (const std::range_error &) {
      caught++;
    }
    collect();
  }
  size_t after = mallinfo2().uordblks;
  rc_checks += 2;
  if (caught != 201) {
    printf("MISMATCH cpp_throw_gc_shadow_eh: %d of 201 caught\n", caught);
    rc_failures++;
  }
  if (after > before + 8 * 1024) {
    printf("MISMATCH cpp_throw_gc_shadow_eh: the heap grew by %zu bytes over "
           "200 exceptions out of gradients\n", after - before);
    rc_failures++;
  }
  check_gradient("cpp_throw_gc_shadow_eh: after");
  return rc_result();
}

extern "C" __attribute__((noinline)) void *gc_alloc(void *, long n, void *) {
  return calloc(1, (size_t)n);
}
