/* A sparse CSR mat-vec with integer index arrays (enzyme_const), the values
 * and the vector active: loss = sum_i (y_i - b_i)^2, y = A x.  Both modes,
 * values and vector perturbed together. */
#include "both_modes.h"
#define NR 4
#define NNZ 9
static const int rowptr[NR + 1] = {0, 2, 5, 7, 9};
static const int colidx[NNZ] = {0, 2, 0, 1, 3, 1, 2, 0, 3};
static const double rhs[NR] = {1.0, -0.5, 0.25, 2.0};
static double csr_loss(const int *rp, const int *ci, const double *val,
                       const double *x, int nrows) {
  double loss = 0;
  for (int i = 0; i < nrows; i++) {
    double y = 0;
    for (int k = rp[i]; k < rp[i + 1]; k++)
      y += val[k] * x[ci[k]];
    loss += (y - rhs[i]) * (y - rhs[i]);
  }
  return loss;
}
#define NP (NNZ + NR)
static long double value(const long double *p) {
  double val[NNZ], x[NR];
  for (int i = 0; i < NNZ; i++) val[i] = (double)p[i];
  for (int i = 0; i < NR; i++) x[i] = (double)p[NNZ + i];
  return csr_loss(rowptr, colidx, val, x, NR);
}
static long double run(const long double *p) {
  long double r = value(p);
  for (int i = 0; i < NP; i++) r += rc_seed_value(i) * p[i];
  return r;
}
int main(void) {
  double val[NNZ] = {1.5, -0.5, 0.25, 2.0, 1.0, -1.25, 0.75, 0.5, 3.0};
  double x[NR] = {0.5, -1.0, 2.0, 0.25}, dval[NNZ], dx[NR];
  long double p[NP], got[NP], grad[NP], v[NP];
  for (int i = 0; i < NNZ; i++) p[i] = val[i];
  for (int i = 0; i < NR; i++) p[NNZ + i] = x[i];
  double seeds[NP];
  rc_seed(seeds, NP);
  for (int i = 0; i < NNZ; i++) dval[i] = seeds[i];
  for (int i = 0; i < NR; i++) dx[i] = seeds[NNZ + i];
  __enzyme_autodiff((void *)csr_loss, enzyme_const, rowptr, enzyme_const,
                    colidx, enzyme_dup, val, dval, enzyme_dup, x, dx,
                    enzyme_const, NR);
  for (int i = 0; i < NNZ; i++) got[i] = dval[i];
  for (int i = 0; i < NR; i++) got[NNZ + i] = dx[i];
  for (int i = 0; i < NP; i++) grad[i] = got[i] - seeds[i];
  rc_check("csr gradient", run, p, got, NP);
  double tval[NNZ], tx[NR];
  for (int i = 0; i < NP; i++) v[i] = 0.1 * (i % 5) - 0.2;
  for (int i = 0; i < NNZ; i++) tval[i] = (double)v[i];
  for (int i = 0; i < NR; i++) tx[i] = (double)v[NNZ + i];
  double t = __enzyme_fwddiff((void *)csr_loss, enzyme_const, rowptr,
                              enzyme_const, colidx, enzyme_dup, val, tval,
                              enzyme_dup, x, tx, enzyme_const, NR);
  bm_check_tangent("csr forward", value, p, v, NP, t, grad);
  return rc_result();
}
