/* A library the JIT tests resolve against: loaded RTLD_LOCAL by the session,
 * never linked into the test executables, so its names are not global. */
int tjtest_triple(int x) { return 3 * x; }
double tjtest_scale(double x) { return 2.5 * x; }
int tjtest_counter;
int tjtest_bump(void) { return ++tjtest_counter; }
/* The forward rule of tjtest_scale, registered by the tests: value, tangent
 * -> tangent. */
double tjtest_scale_fwd(double x, double dx) {
  (void)x;
  return 2.5 * dx;
}
/* An in-place update and its tangent-only rule: the rule must see the
 * inputs, so it runs before the primal call. */
void tjtest_vscale(double *p, double k) { *p *= k; }
void tjtest_vscale_fwd(double *p, double *dp, double k, double dk) {
  *dp = *dp * k + *p * dk;
}
/* A symbol longer than 255 characters (C++ manglings often are), for a
 * renamed ccall's function part: tjtest_long_ then 288 'a'. */
#define TJ_A16 "aaaaaaaaaaaaaaaa"
#define TJ_A96 TJ_A16 TJ_A16 TJ_A16 TJ_A16 TJ_A16 TJ_A16
int tjtest_long_name(int x) __asm__("tjtest_long_" TJ_A96 TJ_A96 TJ_A96);
int tjtest_long_name(int x) { return 7 * x; }
