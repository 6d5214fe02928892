/* realloc of a block the caller passed in (a growable buffer in the
 * caller's struct): its shadow is the caller's memory. */
#include <stdlib.h>
double __enzyme_autodiff(void *, ...);
struct buf {
  double *p;
  int n;
};
static double f(struct buf *b, double x) {
  b->p = realloc(b->p, (size_t)(b->n + 1) * sizeof *b->p);
  b->p[b->n] = x * x;
  return b->p[b->n++] * x;
}
int main(void) {
  struct buf b = {calloc(1, sizeof(double)), 1}, db = {calloc(1, sizeof(double)), 1};
  __enzyme_autodiff((void *)f, &b, &db, 3.0);
  return 0;
}
