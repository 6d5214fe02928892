/* err_global_unset.c in forward vector mode (enzyme_width 2): a helper
 * writes active values through a mutable global pointer main set before
 * the request; each lane's shadow of it is null, so the derivative reports
 * the global and the line, then traps (before, it faulted).  The request
 * runs in a child process; main exits 1 when the child died by the trap. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
extern int enzyme_width;
typedef struct { double d[2]; } lanes2;
lanes2 __enzyme_fwddiff(void *, ...);
static double *g; /* renamed g.tanjit.m<N> at load: messages say g */
void put(double v) { g[0] = v; }
static double f(double x) {
  put(x * x);
  return 3 * g[0];
}
int main(void) {
  double out[1];
  g = out;
  pid_t child = fork();
  if (child == 0) {
    lanes2 t = __enzyme_fwddiff((void *)f, enzyme_width, 2, 1.5, 1.0, 2.0);
    _exit(t.d[0] == 9 ? 0 : 2);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFSIGNALED(status) ? 1 : 0;
}
