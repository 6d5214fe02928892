#include <stdlib.h>
#include "rev_check.h"
/* Split mode over heap memory: a linked list built with malloc (pointers
 * stored into memory carry their shadows), walked and freed in the
 * augmented pass; the output's shadow is seeded between the two halves,
 * as split mode is used; a void function's tape is the whole result. */
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

enum { N = 5 };
struct node {
  double v;
  struct node *next;
};

static void f(const double *x, double *out, int n) {
  struct node *head = NULL;
  for (int i = 0; i < n; i++) {
    struct node *c = malloc(sizeof *c);
    c->v = x[i] * x[(i + 2) % n];
    c->next = head;
    head = c;
  }
  double s = 0, w = 1;
  while (head) {
    struct node *next = head->next;
    s += w * head->v;
    w += 0.5 * head->v;
    free(head);
    head = next;
  }
  out[0] = s;
  out[1] = s * w;
}

static const double out_seed[2] = {1.5, -0.75};

static long double run(const long double *p) {
  double x[N], out[2];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  f(x, out, N);
  long double r = out_seed[0] * (long double)out[0] +
                  out_seed[1] * (long double)out[1];
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * (long double)x[i];
  return r;
}

int main(void) {
  double x[N] = {0.3, -0.6, 0.9, 0.45, -0.2}, dx[N], out[2], dout[2] = {0, 0};
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  rc_seed(dx, N);
  void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, enzyme_dup,
                                   out, dout, enzyme_const, N);
  double want[2];
  f(x, want, N);
  rc_expect("split_list out[0]", out[0], want[0], 1e-12);
  rc_expect("split_list out[1]", out[1], want[1], 1e-12);
  dout[0] = out_seed[0];
  dout[1] = out_seed[1];
  __enzyme_reverse((void *)f, enzyme_dup, x, dx, enzyme_dup, out, dout,
                   enzyme_const, N, tape);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("split_list", run, p, got, N);
  rc_expect("split_list dout consumed", dout[0] + dout[1], 0, 0);
  return rc_result();
}
