/* Run-time activity across calls: a pointer whose shadow may be the pointer
 * itself (chosen at run time between an enzyme_const and an enzyme_dup
 * array, returned by an accessor over constant data, kept in a struct next
 * to duplicated ones) is handed to a function that is not inlined.  The
 * callee must keep the caller's checks: read a zero tangent through it, and
 * never write a tangent into the constant data. */
#include "enzyme.h"
#include "tangent_check.h"

__attribute__((noinline)) double sum_squares(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i] * p[i];
  return s;
}
__attribute__((noinline)) double *at(double *a, int i) { return &a[i]; }
__attribute__((noinline)) double scaled_gap(const double *p, const double *q,
                                            double k) {
  double d = *p - *q;
  return k * d * d;
}
__attribute__((noinline)) void write_square(double *out, double v) {
  *out = v * v;
}

/* |p|^2 + b0, p = a (const) or b (dup) */
double chosen(const double *a, const double *b, int use_a) {
  const double *p = use_a ? a : b;
  return sum_squares(p, 3) + b[0];
}

/* k (pts0 - pts1)^2, pts const */
double gap(double k, double *pts) { return scaled_gap(at(pts, 0), at(pts, 1), k); }

typedef struct {
  double *in, *scratch;
} work;
__attribute__((noinline)) double use_work(work *w) {
  write_square(w->scratch, w->in[0]);
  return *w->scratch + w->in[0];
}
/* scratch is enzyme_const: it receives the primal x^2 only */
double through_struct(double *in, double *scratch) {
  work w = {in, scratch};
  return use_work(&w);
}

/* A struct passed by value (byval: the callee gets copies of the primal
 * and of the shadow) straight from enzyme_const memory: the copies sit at
 * different addresses, so the check happens at the call; the pointer field
 * must stand for itself in the shadow copy, not become null. */
/* aligned(32): the callee's copy is made with aligned moves */
typedef struct __attribute__((aligned(32))) {
  double a, b;
  const double *scale;
  double unused;
} params;
__attribute__((noinline)) double use_params(params p, double x) {
  return p.a * x * *p.scale + p.b;
}
typedef struct {
  double *in;
  params *cst;
} job;
__attribute__((noinline)) double run_job(job *j) {
  return use_params(*j->cst, j->in[0]);
}
double by_value_const(double *in, params *cst) {
  job j = {in, cst};
  return run_job(&j);
}

int main(void) {
  double a[3] = {1, 2, 3}, b[3] = {0.5, 0.25, 0.125}, db[3] = {1, 0, 0};
  check_tangent("const array chosen",
                __enzyme_fwddiff((void *)chosen, enzyme_const, a, enzyme_dup, b,
                                 db, 1),
                1.0);
  check_tangent("dup array chosen",
                __enzyme_fwddiff((void *)chosen, enzyme_const, a, enzyme_dup, b,
                                 db, 0),
                2 * 0.5 + 1.0);
  check_primal("a untouched", a[0] + a[1] + a[2], 6.0);

  double pts[2] = {3, 5};
  check_tangent("accessor over const data",
                __enzyme_fwddiff((void *)gap, 2.0, 1.0, enzyme_const, pts), 4.0);

  double in = 1.5, din = 1.0, scratch = -7;
  check_tangent("struct of dup and const pointers",
                __enzyme_fwddiff((void *)through_struct, enzyme_dup, &in, &din,
                                 enzyme_const, &scratch),
                1.0);
  check_primal_out("const scratch holds the primal", scratch, 2.25);
  double three = 3, in2 = 1.5, din2 = 1.0;
  params k = {2.0, 10.0, &three, 0};
  check_tangent("struct by value from const memory",
                __enzyme_fwddiff((void *)by_value_const, enzyme_dup, &in2,
                                 &din2, enzyme_const, &k),
                6.0);
  check_primal("const struct untouched", k.a + k.b, 12.0);
  return tc_finish("runtime_activity_calls");
}
