/* Mutable global pointers main sets before the request (a weights buffer,
 * a tree of integer nodes, objects whose function pointers are called
 * indirectly), passed to helpers that only read through them: the memory needs no shadow (tests/rev/global_pointer_args.c is
 * the reverse-mode twin; null shadows were dereferenced before). */
#include <math.h>
#include <stdlib.h>

#include "enzyme.h"
#include "tangent_check.h"

typedef struct node {
  int leaf; /* < 0: an inner node */
  struct node *left, *right;
} node;
static double *weights;
static node *root;

__attribute__((noinline)) static double weighted(const double *w,
                                                 const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[i] * x[i] * x[i];
  return s;
}
static double walk(const node *t, const double *x) {
  if (t->leaf >= 0)
    return x[t->leaf];
  return walk(t->left, x) * walk(t->right, x);
}
/* sum w_i x_i^2 + x0 * x1 * x2 */
static double f(const double *x) { return weighted(weights, x, 3) + walk(root, x); }

/* objects with a method, C's virtual call, in a global array main fills */
typedef struct shape {
  double (*area)(const struct shape *self, double s);
  double r0;
} shape;
static double square_area(const shape *self, double s) { return self->r0 * s * s; }
static double ring_area(const shape *self, double s) {
  return (s + self->r0) * (s + self->r0) - self->r0 * self->r0;
}
static shape *shapes[2];
/* r0_a s^2 + (2s + r0_b)^2 - r0_b^2 */
static double total_area(double s) {
  return shapes[0]->area(shapes[0], s) + shapes[1]->area(shapes[1], 2 * s);
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

int main(void) {
  weights = malloc(3 * sizeof *weights);
  for (int i = 0; i < 3; i++)
    weights[i] = 1.5 + i;
  root = make(-1, make(-1, make(0, 0, 0), make(1, 0, 0)), make(2, 0, 0));
  double x[3] = {0.5, -2.0, 1.25}, dx[3] = {1.0, 0.25, -0.5};
  long double want = 0;
  for (int i = 0; i < 3; i++)
    want += 2.0L * (1.5L + i) * x[i] * dx[i];
  want += (long double)dx[0] * x[1] * x[2] + (long double)x[0] * dx[1] * x[2] +
          (long double)x[0] * x[1] * dx[2];
  check_tangent("through global pointers",
                __enzyme_fwddiff((void *)f, enzyme_dup, x, dx), want);
  check_primal_out("weights untouched", weights[2], 3.5L);
  shape sq = {square_area, 1.5}, ring = {ring_area, 0.25};
  shapes[0] = &sq, shapes[1] = &ring;
  check_tangent("indirect calls on global objects",
                __enzyme_fwddiff((void *)total_area, 0.75, 2.0),
                2.0L * (2 * 1.5L * 0.75L + 2 * 2 * (2 * 0.75L + 0.25L)));
  free_tree(root);
  free(weights);
  return tc_finish("global_pointer_reads");
}
