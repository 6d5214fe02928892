/*
 * tanjit's gradient benchmark: six scalar losses over the bench kernels,
 * each timed as a primal call and as its gradient (__enzyme_autodiff, the
 * input enzyme_dup, the result seeded with 1.0), in this one process under
 * `tanjit run`, so gradient/primal is a ratio within one run.
 *
 * Every loss has the shape double f(const double *in).  Before timing,
 * each gradient is checked against central finite differences on a few
 * entries, so a fast wrong gradient cannot pass unnoticed; main returns
 * nonzero if one disagrees.
 *
 * Columns: primal ns/call, gradient ns/call, gradient/primal (the
 * thread's CPU time, best of three batches of at least 50 ms).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_PROGRAM "tanjit-grad-bench"
#include "bench_harness.h"

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

/* ---- losses ------------------------------------------------------------- */

#define SQ_N 1024
NOINLINE double l_sumsq(const double *x) {
  double s = 0;
  for (int i = 0; i < SQ_N; i++)
    s += x[i] * x[i];
  return s;
}

#define LSE_N 256
NOINLINE double l_logsumexp(const double *x) {
  double m = x[0];
  for (int i = 1; i < LSE_N; i++)
    m = x[i] > m ? x[i] : m;
  double s = 0;
  for (int i = 0; i < LSE_N; i++)
    s += exp(x[i] - m);
  return m + log(s);
}

/* A dense tanh layer and a squared-error loss against fixed targets;
 * in: W (L x L), x (L), b (L). */
#define L 32
NOINLINE double l_mlp(const double *in) {
  const double *w = in, *x = in + L * L, *b = x + L;
  double loss = 0;
  for (int o = 0; o < L; o++) {
    double z = b[o];
    for (int i = 0; i < L; i++)
      z += w[o * L + i] * x[i];
    double e = tanh(z) - 0.01 * o;
    loss += 0.5 * e * e;
  }
  return loss;
}

/* Lorenz system, 20 RK4 steps; in: state (3) then sigma, rho, beta; the
 * squared norm of the final state. */
#define RK4_STEPS 20
static void lorenz(const double *p, const double *s, double *d) {
  d[0] = p[0] * (s[1] - s[0]);
  d[1] = s[0] * (p[1] - s[2]) - s[1];
  d[2] = s[0] * s[1] - p[2] * s[2];
}
NOINLINE double l_rk4(const double *in) {
  const double h = 0.005, *p = in + 3;
  double s[3] = {in[0], in[1], in[2]}, k1[3], k2[3], k3[3], k4[3], t[3];
  for (int n = 0; n < RK4_STEPS; n++) {
    lorenz(p, s, k1);
    for (int i = 0; i < 3; i++) t[i] = s[i] + 0.5 * h * k1[i];
    lorenz(p, t, k2);
    for (int i = 0; i < 3; i++) t[i] = s[i] + 0.5 * h * k2[i];
    lorenz(p, t, k3);
    for (int i = 0; i < 3; i++) t[i] = s[i] + h * k3[i];
    lorenz(p, t, k4);
    for (int i = 0; i < 3; i++)
      s[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
}

/* The total energy of NB bodies in 3-D (unit masses, softened potential);
 * in: positions then velocities. */
#define NB 16
NOINLINE double l_nbody(const double *in) {
  const double *x = in, *v = in + 3 * NB;
  double e = 0;
  for (int i = 0; i < NB; i++) {
    e += 0.5 * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] +
                v[3 * i + 2] * v[3 * i + 2]);
    for (int j = i + 1; j < NB; j++) {
      double r2 = 0.01;
      for (int k = 0; k < 3; k++) {
        double d = x[3 * j + k] - x[3 * i + k];
        r2 += d * d;
      }
      e -= 1.0 / sqrt(r2);
    }
  }
  return e;
}

/* The energy (sum of squares) of the grid after one explicit step of the
 * bench's nonlinear heat equation on a G x G grid. */
#define G 32
NOINLINE double l_stencil(const double *in) {
  double e = 0;
  for (int j = 0; j < G; j++)
    for (int i = 0; i < G; i++) {
      int c = j * G + i;
      double u;
      if (i == 0 || j == 0 || i == G - 1 || j == G - 1) {
        u = in[c];
      } else {
        double lap = in[c - 1] + in[c + 1] + in[c - G] + in[c + G] - 4 * in[c];
        u = in[c] + 0.2 * lap - 0.01 * in[c] * in[c] * in[c];
      }
      e += u * u;
    }
  return e;
}

/* ---- gradient entry points ----------------------------------------------
 * A request must name its function as a constant: one entry point per
 * loss.  The gradient is added into din (Enzyme's += convention). */

typedef double (*loss_fn)(const double *);
typedef void (*gradient_fn)(const double *in, double *din);

#define GRADIENT(K)                                                            \
  static void K##_grad(const double *in, double *din) {                        \
    __enzyme_autodiff((void *)K, enzyme_dup, in, din);                         \
  }

