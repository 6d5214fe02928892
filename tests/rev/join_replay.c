/* Joins whose predecessor the reverse finds again by replaying the
 * branches from the join's immediate dominator over their conditions
 * (src/ad/rev/adjoint.c, replay_region) instead of reading an id the
 * predecessors record: a 2-D stencil's boundary test (an `if` and a
 * switch into one join), joins nested in the branches of another, a
 * switch whose cases share targets with an `if`, conditions on a bound
 * computed before the loop; and the shapes that must keep the id: a
 * condition on the data mixed into the index tests, a condition loaded
 * from memory the loop writes. */
#include "rev_check.h"

#define G 6
#define N (G * G)

/* bench/grad_kernels.c's l_stencil, smaller */
static double boundary(double *in, int n) {
  (void)n;
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

/* a join inside each branch of another, the bound `last` computed before
 * the loop */
static double nested(double *x, int n) {
  double s = 0;
  int last = n - 1, half = n / 2;
  for (int i = 0; i < n; i++) {
    double u;
    if (i == 0 || i == last) {
      u = x[i] * x[i];
      if ((i & 1) == 0 || i > half)
        u *= 0.5 + x[(i + 1) % n];
      else
        u = sin(u);
    } else if (i % 3 == 1 || i == half) {
      u = x[i - 1] * x[i + 1];
    } else {
      u = exp(0.1 * x[i]) * x[i];
    }
    s += u * x[i];
  }
  return s;
}

/* a switch on the indices whose cases meet an `if` on the outer index */
static double switch_mix(double *x, int n) {
  double s = 0;
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < n; i++) {
      double u;
      switch ((i + j) % 4) {
      case 0:
      case 3:
        u = 2 * x[i];
        break;
      case 1:
        if (j == 1) {
          u = x[i] * x[i];
          break;
        }
        /* fall through */
      default:
        u = sin(x[i]) * x[(i + j) % n];
      }
      s += u * x[(i * j + 1) % n];
    }
  return s;
}

/* two values of one boundary join, both rebuilt in its reverse from the
 * neighbours (src/ad/rev/tape.c, rebuild_join_phi), entering nonlinearly */
static double two_values(double *in, int n) {
  (void)n;
  double e = 0;
  for (int j = 0; j < G; j++)
    for (int i = 0; i < G; i++) {
      int c = j * G + i;
      double u, k;
      if (i == 0 || j == 0 || i == G - 1 || j == G - 1) {
        u = in[c];
        k = 1.0;
      } else {
        u = in[c - 1] + in[c + 1] - 2 * in[c];
        k = in[c + G] * in[c];
      }
      e += u * k * u;
    }
  return e;
}

/* a weight the index chooses, in a loop that writes memory (nothing is
 * reloaded): the weight is rebuilt, the loaded value recorded */
static double weighted(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double w, v = x[i];
    if (i % 3 == 1)
      w = 2.0;
    else if (i % 3 == 2)
      w = -0.5;
    else
      w = 3.0;
    x[i] = w * v * v;
    s += x[i] * v;
  }
  return s;
}

/* a pointer the index chooses between two arrays (a select of pointers
 * at -O2): reloaded through, its shadow rebuilt as the select of the
 * arms' shadows; run on x's two halves */
static double picked2(double *a, double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double *p = (i % 3 == 1) ? &a[i] : &b[n - 1 - i];
    s += *p * *p * a[i];
  }
  return s;
}

static double picked(double *x, int n) { return picked2(x, x + n / 2, n / 2); }

/* one condition on the data among the index tests: the id stays */
static double data_dependent(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double u;
    if (i == 0 || x[i] > 0.3 || i == n - 1)
      u = x[i] * x[i];
    else
      u = x[i - 1] - x[i] * x[i + 1];
    s += u * u;
  }
  return s;
}

/* the condition read from memory the loop writes (no reloads): the id
 * stays */
static double written_flag(double *x, int n) {
  double s = 0;
  for (int i = 1; i < n - 1; i++) {
    double u;
    if (i % 5 == 0 || x[i - 1] < 0)
      u = x[i] * 3;
    else
      u = x[i] * x[i + 1];
    x[i] = 0.5 * u - 0.25;
    s += u * x[i];
  }
  return s;
}

RC_ARRAY_RUN(run_boundary, boundary, N)
RC_ARRAY_RUN(run_nested, nested, N)
RC_ARRAY_RUN(run_switch_mix, switch_mix, N)
RC_ARRAY_RUN(run_two_values, two_values, N)
RC_ARRAY_RUN(run_weighted, weighted, N)
RC_ARRAY_RUN(run_picked, picked, N)
RC_ARRAY_RUN(run_data_dependent, data_dependent, N)
RC_ARRAY_RUN(run_written_flag, written_flag, N)

/* the point: away from data_dependent's 0.3 and written_flag's 0.5 */
static void point(double *x, long double *p) {
  for (int i = 0; i < N; i++) {
    x[i] = 0.8 * sin(1.7 * i + 0.4) + 0.05 * (i % 3);
    if (fabs(x[i] - 0.3) < 0.02 || fabs(x[i] - 0.5) < 0.02)
      x[i] += 0.05;
    p[i] = x[i];
  }
}

/* a request names its function as a constant: one expansion per loss */
#define CHECK(f)                                                             \
  do {                                                                       \
    double x[N], dx[N];                                                      \
    long double p[N], got[N];                                                \
    point(x, p);                                                             \
    rc_seed(dx, N);                                                          \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);        \
    for (int i = 0; i < N; i++)                                              \
      got[i] = dx[i];                                                        \
    rc_check(#f, run_##f, p, got, N);                                        \
  } while (0)

int main(void) {
  CHECK(boundary);
  CHECK(nested);
  CHECK(switch_mix);
  CHECK(two_values);
  CHECK(weighted);
  {
    double x[N], dx[N];
    long double p[N], got[N];
    point(x, p);
    rc_seed(dx, N);
    __enzyme_autodiff((void *)picked2, enzyme_dup, x, dx, enzyme_dup,
                      x + N / 2, dx + N / 2, enzyme_const, N / 2);
    for (int i = 0; i < N; i++)
      got[i] = dx[i];
    rc_check("picked", run_picked, p, got, N);
  }
  CHECK(data_dependent);
  CHECK(written_flag);
  return rc_result();
}
