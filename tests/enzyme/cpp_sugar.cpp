/*
 * Enzyme's C++ interface (CppSugar): enzyme::autodiff<enzyme::Forward> with
 * Duplicated / DuplicatedNoNeed / Const arguments and results, through the
 * result markers enzyme_dup_return, enzyme_const_return, enzyme_noret and
 * enzyme_primal_return the header passes by address.
 */
#include "enzyme_sugar.hpp"
#include "enzyme_compat.h"

static double square(double x) { return x * x; }

static double weighted(double x, double w, const double *v) {
  return w * x * x * x + v[0] * v[1] * x;
}

static double accumulate(double *acc, double x) {
  acc[0] += x * x;
  acc[1] += 3.0 * x;
  return acc[0] * acc[1];
}

int main() {
  double x = 3.0;
  /* default result: DuplicatedNoNeed, the tangent only */
  auto t = enzyme::autodiff<enzyme::Forward>(square, enzyme::Duplicated<double>(x, 1.0));
  APPROX_EQ(t.value, 6.0, 1e-12);

  /* Duplicated result: {primal, tangent} */
  auto b = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(
      square, enzyme::Duplicated<double>(x, 2.0));
  APPROX_EQ(b.primal, 9.0, 1e-12);
  APPROX_EQ(b.tangent, 12.0, 1e-12);

  /* Const result: the primal only, nothing differentiated out */
  auto c = enzyme::autodiff<enzyme::Forward, enzyme::Const<double>>(
      square, enzyme::Duplicated<double>(x, 1.0));
  APPROX_EQ(c.value, 9.0, 1e-12);

  /* Const arguments among duplicated ones */
  double v[2] = {2.0, 5.0}, dv[2] = {1.0, 0.0};
  auto w = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(
      weighted, enzyme::Duplicated<double>(x, 1.0), enzyme::Const<double>(4.0),
      enzyme::Duplicated<const double *>(v, dv));
  APPROX_EQ(w.primal, 4.0 * 27.0 + 10.0 * 3.0, 1e-12);
  /* d/dx: 3 w x^2 + v0 v1; d/dv0 (times dv0 = 1): v1 x */
  APPROX_EQ(w.tangent, 3.0 * 4.0 * 9.0 + 10.0 + 5.0 * 3.0, 1e-12);

  /* a pointer argument DuplicatedNoNeed: the shadow updated, the primal
   * memory written too (forward mode runs the primal) */
  double acc[2] = {1.0, 2.0}, dacc[2] = {0.0, 0.0};
  auto a = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(
      accumulate, enzyme::Duplicated<double *>(acc, dacc),
      enzyme::Duplicated<double>(x, 1.0));
  APPROX_EQ(acc[0], 10.0, 1e-12);
  APPROX_EQ(acc[1], 11.0, 1e-12);
  APPROX_EQ(dacc[0], 6.0, 1e-12);
  APPROX_EQ(dacc[1], 3.0, 1e-12);
  APPROX_EQ(a.primal, 110.0, 1e-12);
  APPROX_EQ(a.tangent, 6.0 * 11.0 + 10.0 * 3.0, 1e-12);
  return enzyme_compat_result();
}
