// An enzyme_const input copied into a std::vector, which a callee reads
// (a layer of a small network).  At -O0 the input pointer is spilled to
// local slots and passed down ten calls to std::__copy_move's memmove:
// each callee takes it as a duplicated pointer whose shadow is the input
// itself.  The reverse of the memmove must not add the copy's adjoints
// into that "shadow": the input is the user's constant memory.
#include <cmath>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

enum { N = 3, L = 2 };

static void dense(const double *w, const double *in, double *out, int n) {
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++)
      s += w[i * n + j] * in[j];
    out[i] = std::tanh(s);
  }
}

static double net(const double *w, const double *x) {
  std::vector<double> a(x, x + N), b(N);
  for (int l = 0; l < L; l++) {
    dense(w + l * N * N, a.data(), b.data(), N);
    a.swap(b);
  }
  double s = 0;
  for (double v : a)
    s += v * v;
  return s;
}

static const double input[N] = {0.5, -0.3, 0.8};

static long double run(const long double *p) {
  double w[L * N * N];
  for (int i = 0; i < L * N * N; i++)
    w[i] = (double)p[i];
  long double r = net(w, input);
  for (int i = 0; i < L * N * N; i++)
    r += rc_seed_value(i) * (long double)w[i];
  return r;
}

int main(void) {
  double w[L * N * N], dw[L * N * N], x[N];
  long double p[L * N * N], got[L * N * N];
  for (int i = 0; i < L * N * N; i++)
    p[i] = w[i] = 0.7 * std::sin(1.3 * i);
  for (int i = 0; i < N; i++)
    x[i] = input[i];
  rc_seed(dw, L * N * N);
  __enzyme_autodiff((void *)net, enzyme_dup, w, dw, enzyme_const, x);
  for (int i = 0; i < L * N * N; i++)
    got[i] = dw[i];
  rc_check("cpp_const_input_copy", run, p, got, L * N * N);
  for (int i = 0; i < N; i++)
    rc_expect("the constant input is unchanged", x[i], input[i], 0);
  return rc_result();
}
