/* What cross_lib.c defines, for the programs that call it from another
 * file. */
#ifndef TANJIT_TESTS_CROSS_LIB_H
#define TANJIT_TESTS_CROSS_LIB_H

#define CROSS_N 4

extern const double cross_weights[CROSS_N];
double cross_sq(double x);
double cross_energy(const double *x, int n);
void cross_scale(double *y, const double *x, int n, double a);

#endif
