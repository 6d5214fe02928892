/* memmove inside one array of records that mix float and integer fields:
 * the copy rule moves the shadow piece by piece (the integers have none to
 * move), and the pieces of an overlapping move must go in memmove's order
 * or later pieces read shadow bytes earlier ones already overwrote.  The
 * destination lies above and below the source, with constant and run-time
 * lengths, and with a length that ends inside a record.  The reference
 * replays the same memmove on the tangents themselves. */
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

#define RECORDS 6

struct rec {
  double v;
  long k; /* an integer between floats: the layout alternates */
  double w;
};

/* Which memmove each request performs. */
enum move {
  UP_CONST,         /* &a[1] <- &a[0], 3 records */
  DOWN_CONST,       /* &a[0] <- &a[2], 3 records */
  UP_RUNTIME,       /* &a[shift] <- &a[0], n records */
  DOWN_RUNTIME,     /* &a[0] <- &a[shift], n records */
  UP_PARTIAL,       /* &a[shift] <- &a[0], n records less the last w */
  DOWN_PARTIAL,     /* &a[0] <- &a[shift], n records less the last w */
  UP_CONST_PARTIAL, /* &a[1] <- &a[0], 2 records and a v */
  MOVES
};

/* Inlined even at -O0, so that the memmove sees the local array and its
 * record layout rather than a bare pointer. */
#define INLINED static inline __attribute__((always_inline))

INLINED void fill(struct rec *a, const double *x) {
  for (int i = 0; i < RECORDS; i++) {
    a[i].v = x[i] * (i + 1);
    a[i].k = i;
    a[i].w = x[i] * x[i];
  }
}

INLINED void move_records(struct rec *a, enum move m, int shift, int n) {
  size_t tail = sizeof a[0] - sizeof a[0].w;
  switch (m) {
  case UP_CONST:
    memmove(&a[1], &a[0], 3 * sizeof a[0]);
    break;
  case DOWN_CONST:
    memmove(&a[0], &a[2], 3 * sizeof a[0]);
    break;
  case UP_RUNTIME:
    memmove(&a[shift], &a[0], (size_t)n * sizeof a[0]);
    break;
  case DOWN_RUNTIME:
    memmove(&a[0], &a[shift], (size_t)n * sizeof a[0]);
    break;
  case UP_PARTIAL:
    memmove(&a[shift], &a[0], (size_t)n * sizeof a[0] - sizeof a[0].w);
    break;
  case DOWN_PARTIAL:
    memmove(&a[0], &a[shift], (size_t)n * sizeof a[0] - sizeof a[0].w);
    break;
  case UP_CONST_PARTIAL:
    memmove(&a[1], &a[0], sizeof a[0] + tail);
    break;
  case MOVES:
    break;
  }
}

static double weigh(const struct rec *a) {
  double s = 0.0;
  for (int i = 0; i < RECORDS; i++)
    s += a[i].v * (double)(a[i].k + 1) + a[i].w * (double)(2 * a[i].k + 1);
  return s;
}

double moved(const double *x, int m, int shift, int n) {
  struct rec a[RECORDS];
  fill(a, x);
  move_records(a, (enum move)m, shift, n);
  return weigh(a);
}

/* The tangent of moved(): the same memmove applied to records that hold
 * the fields' tangents (the integers unchanged). */
static long double mirrored(const double *x, const double *dx, int m,
                            int shift, int n) {
  struct rec a[RECORDS];
  for (int i = 0; i < RECORDS; i++) {
    a[i].v = dx[i] * (i + 1);
    a[i].k = i;
    a[i].w = 2.0 * x[i] * dx[i];
  }
  move_records(a, (enum move)m, shift, n);
  return weigh(a);
}

typedef struct line {
  const double *x, *dx;
  int m, shift, n;
} line;

static double along(double t, void *ctx) {
  const line *l = ctx;
  double xt[RECORDS];
  for (int i = 0; i < RECORDS; i++)
    xt[i] = l->x[i] + t * l->dx[i];
  return moved(xt, l->m, l->shift, l->n);
}

int main(void) {
  static const char *const names[MOVES] = {
      "up const",    "down const",   "up run-time",     "down run-time",
      "up partial",  "down partial", "up const partial"};
  double x[RECORDS] = {0.5, -1.0, 2.0, 1.5, -0.25, 3.0};
  double dx[RECORDS] = {1.0, 0.5, -1.0, 2.0, 4.0, 0.125};
  for (int m = 0; m < MOVES; m++)
    for (int shift = 1; shift <= 2; shift++)
      for (int n = 1; n <= RECORDS - shift; n++) {
        char what[64];
        snprintf(what, sizeof what, "%s shift %d n %d", names[m], shift, n);
        long double want = mirrored(x, dx, m, shift, n);
        line l = {x, dx, m, shift, n};
        check_reference(what, want, fd_derivative(along, &l));
        check_tangent(what,
                      __enzyme_fwddiff((void *)moved, enzyme_dup, x, dx,
                                       enzyme_const, m, enzyme_const, shift,
                                       enzyme_const, n),
                      want);
      }
  /* v = {1, 1, 2, 3, 5, 6}, k = {0, 0, 1, 2, 4, 5}, w = 1: the first
   * record is repeated */
  double ones[RECORDS] = {1, 1, 1, 1, 1, 1};
  check_primal("primal up const", moved(ones, UP_CONST, 1, 3),
               (1 * 1 + 1 * 1 + 2 * 2 + 3 * 3 + 5 * 5 + 6 * 6) +
                   (1 + 1 + 3 + 5 + 9 + 11));
  return tc_finish("memmove_overlap_records");
}
