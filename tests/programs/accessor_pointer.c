/* A store through a pointer that a (non-inlined) accessor returns: a
 * vector's element, a matrix entry.  The accessor's derivative returns the
 * shadow address, which exists only if the object it read the pointer from
 * has a shadow: the object is given one because the returned pointer is
 * stored through. */
#include <stdlib.h>

#include "enzyme.h"
#include "tangent_check.h"

typedef struct {
  double *data;
  int n;
} vec;

__attribute__((noinline)) double *element(vec *v, int i) { return &v->data[i]; }

typedef struct {
  double a[2][2];
} mat2;

__attribute__((noinline)) double *entry(mat2 *m, int r, int c) {
  return &m->a[r][c];
}

/* v[1] = x^2; return v[1] + 3 v[0] with v[0] = sin x */
double through_vector(double x) {
  vec v = {calloc(2, sizeof(double)), 2};
  *element(&v, 1) = x * x;
  *element(&v, 0) = sin(x);
  double r = v.data[1] + 3 * v.data[0];
  free(v.data);
  return r;
}

/* trace of [[x, 1], [2, x^3]] squared entries */
double through_matrix(double x) {
  mat2 m;
  *entry(&m, 0, 0) = x;
  *entry(&m, 0, 1) = 1;
  *entry(&m, 1, 0) = 2;
  *entry(&m, 1, 1) = x * x * x;
  return *entry(&m, 0, 0) * *entry(&m, 0, 0) + *entry(&m, 1, 1);
}

int main(void) {
  const double xs[] = {0.7, -1.2};
  for (int i = 0; i < 2; i++) {
    long double x = xs[i];
    check_tangent("vector element",
                  __enzyme_fwddiff((void *)through_vector, xs[i], 1.0),
                  2 * x + 3 * cosl(x));
    check_tangent("matrix entry",
                  __enzyme_fwddiff((void *)through_matrix, xs[i], 1.0),
                  2 * x + 3 * x * x);
  }
  return tc_finish("accessor_pointer");
}
