/* enzyme_width > 1 of a function whose augmented pass stores its caller's
 * shadow (a pointer into out) into a shadow block it made, and that writes
 * its caller's memory through those stored pointers: the block's copy
 * would hold lane 0's shadow for every lane, and a write through a pointer
 * read from memory is not one path 3 saves and undoes between lanes. */
#include <stdlib.h>
extern int enzyme_width, enzyme_const;
void __enzyme_autodiff(void *, ...);
typedef struct ref {
  double *p;
  struct ref *next;
} ref;
static void f(const double *x, double *out, int n) {
  ref *head = 0;
  for (int i = 0; i < n; i++) {
    ref *r = malloc(sizeof *r);
    r->p = out + i;
    r->next = head;
    head = r;
  }
  for (int i = 0; head; i++) {
    ref *next = head->next;
    *head->p = x[i] * x[i];
    free(head);
    head = next;
  }
}
int main(void) {
  double x[2] = {2, 3}, out[2], dx1[2] = {0}, dx2[2] = {0}, do1[2] = {1, 0},
         do2[2] = {0, 1};
  __enzyme_autodiff((void *)f, enzyme_width, 2, x, dx1, dx2, out, do1, do2,
                    enzyme_const, 2);
  return dx1[0] != 0;
}
