/* Pointers kept as uintptr_t in memory: a table of addresses built from
 * pointer arithmetic, stored, loaded back and offset before use.  The
 * integers stored in and loaded from the table carry pointers (they need
 * shadow integers, through memory); the index table beside them holds
 * plain integers. */
#include <stdint.h>

#include "enzyme.h"
#include "tangent_check.h"

double rows_dot(const double *m, const double *v, int rows, int cols) {
  uintptr_t row_addr[8];
  int order[8];
  for (int r = 0; r < rows; r++) {
    row_addr[r] = (uintptr_t)(m + r * cols);
    order[r] = rows - 1 - r;
  }
  double s = 0.0;
  for (int k = 0; k < rows; k++) {
    uintptr_t a = row_addr[order[k]];
    for (int c = 0; c < cols; c++)
      s += (k + 1) * *(const double *)(a + (uintptr_t)c * sizeof(double)) *
           v[c];
  }
  return s;
}

#define R 3
#define C 4
int main(void) {
  double m[R * C], dm[R * C], v[C] = {1, -1, 0.5, 2}, dv[C] = {0.5, 0, 1, -1};
  for (int i = 0; i < R * C; i++) {
    m[i] = 0.25 * i - 1;
    dm[i] = (i % 3) - 1.0;
  }
  long double want = 0;
  for (int k = 0; k < R; k++) {
    int r = R - 1 - k;
    for (int c = 0; c < C; c++)
      want += (k + 1) * (dm[r * C + c] * (long double)v[c] +
                         m[r * C + c] * (long double)dv[c]);
  }
  check_tangent("d rows_dot", __enzyme_fwddiff((void *)rows_dot, enzyme_dup,
                                               m, dm, enzyme_dup, v, dv,
                                               enzyme_const, R, enzyme_const,
                                               C),
                want);
  return tc_finish("uintptr_table");
}
