#include <math.h>
#include <stdlib.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Split mode with enzyme_width 2 of a function whose augmented pass
 * allocates shadows: a malloc'd float temporary and a list whose nodes a
 * callee allocates and links.  __enzyme_augmentfwd (in one function) runs
 * the one augmented pass and keeps a copy of each shadow block;
 * __enzyme_reverse (in another) puts the blocks back as aug left them
 * before the second lane's reverse.  x is updated in place, out written,
 * a's adjoint comes back per lane; every shadow starts nonzero. */
extern int enzyme_width, enzyme_dup, enzyme_out, enzyme_const;
typedef struct {
  double d[2];
} lanes;
void *__enzyme_augmentfwd(void *, ...);
lanes __enzyme_reverse(void *, ...);

enum { N = 5, W = 2 };

typedef struct node {
  double v;
  struct node *next;
} node;

__attribute__((noinline)) static node *push(node *head, double v) {
  node *c = malloc(sizeof *c);
  c->v = v;
  c->next = head;
  return c;
}

static void f(double *x, double a, double *out, int n) {
  double *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[(i + 1) % n] + a;
  double *acc = calloc(n, sizeof *acc);
  for (int i = 0; i < 2 * n; i++)
    acc[(3 * i) % n] += t[i % n] * x[(i + 2) % n];
  node *head = NULL;
  for (int i = 0; i < n; i++)
    head = push(head, t[i] * acc[n - 1 - i]);
  double s = 0, w = 1;
  while (head) {
    node *next = head->next;
    s += w * sin(head->v);
    w += 0.25 * head->v;
    free(head);
    head = next;
  }
  for (int i = 0; i < n; i++)
    x[i] = t[i] * a - x[i] + acc[i];
  free(acc);
  free(t);
  out[0] = s * w;
  out[1] = s + a * w;
}

static __attribute__((noinline)) void *forward(double *x, double (*dx)[N],
                                               double a, double *out,
                                               double (*dout)[2]) {
  return __enzyme_augmentfwd((void *)f, enzyme_width, W, enzyme_dup, x, dx[0],
                             dx[1], enzyme_out, a, enzyme_dup, out, dout[0],
                             dout[1], enzyme_const, N);
}
static __attribute__((noinline)) lanes reverse(double *x, double (*dx)[N],
                                               double a, double *out,
                                               double (*dout)[2], void *tape) {
  return __enzyme_reverse((void *)f, enzyme_width, W, enzyme_dup, x, dx[0],
                          dx[1], enzyme_out, a, enzyme_dup, out, dout[0],
                          dout[1], enzyme_const, N, tape);
}

static double seed(int w, int i) {
  return rc_seed_value(i) * (w + 1) - 0.15 * w;
}

static int lane;
static long double run(const long double *p) {
  double x[N], out[2];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  out[0] = (double)p[N + 1], out[1] = (double)p[N + 2];
  f(x, (double)p[N], out, N);
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i];
  r += seed(lane, N + 1) * (long double)out[0] +
       seed(lane, N + 2) * (long double)out[1];
  return r;
}

int main(void) {
  double x[N] = {0.7, -0.4, 1.1, 0.2, -0.6}, a = 0.35, out[2] = {0.1, -0.2};
  double dx[W][N], dout[W][2];
  long double p[N + 3], got[N + 3];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  p[N] = a, p[N + 1] = out[0], p[N + 2] = out[1];
  for (int w = 0; w < W; w++) {
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i);
    dout[w][0] = seed(w, N + 1), dout[w][1] = seed(w, N + 2);
  }
  void *tape = forward(x, dx, a, out, dout);
  lanes da = reverse(x, dx, a, out, dout, tape);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i];
    got[N] = da.d[lane];
    got[N + 1] = dout[lane][0], got[N + 2] = dout[lane][1];
    rc_check("split_width_heap", run, p, got, N + 3);
  }
  return rc_result();
}
