/* A differentiated function that logs and compares strings on the way:
 * snprintf/sprintf/printf/puts/putchar/fputs/fprintf/fflush and
 * strlen/strcmp/strncmp/memcmp move no float values into the result
 * (Enzyme's known-inactive library calls), so the derivative keeps them as
 * primal calls and the tangent is that of the arithmetic alone. */
#include <stdio.h>
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

static int quiet = 1; /* keep the test's output short; the calls still run */

double logged_model(double x, const char *mode) {
  char line[96];
  double y = x * x * x;
  int n = snprintf(line, sizeof line, "model(%g) = %g [%s]", x, y, mode);
  char tag[32];
  sprintf(tag, "%d", n);
  if (!quiet) {
    printf("%s\n", line);
    puts(tag);
    putchar('\n');
    fputs(line, stdout);
    fprintf(stderr, "mode %s\n", mode);
  }
  fflush(stdout);
  double scale = (double)strlen(mode);
  if (strcmp(mode, "square") == 0)
    y = x * x;
  else if (strncmp(mode, "sin", 3) == 0)
    y = sin(x) * scale;
  if (memcmp(line, "model", 5) == 0)
    y += 2.0 * x;
  return y;
}

static const char *along_mode;
static double along(double t, void *ctx) {
  return logged_model(*(double *)ctx + t, along_mode);
}

int main(void) {
  const char *modes[] = {"cube", "square", "sinus"};
  for (int m = 0; m < 3; m++) {
    double x = 0.7;
    along_mode = modes[m];
    double d = __enzyme_fwddiff((void *)logged_model, enzyme_dup, x, 1.0,
                                enzyme_const, modes[m]);
    check_tangent_fd(modes[m], d, fd_derivative(along, &x));
  }
  return tc_finish("inactive_libc_calls");
}
