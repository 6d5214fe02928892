#include <math.h>
#include <stdlib.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 2, over linked structures built in the
 * primal: a list whose nodes a callee allocates and links, and a binary
 * tree built and summed recursively, both freed before the function
 * returns its results into the caller's memory.  The augmented pass
 * allocates each node's shadow and stores the shadow links into shadow
 * memory; each lane's reverse walks them as aug left them. */
extern int enzyme_width;
typedef struct {
  double d[2];
} lanes;
lanes __enzyme_autodiff(void *, ...);

enum { N = 6, W = 2 };

typedef struct node {
  double v;
  struct node *next;
} node;

__attribute__((noinline)) static node *push(node *head, double v) {
  node *n = malloc(sizeof *n);
  n->v = v;
  n->next = head;
  return n;
}

typedef struct tree {
  double v;
  struct tree *l, *r;
} tree;

static tree *build(const double *x, int lo, int hi) {
  if (lo >= hi)
    return NULL;
  int mid = (lo + hi) / 2;
  tree *t = malloc(sizeof *t);
  t->v = x[mid] * x[mid];
  t->l = build(x, lo, mid);
  t->r = build(x, mid + 1, hi);
  return t;
}

static double tsum(tree *t, double depth) {
  if (!t)
    return 0;
  double s = sin(t->v) * depth + tsum(t->l, depth + 1) + tsum(t->r, depth + 1);
  free(t);
  return s;
}

static double f(const double *x, double a, double *out, int n) {
  node *head = NULL;
  for (int i = 0; i < n; i++)
    head = push(head, a * x[i] + x[(i + 1) % n]);
  double s = 0, p = 1;
  while (head) {
    node *nx = head->next;
    s += head->v * p;
    p *= 0.9;
    free(head);
    head = nx;
  }
  double t = tsum(build(x, 0, n), 1);
  out[0] = s * t;
  out[1] = s + cos(t);
  return s * a;
}

static double seed(int w, int i) { return rc_seed_value(i) + 0.3 * w; }

static int lane;
static long double run(const long double *p) {
  double x[N], out[2];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  out[0] = (double)p[N + 1], out[1] = (double)p[N + 2];
  long double r = f(x, (double)p[N], out, N);
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i];
  r += seed(lane, N + 1) * (long double)out[0] +
       seed(lane, N + 2) * (long double)out[1];
  return r;
}

int main(void) {
  double x[N] = {0.4, -0.3, 0.8, 0.1, -0.7, 0.5}, a = 0.6, out[2] = {0, 0};
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
  /* every lane's result adjoint is 1, as Enzyme seeds it; a's adjoint
   * comes back per lane */
  lanes r = __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x,
                              dx[0], dx[1], enzyme_out, a, enzyme_dup, out,
                              dout[0], dout[1], enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i];
    got[N] = r.d[lane];
    got[N + 1] = dout[lane][0], got[N + 2] = dout[lane][1];
    rc_check("width2_list", run, p, got, N + 3);
  }
  return rc_result();
}
