/* A function with a custom forward derivative and no body (a library's)
 * in reverse mode: the forward rule says nothing about the reverse, and
 * there is no body to differentiate; the error names the function, not
 * the rule. */
double __enzyme_autodiff(void *, ...);
extern double ext_cube(double x);
double d_ext_cube(double x, double dx) { return 3 * x * x * dx; }
void *__enzyme_register_derivative_ext_cube[2] = {(void *)ext_cube,
                                                  (void *)d_ext_cube};
static double use(double x) { return ext_cube(x) * 2; }
int main(void) { return __enzyme_autodiff((void *)use, 0.5) != 1.5; }
