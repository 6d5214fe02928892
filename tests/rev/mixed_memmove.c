#include <string.h>
#include "rev_check.h"
/* memmove of overlapping structs mixing doubles, an int and a pointer:
 * once with the destination above the source and once below, so the
 * adjoints of every float byte must come back from where the bytes went,
 * whichever way the ranges overlap. */
struct cell {
  double a;
  long tag;
  double b;
  const double *link;
};

static double mixed_memmove(double *x, int n) {
  struct cell c[4];
  for (int i = 0; i < 4; i++) {
    c[i].a = x[i] * 1.5 + x[(i + 1) % n];
    c[i].tag = i;
    c[i].b = x[(i + 2) % n] * x[i];
    c[i].link = &x[(i + 3) % n];
  }
  memmove(c + 1, c, (size_t)(n - 2) * sizeof *c); /* up: c[1..3] = old c[0..2] */
  double s = 0;
  for (int i = 0; i < 4; i++)
    s += c[i].a * c[i].b + (double)c[i].tag * *c[i].link;
  c[3].a *= x[1];
  memmove(c, c + 1, (size_t)(n - 2) * sizeof *c); /* down: c[0..2] = old c[1..3] */
  for (int i = 0; i < 4; i++)
    s += c[i].a * (double)(i + 1) - c[i].b * *c[i].link;
  x[2] = c[0].b + c[2].a;
  return s;
}

RC_ARRAY_TEST(mixed_memmove, 5, 0.5, -1.0, 1.25, 0.75, 2.0)
