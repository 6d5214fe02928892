/* Aligned heap scratch: memalign, aligned_alloc and posix_memalign inside
 * the differentiated function, sized by a byte count read from a
 * duplicated struct.  Each needs a shadow allocation of its own kind,
 * zeroed and freed beside the primal; type analysis must see the byte
 * count as an integer (memalign's entry comes from the rule table). */
#include <malloc.h>
#include <stdlib.h>

#include "enzyme.h"
#include "tangent_check.h"

struct series {
  double *x;
  long bytes; /* of x, a multiple of 64 (aligned_alloc's rule) */
  long count;
};

double aligned_energy(const struct series *s) {
  double *sq = memalign(64, s->bytes);
  double *sn = aligned_alloc(64, s->bytes);
  double *cs = NULL;
  if (posix_memalign((void **)&cs, 64, s->bytes) != 0)
    cs = NULL;
  if (!sq || !sn || !cs)
    return NAN;
  long n = s->count;
  for (long i = 0; i < n; i++) {
    sq[i] = s->x[i] * s->x[i];
    sn[i] = sin(s->x[i]);
    cs[i] = sq[i] + 1.0;
  }
  double e = 0.0;
  for (long i = 0; i < n; i++)
    e += sq[i] * sn[(i + 1) % n] + sqrt(cs[i]);
  free(sq);
  free(sn);
  free(cs);
  return e;
}

#define N 8
static const double x0[N] = {0.3, -1.2, 0.8, 2.0, -0.5, 1.1, 0.0, -2.4};
static const double dir[N] = {1.0, -0.5, 0.25, 2.0, 1.0, -1.0, 0.5, 0.75};

static double along(double t, void *ctx) {
  (void)ctx;
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i] + t * dir[i];
  struct series s = {x, sizeof x, N};
  return aligned_energy(&s);
}

int main(void) {
  double x[N], dx[N];
  long double want = 0;
  for (int i = 0; i < N; i++) {
    x[i] = x0[i];
    dx[i] = dir[i];
  }
  for (int i = 0; i < N; i++) {
    int j = (i + 1) % N;
    long double xi = x0[i], xj = x0[j];
    want += 2 * xi * dir[i] * sinl(xj) + xi * xi * cosl(xj) * dir[j] +
            xi * dir[i] / sqrtl(xi * xi + 1);
  }
  check_reference("analytic", want, fd_derivative(along, NULL));
  struct series s = {x, sizeof x, N}, ds = {dx, sizeof dx, N};
  double t = __enzyme_fwddiff((void *)aligned_energy, enzyme_dup, &s, &ds);
  check_tangent("directional", t, want);
  /* Repeated: a leaked or double-freed shadow shows under ASan/valgrind. */
  for (int k = 0; k < 50; k++)
    t = __enzyme_fwddiff((void *)aligned_energy, enzyme_dup, &s, &ds);
  check_tangent("repeated", t, want);
  return tc_finish("aligned_scratch");
}
