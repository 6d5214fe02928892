/* A helper writes active values through a mutable global pointer that
 * main set before the request: the derivative has no shadow for that
 * memory (the global's shadow is null), so it reports the global and the
 * line, then traps.  The request runs in a child process; main exits 1
 * when the child died by the trap. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
static double *g; /* renamed g.tanjit.m<N> at load: messages say g */
void put(int i, double v) { g[i] = v; }
static double f(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    put(i, x[i] * x[i]);
    s += g[i];
  }
  return s;
}
int main(void) {
  double x[2] = {1, 2}, dx[2] = {0.5, 0.25}, out[2];
  g = out;
  pid_t child = fork();
  if (child == 0) {
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 2);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFSIGNALED(status) ? 1 : 0;
}
