/* Copies of records whose run-time length ends inside a record: the copy
 * rule repeats the record's layout n times and must still move the shadow
 * of the leftover bytes (here the float and pointer fields of the last,
 * partial record).  Records of {double, long} and of {pointer, int,
 * double}, whose pointers aim at active data; the reference replays the
 * same memcpy on the tangents. */
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

#define RECORDS 4

struct sample {
  double v;
  long k;
};

struct view {
  const double *at; /* into x: its shadow must follow */
  int scale;
  double w;
};

/* Inlined even at -O0, so that the memcpy sees the local arrays and their
 * record layout rather than bare pointers. */
#define INLINED static inline __attribute__((always_inline))

/* n records less the trailing `drop` bytes */
INLINED double samples(const double *x, const double *dx, int n, int drop) {
  struct sample a[RECORDS], b[RECORDS];
  for (int i = 0; i < RECORDS; i++) {
    a[i].v = (dx ? dx[i] : x[i]) * (i + 1);
    a[i].k = i;
    b[i].v = 0.0;
    b[i].k = 0;
  }
  memcpy(b, a, (size_t)n * sizeof a[0] - (size_t)drop);
  double s = 0.0;
  for (int i = 0; i < RECORDS; i++)
    s += b[i].v * (double)(b[i].k + 1);
  return s;
}

double copied_samples(const double *x, int n, int drop) {
  return samples(x, NULL, n, drop);
}

/* The views' pointers carry the derivative; their int and the trailing
 * double of the last record are left out of the copy. */
double copied_views(const double *x, int n) {
  static const double zero = 0.0;
  struct view a[RECORDS], b[RECORDS];
  for (int i = 0; i < RECORDS; i++) {
    a[i].at = &x[i];
    a[i].scale = i + 2;
    a[i].w = x[i] * x[i];
    b[i].at = &zero;
    b[i].scale = 1;
    b[i].w = 0.0;
  }
  memcpy(b, a, (size_t)n * sizeof a[0] - sizeof a[0].w);
  double s = 0.0;
  for (int i = 0; i < RECORDS; i++)
    s += *b[i].at * b[i].at[0] * b[i].scale + b[i].w;
  return s;
}

/* The tangent of copied_views(): the same copy of the fields' tangents
 * (the pointers' tangents are the values they aim at in dx). */
static long double views_tangent(const double *x, const double *dx, int n) {
  static const double zero = 0.0;
  struct view a[RECORDS], b[RECORDS];
  for (int i = 0; i < RECORDS; i++) {
    a[i].at = &x[i];
    a[i].scale = i + 2;
    a[i].w = 2.0 * x[i] * dx[i];
    b[i].at = &zero;
    b[i].scale = 1;
    b[i].w = 0.0;
  }
  memcpy(b, a, (size_t)n * sizeof a[0] - sizeof a[0].w);
  long double s = 0.0;
  for (int i = 0; i < RECORDS; i++) {
    long double d = b[i].at == &zero ? 0.0 : dx[b[i].at - x];
    s += 2.0L * *b[i].at * d * b[i].scale + b[i].w;
  }
  return s;
}

typedef struct line {
  const double *x, *dx;
  int n, drop, views;
} line;

static double along(double t, void *ctx) {
  const line *l = ctx;
  double xt[RECORDS];
  for (int i = 0; i < RECORDS; i++)
    xt[i] = l->x[i] + t * l->dx[i];
  return l->views ? copied_views(xt, l->n) : copied_samples(xt, l->n, l->drop);
}

int main(void) {
  double x[RECORDS] = {0.5, -1.0, 2.0, 1.5};
  double dx[RECORDS] = {1.0, 0.5, -1.0, 2.0};
  static const int drops[] = {(int)sizeof(long), 4, 1};
  for (int n = 1; n <= RECORDS; n++) {
    char what[64];
    for (size_t d = 0; d < sizeof drops / sizeof *drops; d++) {
      snprintf(what, sizeof what, "samples n %d less %d", n, drops[d]);
      /* the copy is linear in x: the tangent is the function at dx */
      long double want = samples(x, dx, n, drops[d]);
      line l = {x, dx, n, drops[d], 0};
      check_reference(what, want, fd_derivative(along, &l));
      check_tangent(what,
                    __enzyme_fwddiff((void *)copied_samples, enzyme_dup, x,
                                     dx, enzyme_const, n, enzyme_const,
                                     drops[d]),
                    want);
    }
    snprintf(what, sizeof what, "views n %d", n);
    long double want = views_tangent(x, dx, n);
    line l = {x, dx, n, 0, 1};
    check_reference(what, want, fd_derivative(along, &l));
    check_tangent(what,
                  __enzyme_fwddiff((void *)copied_views, enzyme_dup, x, dx,
                                   enzyme_const, n),
                  want);
  }
  /* n = 3 less the last long: b = {x0, 0}, {2 x1, 1}, {3 x2, 0} */
  check_primal("primal samples", copied_samples(x, 3, sizeof(long)),
               0.5 + 2 * -2.0 + 6.0);
  return tc_finish("copy_partial_record");
}
