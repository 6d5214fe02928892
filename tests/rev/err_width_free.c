/* enzyme_width > 1 of a function that keeps pointers into its caller's x
 * in a list it made (one augmented pass cannot serve both lanes) and then
 * frees x: running it once per lane would have the second lane's primal
 * read the freed x and free it again, so the request is refused, naming
 * the free. */
#include <stdlib.h>
extern int enzyme_width, enzyme_dup;
void __enzyme_autodiff(void *, ...);
typedef struct ref {
  const double *p;
  struct ref *next;
} ref;
__attribute__((noinline)) static double walk(const ref *r) {
  double s = 0;
  for (; r; r = r->next)
    s += *r->p * *r->p;
  return s;
}
static double f(double *x) {
  ref *head = NULL;
  for (int i = 0; i < 3; i++) {
    ref *r = malloc(sizeof *r);
    r->p = x + i;
    r->next = head;
    head = r;
  }
  double s = walk(head);
  while (head) {
    ref *next = head->next;
    free(head);
    head = next;
  }
  free(x);
  return s;
}
int main(void) {
  double *x = malloc(3 * sizeof *x);
  x[0] = 1, x[1] = 2, x[2] = 3;
  double dx[2][3] = {{0}};
  __enzyme_autodiff((void *)f, enzyme_width, 2, enzyme_dup, x, dx[0], dx[1]);
  return (int)dx[1][0];
}
