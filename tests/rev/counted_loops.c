/* Loops whose reverse steps induction variables back instead of reading
 * them from the tape (src/ad/rev/loops.c), and the shapes where that must
 * fall back: trip counts decided by the data, triangular nests whose inner
 * start is the outer index (or an induction variable of the outer loop
 * beside its counter), counting down and by strides, pointer
 * induction variables, early exits (out of one loop and out of two, to an
 * exit block several edges reach), a return from inside a loop, cycles
 * that are no natural loop or have two latches and a switch out, and values
 * computed before a loop that its reverse must read back once per run. */
#include "rev_check.h"

#define N 7

/* data-dependent trip count: runs until the sum passes a bound */
static double until_bound(double *x, int n) {
  double s = 0, t = 0;
  int i = 0;
  while (s < 6.0) {
    s += x[i % n] * x[i % n] + 0.5;
    t += s * x[(i + 1) % n];
    i++;
  }
  return t;
}

/* a constant trip count longer than the data: nothing recorded at all */
static double constant_trip(double *x, int n) {
  double s = 0;
  for (int r = 0; r < 40; r++)
    s += x[r % n] * x[(3 * r + 1) % n] * (1 + 0.01 * r);
  return s;
}

/* the trip count a parameter: `int n` widened for a 64-bit index */
static double param_trip(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * x[n - 1 - i];
  return s;
}

/* triangular nest, inner start from the outer index, outer counting down
 * by 2 */
static double triangle_down(double *x, int n) {
  double s = 0;
  for (int i = n - 1; i >= 0; i -= 2)
    for (int j = i; j < n; j++)
      s += x[i] * x[j] * (1 + j - i);
  return s;
}

/* a pointer induction variable and a stride of 3 */
static double pointer_stride(double *x, int n) {
  double s = 0;
  for (double *p = x; p < x + n; p += 3)
    s += *p * *p * *p;
  for (int k = 1; k < n; k += 3)
    s += sin(x[k]) * x[k - 1];
  return s;
}

/* pairs i < j, the inner start i + 1 (clang -O2
 * gives it an induction variable of its own beside i, whose final value
 * the reverse derives from i's: n-body's nest), then a loop counting down
 * from n with an index stepping by 3 beside its counter */
static double pairs_after(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double d = x[j] - x[i];
      s -= 1.0 / sqrt(d * d + 1.0);
    }
  long j = 0;
  for (long i = n; i != 0; i--, j += 3)
    s += x[j % n] * x[i - 1] * (1 + 0.1 * j);
  return s;
}

/* early exit from the inner loop straight out of both loops, and from the
 * outer loop, to one block */
static double break_out(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (x[i] > 2.5)
      goto done;
    for (int j = 0; j < n; j++) {
      s += x[i] * x[j];
      if (s > 4.0)
        goto done;
    }
  }
done:
  return s * s;
}

/* a loop-invariant value stored once per run (an in-place update keeps
 * loads from being reloaded), and the loop run several times */
static double invariant_scale(double *x, int n) {
  double r = 0;
  for (int rep = 0; rep < 3; rep++) {
    double scale = exp(0.1 * x[rep]) + x[n - 1];
    for (int i = 0; i < n; i++) {
      double v = x[i];
      x[i] = v * scale - 0.05 * v * v;
      r += x[i] * scale;
    }
  }
  return r;
}

/* a return from inside the loop: no managed loop here */
static double return_inside(double *x, int n) {
  double s = 1;
  for (int i = 0; i < n; i++) {
    s *= 1 + 0.2 * x[i];
    if (s > 1.8)
      return s * x[i];
  }
  return s;
}

/* the trip count read from a table the data indexes */
static const int counts[4] = {2, 5, 3, 7};
static double table_counts(double *x, int n) {
  double s = 0;
  for (int r = 0; r < 4; r++) {
    int m = counts[(r + (x[0] > 0)) % 4];
    for (int i = 0; i < m && i < n; i++)
      s += x[i] * x[(i + r) % n];
  }
  return s;
}

/* a cycle entered in its middle (irreducible: no natural loop) */
static double irreducible(double *x, int n) {
  double s = 0.25;
  int i = 0;
  if (x[0] > 0)
    goto mid;
top:
  s += x[i] * x[i];
mid:
  s += 0.5 * x[i] * s;
  i++;
  if (i < n)
    goto top;
  return s;
}

/* two back edges to one header, and a switch leaving the loop */
static double two_latches_switch(double *x, int n) {
  double s = 0;
  int i = 0;
top:
  if (i >= n)
    return s;
  s += x[i] * x[(i + 2) % n];
  i++;
  if (x[i % n] > 0.6)
    goto top;
  switch ((3 * i + (x[i % n] > 0.25)) % 5) {
  case 1:
    goto a;
  case 4:
    goto b;
  default:
    s *= 1.1;
    goto top;
  }
a:
  return s * x[1];
b:
  return s - x[2] * s;
}

RC_ARRAY_RUN(run_until_bound, until_bound, N)
RC_ARRAY_RUN(run_constant_trip, constant_trip, N)
RC_ARRAY_RUN(run_param_trip, param_trip, N)
RC_ARRAY_RUN(run_irreducible, irreducible, N)
RC_ARRAY_RUN(run_two_latches_switch, two_latches_switch, N)
RC_ARRAY_RUN(run_triangle_down, triangle_down, N)
RC_ARRAY_RUN(run_pointer_stride, pointer_stride, N)
RC_ARRAY_RUN(run_pairs_after, pairs_after, N)
RC_ARRAY_RUN(run_break_out, break_out, N)
RC_ARRAY_RUN(run_invariant_scale, invariant_scale, N)
RC_ARRAY_RUN(run_return_inside, return_inside, N)
RC_ARRAY_RUN(run_table_counts, table_counts, N)

int main(void) {
  const double a[N] = {0.5, -0.25, 0.75, 1.0, -0.5, 0.3, 0.9};
  const double b[N] = {0.9, 0.7, 0.4, 1.2, 0.35, -0.6, 0.45};
  const double c[N] = {0.4, 3.0, 0.8, 0.2, 0.6, 0.1, 0.7}; /* x[1] > 2.5 */
  /* a request names its function as a constant: one call per function */
#define CHECK(f, x0)                                                         \
  do {                                                                       \
    double x[N], dx[N];                                                      \
    long double p[N], got[N];                                                \
    for (int i = 0; i < N; i++)                                              \
      x[i] = (x0)[i], p[i] = (x0)[i];                                        \
    rc_seed(dx, N);                                                          \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);        \
    for (int i = 0; i < N; i++)                                              \
      got[i] = dx[i];                                                        \
    rc_check(#f, run_##f, p, got, N);                                        \
  } while (0)
  CHECK(until_bound, a);
  CHECK(until_bound, b);
  CHECK(constant_trip, a);
  CHECK(param_trip, b);
  CHECK(triangle_down, a);
  CHECK(pointer_stride, b);
  CHECK(pairs_after, a);
  CHECK(pairs_after, b);
  CHECK(break_out, a);
  CHECK(break_out, b);
  CHECK(break_out, c);
  CHECK(invariant_scale, a);
  CHECK(return_inside, a);
  CHECK(return_inside, b);
  CHECK(table_counts, a);
  CHECK(table_counts, b);
  CHECK(irreducible, a);
  CHECK(irreducible, b);
  CHECK(two_latches_switch, a);
  CHECK(two_latches_switch, b);
  CHECK(two_latches_switch, c);
  return rc_result();
}
