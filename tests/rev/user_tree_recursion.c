/* Recursion over a binary tree main builds with malloc, and a shadow tree
 * of the same shape for the gradient (how Enzyme users pass linked
 * structures): sum over nodes of w * depth weight + tanh(w) of children. */
#include <stdlib.h>
#include "both_modes.h"
struct tree {
  double w;
  struct tree *left, *right;
};
static double tree_sum(const struct tree *t, int depth) {
  if (!t) return 0;
  double here = t->w * t->w / (1 + depth) + tanh(t->w);
  return here + 0.5 * tree_sum(t->left, depth + 1) * tree_sum(t->right, depth + 1) +
         tree_sum(t->left, depth + 1) + tree_sum(t->right, depth + 1);
}
static double root_sum(struct tree *t) { return tree_sum(t, 0); }
/* a complete tree of 7 nodes in breadth-first order, values from w */
static struct tree *build(const double *w, int i, int n) {
  if (i >= n) return NULL;
  struct tree *t = malloc(sizeof *t);
  t->w = w[i];
  t->left = build(w, 2 * i + 1, n);
  t->right = build(w, 2 * i + 2, n);
  return t;
}
static void collect(const struct tree *t, long double *out, int i, int n) {
  if (!t || i >= n) return;
  out[i] = t->w;
  collect(t->left, out, 2 * i + 1, n);
  collect(t->right, out, 2 * i + 2, n);
}
static void release(struct tree *t) {
  if (!t) return;
  release(t->left);
  release(t->right);
  free(t);
}
#define N 7
static long double value(const long double *p) {
  double w[N];
  for (int i = 0; i < N; i++) w[i] = (double)p[i];
  struct tree *t = build(w, 0, N);
  long double r = root_sum(t);
  release(t);
  return r;
}
static long double run(const long double *p) {
  long double r = value(p);
  for (int i = 0; i < N; i++) r += rc_seed_value(i) * p[i];
  return r;
}
int main(void) {
  double w[N] = {0.5, -0.3, 0.8, 1.2, -0.7, 0.25, 0.6}, seeds[N], dirs[N];
  long double p[N], got[N], grad[N], v[N];
  for (int i = 0; i < N; i++) p[i] = w[i], dirs[i] = 0.4 - 0.1 * i, v[i] = dirs[i];
  rc_seed(seeds, N);
  struct tree *t = build(w, 0, N), *dt = build(seeds, 0, N);
  __enzyme_autodiff((void *)root_sum, enzyme_dup, t, dt);
  collect(dt, got, 0, N);
  for (int i = 0; i < N; i++) grad[i] = got[i] - seeds[i];
  rc_check("tree gradient", run, p, got, N);
  struct tree *tt = build(dirs, 0, N);
  double tan = __enzyme_fwddiff((void *)root_sum, enzyme_dup, t, tt);
  bm_check_tangent("tree forward", value, p, v, N, tan, grad);
  release(t);
  release(dt);
  release(tt);
  return rc_result();
}
