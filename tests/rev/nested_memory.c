/* Reverse over reverse with memory: the inner function works in a malloc'd
 * scratch buffer, so the inner tape holds active values of mixed kinds
 * (loaded floats, pointers, loop counts), and the inner gradient lands in
 * a heap buffer the outer function reads back with weights. */
#include <math.h>
#include <stdlib.h>
#include "rev_check.h"

#define N 4

static double f(const double *x, int n) {
  double *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[i];
  for (int i = 1; i < n; i++)
    t[i] = t[i] * t[i - 1] / (1 + t[i - 1]); /* in place: read, then written */
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(t[i]);
  free(t);
  return s;
}

static const double weights[N] = {1.0, -0.5, 0.25, 2.0};

/* <w, grad f(x)>: a directional derivative through the inner gradient */
static double weighted_grad(const double *x) {
  double *dx = calloc(N, sizeof *dx);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += weights[i] * dx[i];
  free(dx);
  return s;
}

/* the same, differentiated in long double by central differences of f */
static long double f_long(const long double *x) {
  long double t[N], s = 0;
  for (int i = 0; i < N; i++)
    t[i] = x[i] * x[i];
  for (int i = 1; i < N; i++)
    t[i] = t[i] * t[i - 1] / (1 + t[i - 1]);
  for (int i = 0; i < N; i++)
    s += sinl(t[i]);
  return s;
}
static long double weighted_grad_fd(const long double *p) {
  long double q[N], s = 0;
  for (int k = 0; k < N; k++) {
    for (int i = 0; i < N; i++)
      q[i] = p[i];
    long double h = 1e-4L * (1 + fabsl(p[k]));
    q[k] = p[k] + h;
    long double a = f_long(q);
    q[k] = p[k] - h;
    long double b = f_long(q);
    q[k] = p[k] + 2 * h;
    long double c = f_long(q);
    q[k] = p[k] - 2 * h;
    long double d = f_long(q);
    s += weights[k] * (8 * (a - b) - (c - d)) / (12 * h);
  }
  return s;
}

int main(void) {
  double x[N] = {0.9, -0.6, 1.2, 0.4}, h[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  rc_seed(h, N);
  __enzyme_autodiff((void *)weighted_grad, enzyme_dup, x, h);
  for (int i = 0; i < N; i++)
    got[i] = h[i] - rc_seed_value(i);
  rc_check_tol("hessian-vector product", weighted_grad_fd, p, got, N, 1e-5L,
               1e-7L);
  return rc_result();
}
