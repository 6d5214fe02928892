/*
 * The finite-difference check of the BLAS programs, for one precision:
 * include with REAL (double or float) and H(name) (a suffix per precision)
 * defined.  A kernel reads arrays a0..a2 and scalars s0, s1, updates array
 * a3 in place and returns a value (dot, nrm2) or 0; its derivatives are
 * requested for each activity of the inputs (a3 is always duplicated), and
 * each is compared, output by output, with central differences of the
 * kernel along the same direction.
 */
typedef REAL (*H(kernel))(REAL *a0, REAL *a1, REAL *a2, REAL *a3, REAL s0,
                          REAL s1);

/* Which inputs carry a tangent in a request. */
enum { H(ACT_A0) = 1, H(ACT_A1) = 2, H(ACT_A2) = 4, H(ACT_S0) = 8,
       H(ACT_S1) = 16, H(ACT_ALL) = 31 };

/* The same request under every activity checked: a function per kernel. */
#define H_DUP(k) enzyme_dup, a[k], da[k]
#define H_CONST(k) enzyme_const, a[k]
#define H_DUPS(k) s[k], ds[k]
#define H_CONSTS(k) enzyme_const, s[k]
#define H_REQ(f, x0, x1, x2, y0, y1)                                           \
  ((REAL(*)(void *, ...))__enzyme_fwddiff)((void *)f, x0, x1, x2, H_DUP(3),    \
                                           y0, y1)
typedef REAL (*H(derivative))(unsigned act, REAL **a, REAL **da, REAL *s,
                              REAL *ds);

enum { H(CAP) = 40 };

static double H(value)(unsigned i, unsigned salt) {
  unsigned h = (i + 1) * 2654435761u ^ (salt * 40503u);
  return (double)(h % 2000u) / 1000.0 - 1.0;
}

/* Runs kernel f on inputs moved by t along the direction (a + t da, ...);
 * the outputs in out[0 .. CAP) (a3) and out[CAP] (the result). */
static void H(evaluate)(H(kernel) f, unsigned act, double t, REAL out[]) {
  REAL a[4][H(CAP)], s[2];
  for (unsigned k = 0; k < 4; k++) {
    int moves = k == 3 || (act >> k) & 1;
    for (unsigned i = 0; i < H(CAP); i++)
      a[k][i] = (REAL)(H(value)(i, k) + (moves ? t * H(value)(i, k + 10) : 0));
  }
  for (unsigned k = 0; k < 2; k++)
    s[k] = (REAL)(H(value)(k, 20) + 1.5 +
                  ((act >> (3 + k)) & 1 ? t * H(value)(k, 30) : 0));
  out[H(CAP)] = f(a[0], a[1], a[2], a[3], s[0], s[1]);
  for (unsigned i = 0; i < H(CAP); i++)
    out[i] = a[3][i];
}

static const unsigned H(activities)[] = {31, 1, 2, 4, 8, 16, 0};

/* The derivatives of f against central differences, every activity. */
static void H(check)(const char *name, H(kernel) f, H(derivative) df,
                     double step, double tol) {
  for (unsigned n = 0; n < sizeof H(activities) / sizeof *H(activities); n++) {
    unsigned act = H(activities)[n];
    REAL a[4][H(CAP)], da[4][H(CAP)], s[2], ds[2];
    REAL *ap[4], *dap[4];
    for (unsigned k = 0; k < 4; k++) {
      for (unsigned i = 0; i < H(CAP); i++) {
        a[k][i] = (REAL)H(value)(i, k);
        /* an inactive input's shadow holds garbage the rule must not read */
        da[k][i] = (REAL)(k == 3 || (act >> k) & 1 ? H(value)(i, k + 10) : 1e3);
      }
      ap[k] = a[k], dap[k] = da[k];
    }
    for (unsigned k = 0; k < 2; k++) {
      s[k] = (REAL)(H(value)(k, 20) + 1.5);
      ds[k] = (REAL)((act >> (3 + k)) & 1 ? H(value)(k, 30) : 0);
    }
    REAL dr = df(act, ap, dap, s, ds);
    REAL plus[H(CAP) + 1], minus[H(CAP) + 1];
    H(evaluate)(f, act, step, plus);
    H(evaluate)(f, act, -step, minus);
    for (unsigned i = 0; i <= H(CAP); i++) {
      double fd = ((double)plus[i] - (double)minus[i]) / (2 * step);
      double got = i < H(CAP) ? (double)da[3][i] : (double)dr;
      if (!(fabs(got - fd) <= tol * fmax(1.0, fabs(fd)))) {
        fprintf(stderr, "%s (activity %u): %s %u: derivative %.12g, central "
                        "difference %.12g\n",
                name, act, i < H(CAP) ? "output" : "result", i, got, fd);
        failures++;
        break;
      }
    }
    checks++;
  }
}
