/* A linked list built with malloc inside the differentiated function, one
 * node per input (each holding a value computed from it), walked twice
 * (a running product and a sum of squares), then freed node by node. */
#include <stdlib.h>
#include "both_modes.h"
struct node {
  double val;
  struct node *next;
};
static double list_stats(double *x, int n) {
  struct node *head = NULL;
  for (int i = 0; i < n; i++) {
    struct node *e = malloc(sizeof *e);
    e->val = sin(x[i]) + 0.5 * x[i];
    e->next = head;
    head = e;
  }
  double prod = 1, sq = 0;
  for (struct node *e = head; e; e = e->next) prod *= 1 + 0.1 * e->val;
  for (struct node *e = head; e; e = e->next) sq += e->val * e->val;
  while (head) {
    struct node *next = head->next;
    free(head);
    head = next;
  }
  return prod + sq;
}
static const double x0[5] = {0.4, -1.3, 2.2, 0.9, -0.1};
static const double dir[5] = {1.0, -0.5, 0.25, 0.75, 1.5};
BM_ARRAY_BOTH(list_stats, 5, x0, dir)
int main(void) {
  both_list_stats();
  return rc_result();
}
