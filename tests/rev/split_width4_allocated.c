#include <math.h>
#include <stdlib.h>
#include <string.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Split mode with enzyme_width 4 and the tape in the caller's buffers
 * (enzyme_allocated N, enzyme_tape p; N from __enzyme_augmentsize), two
 * tapes alive at once and consumed in the other order, of a function whose
 * augmented pass allocates shadows: a calloc'd accumulator (its zeros
 * read: each reverse leaves their adjoints in its shadow), a buffer grown
 * with realloc, and a binary tree built recursively.  The list of those
 * shadow blocks rides on the tape's records, since the caller's 32 bytes
 * hold only the header.  Every lane checked against central differences,
 * from nonzero shadows. */
extern int enzyme_width, enzyme_dup, enzyme_const, enzyme_allocated,
    enzyme_tape;
void __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
long __enzyme_augmentsize(void *, ...);

enum { N = 6, W = 4 };

typedef struct tree {
  double v;
  struct tree *l, *r;
} tree;

static tree *build(const double *x, int lo, int hi) {
  if (lo >= hi)
    return NULL;
  int mid = (lo + hi) / 2;
  tree *t = malloc(sizeof *t);
  t->v = x[mid] * x[(mid + 1) % N];
  t->l = build(x, lo, mid);
  t->r = build(x, mid + 1, hi);
  return t;
}

static double tsum(tree *t, double depth) {
  if (!t)
    return 0;
  double s = cos(t->v) * depth + tsum(t->l, depth + 1) + tsum(t->r, depth + 1);
  free(t);
  return s;
}

static void f(const double *x, double *out, int n) {
  double *acc = calloc(n, sizeof *acc);
  for (int i = 0; i < 2 * n; i++)
    acc[(5 * i) % n] += x[i % n] * x[(i + 1) % n];
  int cap = 2, len = 0;
  double *grow = malloc(cap * sizeof *grow);
  for (int i = 0; i < n; i++) {
    if (len == cap) {
      cap *= 2;
      grow = realloc(grow, cap * sizeof *grow);
    }
    grow[len++] = acc[i] * sin(x[(i + 3) % n]);
  }
  double t = tsum(build(grow, 0, len), 1);
  for (int i = 0; i < n; i++)
    out[i] = grow[i] * t + acc[(i + 1) % n];
  free(grow);
  free(acc);
}

static double seed(int w, int i) {
  return rc_seed_value(i) * (1 + 0.5 * w) - 0.1 * w;
}

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

typedef struct problem {
  double x[N], out[N], dx[W][N], dout[W][N];
  long double p[2 * N];
  char *tape;
} problem;

static void setup(problem *q, double shift, long size) {
  for (int i = 0; i < N; i++) {
    q->x[i] = q->p[i] = 0.3 * i - 0.7 + shift;
    q->out[i] = q->p[N + i] = 0.1 * i;
  }
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      q->dx[w][i] = seed(w, i), q->dout[w][i] = seed(w, N + i);
  q->tape = malloc(size);
}

#define LANES(d) d[0], d[1], d[2], d[3]

int main(void) {
  long size = __enzyme_augmentsize((void *)f, enzyme_dup, 0, 0, enzyme_dup, 0,
                                   0, enzyme_const, N);
  static problem a, b;
  setup(&a, 0, size);
  setup(&b, 0.25, size);
  __enzyme_augmentfwd((void *)f, enzyme_width, W, enzyme_dup, a.x,
                      LANES(a.dx), enzyme_dup, a.out, LANES(a.dout),
                      enzyme_const, N, enzyme_allocated, size, enzyme_tape,
                      a.tape);
  __enzyme_augmentfwd((void *)f, enzyme_width, W, enzyme_dup, b.x,
                      LANES(b.dx), enzyme_dup, b.out, LANES(b.dout),
                      enzyme_const, N, enzyme_allocated, size, enzyme_tape,
                      b.tape);
  __enzyme_reverse((void *)f, enzyme_width, W, enzyme_dup, b.x, LANES(b.dx),
                   enzyme_dup, b.out, LANES(b.dout), enzyme_const, N,
                   enzyme_allocated, size, enzyme_tape, b.tape);
  __enzyme_reverse((void *)f, enzyme_width, W, enzyme_dup, a.x, LANES(a.dx),
                   enzyme_dup, a.out, LANES(a.dout), enzyme_const, N,
                   enzyme_allocated, size, enzyme_tape, a.tape);
  problem *qs[2] = {&a, &b};
  for (int k = 0; k < 2; k++)
    for (lane = 0; lane < W; lane++) {
      long double got[2 * N];
      for (int i = 0; i < N; i++)
        got[i] = qs[k]->dx[lane][i], got[N + i] = qs[k]->dout[lane][i];
      rc_check(k ? "split_width4_allocated b" : "split_width4_allocated a",
               run, qs[k]->p, got, 2 * N);
    }
  free(a.tape);
  free(b.tape);
  return rc_result();
}
