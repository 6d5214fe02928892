/*
 * Batch requests as Enzyme's BatchMode IR tests write them (square-scalar-add,
 * vec-branch, scalar-call, addOneMem), and the rest of the marker set:
 * enzyme_scalar shared by all lanes, enzyme_buffer (a stride in bytes and
 * one pointer), results returned directly as a small struct or a double,
 * a batch inside a function that is then differentiated, and width 1.
 */
#define ENZYME_COMPAT_OWN_PROTOTYPE
#include "enzyme_compat.h"

extern int enzyme_vector, enzyme_scalar, enzyme_buffer;

typedef struct { double v[4]; } Four;
typedef struct { double a, b; } Two;
typedef struct { float v[4]; } FourF;

extern Four __enzyme_batch(void *, ...);
/* other result types through other names: C allows one prototype a name */
extern Two batch2(void *, ...) __asm__("__enzyme_batch");
extern FourF batch4f(void *, ...) __asm__("__enzyme_batch");
extern double batch1(void *, ...) __asm__("__enzyme_batch");
extern void batch_void(void *, ...) __asm__("__enzyme_batch");
extern double __enzyme_fwddiff(void *, ...);

double square_add(double x, double y) { return x * x + y; }

double relu(double x, double a) { return x > 0 ? x * a : x; }

__attribute__((noinline)) double add3(double x, double a) { return x + a; }
double scaled(double x, double a) { return x * add3(a, 3.0); }

void add_one_mem(double *x) { *x += 1.0; }

void scale_into(const double *in, double k, double *out) { *out = k * *in; }

float halve(float x) { return x / 2; }

/* the sum of four lanes of x^2 + y: its derivative in x is 2x */
double lanes_sum(double x) {
  Four r = __enzyme_batch((void *)square_add, enzyme_width, 4, enzyme_vector,
                          x, 2 * x, 3 * x, 4 * x, enzyme_scalar, 1.0);
  return r.v[0] + r.v[1] + r.v[2] + r.v[3];
}

int main(void) {
  Four r = __enzyme_batch((void *)square_add, enzyme_width, 4, enzyme_vector,
                          1.0, 2.0, 3.0, 4.0, enzyme_scalar, 0.5);
  for (int k = 0; k < 4; k++)
    APPROX_EQ(r.v[k], (k + 1) * (k + 1) + 0.5, 1e-12);

  r = __enzyme_batch((void *)relu, enzyme_width, 4, enzyme_vector, -1.0, 2.0,
                     -3.0, 4.0, enzyme_scalar, 10.0);
  APPROX_EQ(r.v[0], -1.0, 0);
  APPROX_EQ(r.v[1], 20.0, 0);
  APPROX_EQ(r.v[2], -3.0, 0);
  APPROX_EQ(r.v[3], 40.0, 0);

  /* the marker's place and the width's place are free: width last */
  r = __enzyme_batch((void *)scaled, enzyme_vector, 1.0, 2.0, 3.0, 4.0,
                     enzyme_scalar, 2.0, enzyme_width, 4);
  for (int k = 0; k < 4; k++)
    APPROX_EQ(r.v[k], (k + 1) * 5.0, 1e-12);

  double mem[4] = {1, 2, 3, 4};
  batch_void((void *)add_one_mem, enzyme_width, 4, enzyme_vector, &mem[0],
             &mem[1], &mem[2], &mem[3]);
  for (int k = 0; k < 4; k++)
    APPROX_EQ(mem[k], k + 2.0, 0);

  /* enzyme_buffer: lane k reads in + k and writes out + k (8-byte stride) */
  double in[3] = {1, 2, 3}, out[3] = {0, 0, 0};
  batch_void((void *)scale_into, enzyme_width, 3, enzyme_buffer,
             (long)sizeof(double), in, enzyme_scalar, 3.0, enzyme_buffer,
             (long)sizeof(double), out);
  for (int k = 0; k < 3; k++)
    APPROX_EQ(out[k], 3.0 * (k + 1), 0);

  Two t = batch2((void *)square_add, enzyme_width, 2, 3.0, 5.0,
                 enzyme_scalar, 1.0);
  APPROX_EQ(t.a, 10.0, 0);
  APPROX_EQ(t.b, 26.0, 0);

  /* float lanes passed as doubles (variadic promotion) */
  FourF f = batch4f((void *)halve, enzyme_width, 4, 1.0f, 2.0f, 3.0f, 5.0f);
  for (int k = 0; k < 4; k++)
    APPROX_EQ(f.v[k], (k == 3 ? 5.0 : k + 1.0) / 2, 0);

  APPROX_EQ(batch1((void *)square_add, enzyme_width, 1, 3.0, 1.0), 10.0, 0);

  /* a batch inside a differentiated function: d/dx sum_k (kx)^2 + 1 = 60x */
  double x = 0.75;
  APPROX_EQ(__enzyme_fwddiff((void *)lanes_sum, x, 1.0), 60 * x, 1e-12);
  return enzyme_compat_result();
}
