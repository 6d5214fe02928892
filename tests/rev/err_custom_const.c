/* A custom gradient's rule takes a shadow after every pointer argument;
 * an enzyme_const pointer has none to give (a NULL would crash the
 * user's reverse when it accumulates into it, as Enzyme's signature
 * allows): refused at load, naming the function and the argument. */
typedef struct { double a, b; } ab;
extern int enzyme_const, enzyme_dup;
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) void affine(const ab *q, const double *x, double *y) {
  *y = q->a * *x + q->b;
}
void *aug_affine(const ab *q, ab *dq, const double *x, double *dx, double *y,
                 double *dy) {
  (void)dq, (void)dx, (void)dy;
  affine(q, x, y);
  return 0;
}
void rev_affine(const ab *q, ab *dq, const double *x, double *dx, double *y,
                double *dy, void *tape) {
  (void)y, (void)tape;
  dq->a += *dy * *x;
  dq->b += *dy;
  *dx += q->a * *dy;
  *dy = 0;
}
void *__enzyme_register_gradient_affine[3] = {(void *)affine, (void *)aug_affine,
                                              (void *)rev_affine};
static double pipeline(const ab *q, const double *x) {
  double y;
  affine(q, x, &y);
  return y * y;
}
int main(void) {
  ab q = {1.5, -0.3};
  double x = 0.2, dx = 0;
  __enzyme_autodiff((void *)pipeline, enzyme_const, &q, enzyme_dup, &x, &dx);
  return dx != 0;
}
