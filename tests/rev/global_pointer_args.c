#include <stdlib.h>
#include "rev_check.h"
/* Mutable global pointers the program sets in main, outside any derivative
 * (a weights buffer, a tree of integer nodes), passed to helpers that only
 * read through them.  No derivative writes that memory, so it needs no
 * shadow: demanding one made the globals active with null shadows, and
 * the helpers' derivatives read and added through them (a crash). */
typedef struct node {
  int leaf; /* < 0: an inner node */
  struct node *left, *right;
} node;
static double *weights;
static node *root;
static int nweights;
__attribute__((noinline)) static double weighted(const double *w,
                                                 const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[i] * x[i] * x[i];
  return s;
}
/* a recursive walk: its parameter reaches itself again */
static double walk(const node *t, const double *x) {
  if (t->leaf >= 0)
    return x[t->leaf];
  return walk(t->left, x) * sin(walk(t->right, x)) + walk(t->right, x);
}
static double f(double *x, int n) {
  return weighted(weights, x, nweights) + walk(root, x) * x[n - 1];
}
/* the ASan build's leak check runs on the JIT-compiled program too */
static void free_tree(node *t) {
  if (!t)
    return;
  free_tree(t->left);
  free_tree(t->right);
  free(t);
}
static node *make(int leaf, node *l, node *r) {
  node *t = malloc(sizeof *t);
  t->leaf = leaf, t->left = l, t->right = r;
  return t;
}
#define N 4
RC_ARRAY_RUN(run_f, f, N)
int main(void) {
  nweights = N;
  weights = malloc(N * sizeof *weights);
  for (int i = 0; i < N; i++)
    weights[i] = 0.5 + i;
  root = make(-1, make(-1, make(0, 0, 0), make(2, 0, 0)), make(1, 0, 0));
  double x0[N] = {0.7, -0.4, 1.3, 0.9}, x[N], dx[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i], p[i] = x0[i];
  rc_seed(dx, N);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("global_pointer_args", run_f, p, got, N);
  for (int i = 0; i < N; i++)
    rc_expect("weights untouched", weights[i], 0.5 + i, 0);
  free_tree(root);
  free(weights);
  return rc_result();
}
