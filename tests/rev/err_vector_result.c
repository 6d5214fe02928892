/* A request whose function returns a struct of floats: no seed is defined. */
typedef struct { double a, b; } pair;
double __enzyme_autodiff(void *, ...);
static pair f(double x) {
  pair p = {x * x, x};
  return p;
}
int main(void) { return __enzyme_autodiff((void *)f, 2.0) != 0; }
