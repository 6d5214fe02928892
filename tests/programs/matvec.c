/* Matrix-vector product y = A x + b with the matrix in a flat row-major
 * array: A, x and b all active, y an enzyme_dup output. */
#include "enzyme.h"
#include "tangent_check.h"

void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

void affine(const double *a, const double *x, const double *b, double *y,
            int rows, int cols) {
  for (int r = 0; r < rows; r++) {
    double s = b[r];
    for (int c = 0; c < cols; c++)
      s += a[r * cols + c] * x[c];
    y[r] = s;
  }
}

#define R 3
#define C 4
int main(void) {
  double a[R * C], da[R * C], x[C], dx[C], b[R], db[R], y[R], dy[R];
  for (int i = 0; i < R * C; i++) {
    a[i] = 0.5 * i - 2.0;
    da[i] = (i % 3) - 1.0;
  }
  for (int c = 0; c < C; c++) {
    x[c] = 1.0 + c;
    dx[c] = 0.25 * c - 0.5;
  }
  for (int r = 0; r < R; r++) {
    b[r] = r;
    db[r] = 1.0;
  }
  __enzyme_fwddiff_void((void *)affine, enzyme_dup, a, da, enzyme_dup, x, dx,
                        enzyme_dup, b, db, enzyme_dup, y, dy, enzyme_const, R,
                        enzyme_const, C);
  for (int r = 0; r < R; r++) {
    long double want = db[r], primal = b[r];
    for (int c = 0; c < C; c++) {
      want += (long double)da[r * C + c] * x[c] + (long double)a[r * C + c] * dx[c];
      primal += (long double)a[r * C + c] * x[c];
    }
    check_primal_out("y", y[r], primal);
    check_tangent("dy", dy[r], want);
  }
  return tc_finish("matvec");
}
