#define RC_OWN_PROTOTYPE
#include <string.h>
#include "rev_check.h"
void __enzyme_autodiff(void *, ...);
/* Records of long doubles beside an int, copied whole.  An x86_fp80
 * stores 10 bytes in 16 and is 16-byte aligned, so an int next to one
 * leaves 12 bytes no member covers: between the members (rec_a: bytes 20
 * to 32; rec_c: 4 to 16) or as the tail up to the 48-byte stride (rec_b:
 * 36 to 48).  No access reaches those bytes; the declared layouts say
 * they are padding (analysis/copy_layout.c), and each copy's float
 * members must still carry their adjoints.  Three shapes per layout:
 * an insertion sort swapping whole records through a temporary in a local
 * array (llvm.memcpy of 48 bytes), a record passed by value to a helper
 * that writes its copy (byval), and a run-time count of records copied
 * with memcpy (a layout repeating every 48 bytes). */
typedef struct { long double v; int k; long double w; } rec_a;
typedef struct { long double v; long double w; int k; } rec_b;
typedef struct { int k; long double v; long double w; } rec_c;

#define N 4

#define RECORD_TESTS(T)                                                        \
  /* x holds v[0..n) then u[0..n); w = v u.  Sorted by v, weighted by the  \
   * rank and by k, which must travel with its record. */                   \
  static long double T##_sort(long double *x, int n) {                       \
    T a[N];                                                                  \
    for (int i = 0; i < n; i++) {                                            \
      a[i].v = x[i];                                                         \
      a[i].k = i;                                                            \
      a[i].w = x[i] * x[n + i];                                              \
    }                                                                        \
    for (int i = 1; i < n; i++)                                              \
      for (int j = i; j > 0 && a[j - 1].v > a[j].v; j--) {                   \
        T t = a[j];                                                          \
        a[j] = a[j - 1];                                                     \
        a[j - 1] = t;                                                        \
      }                                                                      \
    long double s = 0;                                                       \
    for (int i = 0; i < n; i++)                                              \
      s += (i + 1 + 2 * a[i].k) * a[i].w * a[i].v;                           \
    return s;                                                                \
  }                                                                          \
                                                                             \
  /* writes its own copy: v stepped k times, w scaled by the result */      \
  __attribute__((noinline)) T T##_step(T s) {                                \
    for (int i = 0; i < s.k; i++)                                            \
      s.v = s.v * s.w + 0.25L;                                               \
    s.w = s.w * s.v;                                                         \
    return s;                                                                \
  }                                                                          \
                                                                             \
  /* x: v, w of one record, k = n */                                        \
  static long double T##_byval(long double *x, int n) {                      \
    T s;                                                                     \
    memset(&s, 0, sizeof s);                                                 \
    s.v = x[0];                                                              \
    s.w = x[1];                                                              \
    s.k = n;                                                                 \
    T r = T##_step(s);                                                       \
    r.k = 1;                                                                 \
    T q = T##_step(r);                                                       \
    /* s is unchanged by the calls */                                        \
    return r.v * q.w + q.v + s.v * s.w;                                      \
  }                                                                          \
                                                                             \
  /* x as for _sort; the records copied with a run-time count, then         \
   * shifted one down by memmove */                                         \
  static long double T##_copy(long double *x, int n) {                       \
    T a[N], b[N];                                                            \
    for (int i = 0; i < n; i++) {                                            \
      a[i].v = x[i] * x[n + i];                                              \
      a[i].k = n - i;                                                        \
      a[i].w = x[n + i];                                                     \
    }                                                                        \
    memcpy(b, a, (size_t)n * sizeof *a);                                     \
    memmove(b, b + 1, (size_t)(n - 1) * sizeof *b);                          \
    long double s = 0;                                                       \
    for (int i = 0; i < n; i++)                                              \
      s += b[i].k * b[i].v * b[i].w;                                         \
    return s;                                                                \
  }                                                                          \
                                                                             \
  static long double T##_run_sort(const long double *p) {                    \
    long double x[2 * N];                                                    \
    for (int i = 0; i < 2 * N; i++)                                          \
      x[i] = p[i];                                                           \
    long double r = T##_sort(x, N);                                          \
    for (int i = 0; i < 2 * N; i++)                                          \
      r += rc_seed_value(i) * x[i];                                          \
    return r;                                                                \
  }                                                                          \
  static long double T##_run_byval(const long double *p) {                   \
    long double x[2] = {p[0], p[1]};                                         \
    return T##_byval(x, 3) + rc_seed_value(0) * x[0] +                       \
           rc_seed_value(1) * x[1];                                          \
  }                                                                          \
  static long double T##_run_copy(const long double *p) {                    \
    long double x[2 * N];                                                    \
    for (int i = 0; i < 2 * N; i++)                                          \
      x[i] = p[i];                                                           \
    long double r = T##_copy(x, N);                                          \
    for (int i = 0; i < 2 * N; i++)                                          \
      r += rc_seed_value(i) * x[i];                                          \
    return r;                                                                \
  }                                                                          \
                                                                             \
  static void T##_check(void) {                                              \
    /* distinct v, out of order: the sort swaps */                          \
    static const long double p0[2 * N] = {0.75L, -0.5L, 1.25L, 0.25L,        \
                                          1.5L,  0.5L,  -1.0L, 2.0L};        \
    long double x[2 * N], dx[2 * N], got[2 * N];                             \
    memcpy(x, p0, sizeof x);                                                 \
    rc_seedl(dx, 2 * N);                                                     \
    __enzyme_autodiff((void *)T##_sort, enzyme_dup, x, dx, enzyme_const, N); \
    memcpy(got, dx, sizeof got);                                             \
    rc_check_tol(#T " sort", T##_run_sort, p0, got, 2 * N, 1e-9L, 1e-11L);   \
                                                                             \
    static const long double q0[2] = {0.5L, 0.75L};                          \
    long double y[2] = {q0[0], q0[1]}, dy[2], goty[2];                       \
    rc_seedl(dy, 2);                                                         \
    __enzyme_autodiff((void *)T##_byval, enzyme_dup, y, dy, enzyme_const, 3);\
    goty[0] = dy[0], goty[1] = dy[1];                                        \
    rc_check_tol(#T " byval", T##_run_byval, q0, goty, 2, 1e-9L, 1e-11L);    \
                                                                             \
    memcpy(x, p0, sizeof x);                                                 \
    rc_seedl(dx, 2 * N);                                                     \
    __enzyme_autodiff((void *)T##_copy, enzyme_dup, x, dx, enzyme_const, N); \
    memcpy(got, dx, sizeof got);                                             \
    rc_check_tol(#T " copy", T##_run_copy, p0, got, 2 * N, 1e-9L, 1e-11L);   \
  }

RECORD_TESTS(rec_a)
RECORD_TESTS(rec_b)
RECORD_TESTS(rec_c)

int main(void) {
  rec_a_check();
  rec_b_check();
  rec_c_check();
  return rc_result();
}
