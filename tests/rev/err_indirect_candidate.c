/* An indirect call's possible targets are every function of its type
 * whose address is taken; one that cannot be differentiated (inline
 * assembly on an active value) refuses the gradient even though this call
 * never reaches it: the error says it was only a possible target, and of
 * which call. */
extern int enzyme_const;
double __enzyme_autodiff(void *, ...);
typedef double (*f1)(double);
static double sq(double x) { return x * x; }
static double cube(double x) { return x * x * x; }
static double parse_offset(double x) {
  double y;
  __asm__("movsd %1, %0" : "=x"(y) : "x"(x));
  return y + 1.25;
}
static f1 model_fns[2] = {sq, cube};
f1 volatile other_cb;
double use(double x, int k) { return model_fns[k](x) * 2; }
int main(void) {
  other_cb = parse_offset;
  return __enzyme_autodiff((void *)use, 0.8, enzyme_const, 1) != 3.84;
}
