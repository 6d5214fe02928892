#include <math.h>
#include <stdlib.h>
#include <string.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 2, of a function that keeps its caller's
 * shadows in memory (a list of pointers into x, read back through the
 * list) and updates x in place, writes out and copies into it: one
 * augmented pass cannot serve both lanes (its blocks would hold lane 0's
 * pointers), and running the gradient again would start from the updated
 * x.  So lane 0's gradient saves what f's stores through x and out
 * overwrite and puts it back after its reverse; lane 1 runs from the
 * memory lane 0 started from. */
extern int enzyme_width, enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 5, W = 2 };

typedef struct ref {
  const double *p;
  struct ref *next;
} ref;

__attribute__((noinline)) static double walk(const ref *r, double k) {
  double s = 0;
  for (; r; r = r->next, k *= 0.8)
    s += k * *r->p * cos(*r->p);
  return s;
}

static void f(double *x, double *out, int n) {
  ref *head = NULL;
  for (int i = 0; i < n; i++) {
    ref *r = malloc(sizeof *r);
    r->p = x + (2 * i) % n;
    r->next = head;
    head = r;
  }
  double s = walk(head, 1.0);
  for (int i = 0; i < n; i++)
    x[i] = x[i] * s + sin(x[(i + 1) % n]);
  out[0] = s * x[0];
  out[1] = walk(head, 0.5) + x[n - 1];
  memcpy(out + 2, x + 1, 3 * sizeof *x);
  while (head) {
    ref *next = head->next;
    free(head);
    head = next;
  }
}

static double seed(int w, int i) { return rc_seed_value(i) * (1 + w) - 0.1 * w; }

static int lane;
static long double run(const long double *p) {
  double x[N], out[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i], out[i] = (double)p[N + i];
  f(x, out, N);
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i] +
         seed(lane, N + i) * (long double)out[i];
  return r;
}

int main(void) {
  double x[N] = {0.6, -0.3, 0.9, 0.2, -0.5}, out[N], dx[W][N], dout[W][N];
  long double p[2 * N], got[2 * N];
  for (int i = 0; i < N; i++) {
    p[i] = x[i];
    out[i] = p[N + i] = 0.1 * i;
  }
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i), dout[w][i] = seed(w, N + i);
  __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x, dx[0], dx[1],
                    enzyme_dup, out, dout[0], dout[1], enzyme_const, N);
  /* the primal's results, as one call leaves them */
  double want_x[N], want_out[N];
  for (int i = 0; i < N; i++)
    want_x[i] = (double)p[i], want_out[i] = (double)p[N + i];
  f(want_x, want_out, N);
  for (int i = 0; i < N; i++) {
    rc_expect("width2_stored x", x[i], want_x[i], 1e-12);
    rc_expect("width2_stored out", out[i], want_out[i], 1e-12);
  }
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i], got[N + i] = dout[lane][i];
    rc_check("width2_stored", run, p, got, 2 * N);
  }
  return rc_result();
}
