/* enzyme_width > 1 of a function that keeps its caller's out in a struct
 * on its stack and hands it to a callee that writes out through it: one
 * augmented pass cannot serve the lanes (the struct's shadow holds lane
 * 0's shadow of out), and the callee's write lands in the caller's memory
 * through a pointer read from memory, which no lane could undo. */
extern int enzyme_width, enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
typedef struct sink {
  double *to;
  int n;
} sink;
__attribute__((noinline)) static void put(sink *s, int i, double v) {
  s->to[i % s->n] = v;
}
static void f(const double *x, double *out, int n) {
  sink s = {out, n};
  for (int i = 0; i < n; i++)
    put(&s, i, x[i] * x[i]);
}
int main(void) {
  double x[2] = {2, 3}, out[2], dx1[2] = {0}, dx2[2] = {0}, do1[2] = {1, 0},
         do2[2] = {0, 1};
  __enzyme_autodiff((void *)f, enzyme_width, 2, enzyme_dup, x, dx1, dx2,
                    enzyme_dup, out, do1, do2, enzyme_const, 2);
  return dx1[0] != 0;
}
