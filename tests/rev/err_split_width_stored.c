/* enzyme_width > 1 in split mode of a function whose augmented pass
 * stores its caller's shadow (a pointer into x) into a shadow block it
 * made: one augmented pass would leave lane 0's pointer there for every
 * lane's reverse, and split mode cannot run the primal once per lane. */
#include <stdlib.h>
extern int enzyme_width, enzyme_dup, enzyme_const;
void *__enzyme_augmentfwd(void *, ...);
typedef struct ref {
  const double *p;
  struct ref *next;
} ref;
static void f(const double *x, double *out, int n) {
  ref *head = 0;
  for (int i = 0; i < n; i++) {
    ref *r = malloc(sizeof *r);
    r->p = x + i;
    r->next = head;
    head = r;
  }
  for (int i = 0; head; i++) {
    ref *next = head->next;
    out[i] = *head->p * *head->p;
    free(head);
    head = next;
  }
}
int main(void) {
  double x[2] = {2, 3}, out[2], dx1[2] = {0}, dx2[2] = {0}, do1[2] = {1, 0},
         do2[2] = {0, 1};
  void *tape =
      __enzyme_augmentfwd((void *)f, enzyme_width, 2, enzyme_dup, x, dx1, dx2,
                          enzyme_dup, out, do1, do2, enzyme_const, 2);
  return tape == 0;
}
