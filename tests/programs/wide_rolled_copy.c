/* Squared distances from the rows of a point set to a centre,
 * d[r] = sum_c (p[r][c] - q[c])^2, in vector mode at widths 8 and 4 and as
 * a scalar tangent.  Under `tanjit run -O2 file.c` the inner loop (two
 * memory streams, p's row and q) is one that clang's -O2 unrolls before
 * differentiation; a width-8 tangent of it needs 2 x (8 + 1) pointers, more
 * than x86-64's registers, so the CLI differentiates a copy of `distances`
 * left rolled (src/cli/wide_copy.c) while the primal and the width-4
 * request keep clang's form (tests/unit/test_cli.c checks which request
 * takes which).  Here: every lane's tangent against the analytic one, and
 * the primal the width-8 call writes bit for bit equal to the primal's own
 * (both compiled from the same source, one unrolled, one not). */
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

#define ROWS 6
#define COLS 40

__attribute__((noinline)) void distances(const double *p, const double *q, double *d) {
  for (int r = 0; r < ROWS; r++) {
    double s = 0;
    for (int c = 0; c < COLS; c++) {
      double e = p[r * COLS + c] - q[c];
      s += e * e;
    }
    d[r] = s;
  }
}

static double p[ROWS * COLS], q[COLS];
static double dp[8][ROWS * COLS], dq[8][COLS];

/* The tangent of d[r] along lane l, exactly (long double sums). */
static long double expected(int l, int r) {
  long double t = 0;
  for (int c = 0; c < COLS; c++)
    t += 2.0L * ((long double)p[r * COLS + c] - q[c]) * (dp[l][r * COLS + c] - dq[l][c]);
  return t;
}

/* The primal a derivative call wrote, bit for bit against the primal's own
 * (natively the stub request writes nothing: skipped like a tangent). */
static void check_bits(const char *what, const double *got, const double *want, int n) {
#ifdef TANGENT_NATIVE_SELFTEST
  (void)what, (void)got, (void)want, (void)n;
  tc_skipped++;
#else
  check_int(what, memcmp(got, want, (size_t)n * sizeof *got), 0);
#endif
}

int main(void) {
  for (int i = 0; i < ROWS * COLS; i++)
    p[i] = 0.01 * (i % 17) - 0.3 * (i % 5) + 0.125;
  for (int c = 0; c < COLS; c++)
    q[c] = 0.2 - 0.015 * c;
  for (int l = 0; l < 8; l++) {
    for (int i = 0; i < ROWS * COLS; i++)
      dp[l][i] = ((i + l) % 3) - 1.0 + 0.5 * (i % (l + 2) == 0);
    for (int c = 0; c < COLS; c++)
      dq[l][c] = (c % (l + 3) == 0) ? 1.0 : -0.25 * l;
  }
  double d[ROWS], d8[ROWS], d4[ROWS], d1[ROWS];
  double dd[8][ROWS], dd4[4][ROWS], dd1[ROWS];
  distances(p, q, d);

  __enzyme_fwddiff_void((void *)distances, enzyme_width, 8, enzyme_dup, p, dp[0],
                        dp[1], dp[2], dp[3], dp[4], dp[5], dp[6], dp[7],
                        enzyme_dup, q, dq[0], dq[1], dq[2], dq[3], dq[4], dq[5],
                        dq[6], dq[7], enzyme_dup, d8, dd[0], dd[1], dd[2], dd[3],
                        dd[4], dd[5], dd[6], dd[7]);
  for (int l = 0; l < 8; l++)
    for (int r = 0; r < ROWS; r++)
      check_tangent("width 8", dd[l][r], expected(l, r));
  check_bits("width 8 primal", d8, d, ROWS);

  __enzyme_fwddiff_void((void *)distances, enzyme_width, 4, enzyme_dup, p, dp[0],
                        dp[1], dp[2], dp[3], enzyme_dup, q, dq[0], dq[1], dq[2],
                        dq[3], enzyme_dup, d4, dd4[0], dd4[1], dd4[2], dd4[3]);
  for (int l = 0; l < 4; l++)
    for (int r = 0; r < ROWS; r++)
      check_tangent("width 4", dd4[l][r], expected(l, r));
  check_bits("width 4 primal", d4, d, ROWS);

  __enzyme_fwddiff_void((void *)distances, enzyme_dup, p, dp[5], enzyme_dup, q,
                        dq[5], enzyme_dup, d1, dd1);
  for (int r = 0; r < ROWS; r++)
    check_tangent("width 1", dd1[r], expected(5, r));
  check_bits("width 1 primal", d1, d, ROWS);
  return tc_finish("wide_rolled_copy");
}
