/* An __enzyme_todense pointer (not memory) handed to a function with no
 * body: its loads and stores cannot become calls of the load and store
 * functions there, so the use is refused by name. */
extern int enzyme_dup;
double __enzyme_fwddiff(void *, ...);
double *__enzyme_todense(void *, void *, long);
double unit_load(long off, long i) { return off / 8 == i; }
void unit_store(double v, long off, long i) { (void)v, (void)off, (void)i; }
void keep(double *p);
static double f(double *x) { return x[0] * x[1]; }
int main(void) {
  double x[2] = {1, 2};
  double *d = __enzyme_todense((void *)unit_load, (void *)unit_store, 0);
  keep(d);
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, d) != 2.0;
}
