#include <stdlib.h>
#include "rev_check.h"
typedef struct node {
  double value;
  struct node *next;
} node;
/* builds a list holding squares of x, walks it twice, frees it */
static double linked_list(double *x, int n) {
  node *head = NULL;
  for (int i = 0; i < n; i++) {
    node *k = malloc(sizeof *k);
    k->value = x[i] * x[i] + 1.0;
    k->next = head;
    head = k;
  }
  double s = 0, p = 1;
  for (node *k = head; k; k = k->next)
    s += k->value * p, p *= 0.5;
  for (node *k = head; k; k = k->next)
    k->value *= s;
  double t = 0;
  while (head) {
    node *k = head;
    head = k->next;
    t += k->value;
    free(k);
  }
  return t;
}
RC_ARRAY_TEST(linked_list, 4, 0.5, -1.0, 1.5, 0.75)
