/*
 * The mixed-bytes programs of tests/rev_cuda: an array of `item` (a double,
 * an int, padding, a pointer into the active array w) that f stages
 * through CUDA memory from `in` to `out`, then rcm_loss reads.  The
 * gradient's active inputs, flattened for the finite differences: in[i].v
 * (RCM_N of them), then w (RCM_W).  Every shadow starts nonzero: din's and
 * dout's doubles, dw; din's pointers are w's shadow, as the caller of a
 * gradient sets them; out's pointers and ints start as garbage the
 * transfers overwrite.  A program defines RCM_STREAM (its API's stream
 * type), includes this header, defines f and calls rcm_main.
 */
#ifndef TANJIT_TESTS_REV_CUDA_MIXED_H
#define TANJIT_TESTS_REV_CUDA_MIXED_H

#include <stdint.h>

#include "rev_cuda_setup.h"

#define RCM_N 5
#define RCM_W 3

typedef struct item {
  double v;
  int k;
  double *p;
} item;

/* Reads every kind the transfers moved: the doubles, the ints (as
 * constant factors) and the pointers (through them). */
static RCC_UNUSED double rcm_loss(const item *out, long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += out[i].k * out[i].v * out[i].v * *out[i].p + out[i].v;
  return s;
}

typedef struct rcm_state {
  item in[RCM_N], din[RCM_N], out[RCM_N], dout[RCM_N];
  double w[RCM_W], dw[RCM_W];
  long double p[RCM_N + RCM_W];
} rcm_state;

static RCC_UNUSED double rcm_seed_out(int i) { return 0.25 + 0.5 * i; }

static RCC_UNUSED void rcm_fill(item *in, double *w, const long double *p) {
  for (int i = 0; i < RCM_N; i++) {
    in[i].v = (double)p[i];
    in[i].k = i + 2;
    in[i].p = &w[(i * 2) % RCM_W];
  }
  for (int j = 0; j < RCM_W; j++)
    w[j] = (double)p[RCM_N + j];
}

static RCC_UNUSED void rcm_setup(rcm_state *st) {
  static const double v0[RCM_N] = {0.5, -1.25, 2.0, 0.75, -0.5};
  static const double w0[RCM_W] = {1.5, -0.75, 0.25};
  for (int i = 0; i < RCM_N; i++)
    st->p[i] = v0[i];
  for (int j = 0; j < RCM_W; j++)
    st->p[RCM_N + j] = w0[j];
  rcm_fill(st->in, st->w, st->p);
  for (int j = 0; j < RCM_W; j++)
    st->dw[j] = seed_value(RCM_N + j);
  for (int i = 0; i < RCM_N; i++) {
    st->din[i].v = seed_value(i);
    st->din[i].k = 1000 + i; /* an int's shadow: nothing reads it */
    st->din[i].p = &st->dw[(i * 2) % RCM_W];
    st->out[i].v = 99, st->out[i].k = -1, st->out[i].p = NULL;
    st->dout[i].v = rcm_seed_out(i), st->dout[i].k = -7, st->dout[i].p = NULL;
  }
}

/* The program's function: in staged to out through CUDA memory, on
 * stream s where it takes one (RCM_STREAM, the API's stream type, is
 * defined before this header is included). */
double f(const item *in, item *out, RCM_STREAM s, long n);

static RCM_STREAM rcm_stream;

/* The loss plus <seed, every active double after the call>: in's doubles
 * (unchanged), out's (the copies), w (unchanged). */
static RCC_UNUSED long double rcm_run(const long double *p) {
  item in[RCM_N], out[RCM_N];
  double w[RCM_W];
  rcm_fill(in, w, p);
  long double r = f(in, out, rcm_stream, RCM_N);
  for (int i = 0; i < RCM_N; i++)
    r += seed_value(i) * (long double)in[i].v +
         rcm_seed_out(i) * (long double)out[i].v;
  for (int j = 0; j < RCM_W; j++)
    r += seed_value(RCM_N + j) * (long double)w[j];
  return r;
}

/* Every gradient entry against finite differences; out's double shadows
 * zero (overwritten memory passes its adjoint on); the int shadows as
 * they were (integers carry none, so no transfer moves them); each of
 * out's pointer shadows the shadow of the pointer the transfers put in out
 * (into dw where the pointer points into w). */
static RCC_UNUSED void rcm_check(const char *name, rcm_state *st) {
  double got[RCM_N + RCM_W];
  for (int i = 0; i < RCM_N; i++)
    got[i] = st->din[i].v;
  for (int j = 0; j < RCM_W; j++)
    got[RCM_N + j] = st->dw[j];
  rcc_check(name, rcm_run, st->p, got, RCM_N + RCM_W);
  for (int i = 0; i < RCM_N; i++) {
    rcc_expect_equal("out's double shadow is zero", 0, st->dout[i].v != 0);
    rcc_expect_equal("in's int shadow unchanged", 1000 + i, st->din[i].k);
    rcc_expect_equal("out's int shadow unchanged", (unsigned long long)-7,
                     (unsigned long long)st->dout[i].k);
    long j = st->out[i].p - st->w;
    rcc_expect_equal("out's pointer points into w", 1, j >= 0 && j < RCM_W);
    rcc_expect_equal("out's pointer shadow is its pointer's shadow",
                     (unsigned long long)(uintptr_t)(st->dw + j),
                     (unsigned long long)(uintptr_t)st->dout[i].p);
  }
}

/* main's work once a context is current: the gradient on stream s, from
 * rcm_setup's shadows, checked (rcm_check), the simulator left clean. */
static RCC_UNUSED int rcm_main(const char *name, RCM_STREAM s) {
  rcm_stream = s;
  static rcm_state st;
  rcm_setup(&st);
  struct cudasim_counters before, after;
  cudasim_get_counters(&before);
  __enzyme_autodiff((void *)f, enzyme_dup, st.in, st.din, enzyme_dup, st.out,
                    st.dout, enzyme_const, s, enzyme_const, (long)RCM_N);
  cudasim_get_counters(&after);
  rcm_check(name, &st);
  rcs_expect_clean(&before, &after);
  return rcc_result(name);
}

#endif