GRADIENT(l_sumsq)
GRADIENT(l_logsumexp)
GRADIENT(l_mlp)
GRADIENT(l_rk4)
GRADIENT(l_nbody)
GRADIENT(l_stencil)

struct loss {
  const char *name;
  loss_fn primal;
  gradient_fn gradient;
  int n_in;
  double lo, hi; /* range of the inputs */
};

#define LOSS(label, K, nin, lo, hi) {label, K, K##_grad, nin, lo, hi}

static const struct loss losses[] = {
    LOSS("sum of squares", l_sumsq, SQ_N, -1, 1),
    LOSS("logsumexp", l_logsumexp, LSE_N, -3, 3),
    LOSS("MLP loss", l_mlp, L * L + 2 * L, -0.3, 0.3),
    LOSS("RK4 final norm", l_rk4, 6, 1, 10),
    LOSS("n-body energy", l_nbody, 6 * NB, -1, 1),
    LOSS("stencil energy", l_stencil, G * G, -1, 1),
};
#define NLOSSES (sizeof losses / sizeof losses[0])

/* ---- checking and timing ------------------------------------------------ */

/* Fills in[] with the loss's inputs (the same for every run). */
static void make_input(const struct loss *k, double *in) {
  for (int i = 0; i < k->n_in; i++)
    in[i] = uniform(k->lo, k->hi);
}

/* Eight gradient entries (first, last, spread between) against central
 * differences; 1 when all agree. */
static int gradient_agrees(const struct loss *k, double *in) {
  double *g = alloc_doubles(k->n_in);
  k->gradient(in, g);
  int ok = 1;
  for (int s = 0; s < 8; s++) {
    int i = (int)((long)s * (k->n_in - 1) / 7);
    double x = in[i], h = 1e-6 * (1 + fabs(x));
    in[i] = x + h;
    double fp = k->primal(in);
    in[i] = x - h;
    double fm = k->primal(in);
    in[i] = x;
    double fd = (fp - fm) / (2 * h);
    if (!(fabs(g[i] - fd) <= 1e-6 * (1 + fabs(fd)))) {
      printf("  MISMATCH %s: gradient entry %d: %.17g, finite difference "
             "%.17g\n",
             k->name, i, g[i], fd);
      ok = 0;
    }
  }
  free(g);
  return ok;
}

#ifndef GRAD_BENCH_NO_MAIN
static volatile double sink;

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "tanjit-grad-bench: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "; known losses:");
  for (size_t k = 0; k < NLOSSES; k++)
    fprintf(stderr, "%s '%s'", k ? "," : "", losses[k].name);
  fprintf(stderr, " (options: --quick, --kernel NAME, --csv FILE)\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *only = NULL, *csv_path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      min_seconds = 0.005;
    else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
      csv_path = argv[++i];
    else if (strcmp(argv[i], "--kernel") == 0 || strcmp(argv[i], "--csv") == 0)
      return usage_error("%s needs a value", argv[i]);
    else
      return usage_error("unknown argument '%s'", argv[i]);
  }
  int matched = 0;
  for (size_t k = 0; k < NLOSSES; k++)
    matched += !only || strstr(losses[k].name, only) != NULL;
  if (!matched)
    return usage_error("no loss matches '%s'", only);
  FILE *csv = NULL;
  if (csv_path) {
    csv = fopen(csv_path, "w");
    if (!csv) {
      fprintf(stderr, "tanjit-grad-bench: cannot write %s\n", csv_path);
      return 2;
    }
    fprintf(csv, "kernel,primal_ns,gradient_ns,ratio\n");
  }
  int bad = 0;
  printf("%-16s %11s %11s %7s\n", "loss", "primal ns", "gradient ns", "ratio");
  fflush(stdout);
  for (size_t k = 0; k < NLOSSES; k++) {
    const struct loss *kn = &losses[k];
    if (only && !strstr(kn->name, only))
      continue;
    double *in = alloc_doubles(kn->n_in), *din = alloc_doubles(kn->n_in);
    make_input(kn, in);
    if (!gradient_agrees(kn, in))
      bad = 1;
    double t_primal, t_grad;
    TIME_CALLS(t_primal, sink = kn->primal(in));
    TIME_CALLS(t_grad, kn->gradient(in, din));
    printf("%-16s %11.1f %11.1f %7.2f\n", kn->name, t_primal, t_grad,
           t_grad / t_primal);
    fflush(stdout);
    if (csv)
      fprintf(csv, "%s,%.1f,%.1f,%.3f\n", kn->name, t_primal, t_grad,
              t_grad / t_primal);
    free(in);
    free(din);
  }
  if (csv && fclose(csv) != 0) {
    fprintf(stderr, "tanjit-grad-bench: cannot write %s\n", csv_path);
    bad = 1;
  }
  if (bad)
    printf("tanjit-grad-bench: a gradient disagrees with finite differences "
           "(above)\n");
  return bad;
}
#endif
