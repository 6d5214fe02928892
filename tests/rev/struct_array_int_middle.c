#include <string.h>
#include "rev_check.h"
/* An array of structs with an int between two double arrays, copied
 * element by element (`p[i] = q[i]`, a struct copy) and whole (memcpy):
 * type analysis must see the int as an integer and the doubles as floats
 * in every element. */
struct rec {
  double a[3];
  int k;
  double b[3];
};
#define M 3
static double struct_array_int_middle(double *x, int n) {
  struct rec q[M], p[M], w[M];
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < 3; j++) {
      q[i].a[j] = x[(i + j) % n] * x[(i + 2 * j + 1) % n];
      q[i].b[j] = x[(3 * i + j) % n] + 0.5 * x[j];
    }
    q[i].k = i + 2;
  }
  for (int i = 0; i < M; i++)
    p[i] = q[i];
  memcpy(w, p, sizeof p);
  double s = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < 3; j++)
      s += w[i].a[j] * w[i].k + w[i].b[j] * w[(i + 1) % M].a[j];
  return s;
}
RC_ARRAY_TEST(struct_array_int_middle, 5, 0.5, -1.25, 1.5, 0.75, 2.0)
