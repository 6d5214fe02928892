/*
 * Enzyme's split-mode results, as tests/rev's programs receive them for a
 * function returning a double: the augmented half's (the tape first, then
 * the primal result), and the reverse half's for a function whose one OUT
 * parameter is a double.
 */
#ifndef TANJIT_TESTS_REV_SPLIT_ABI_H
#define TANJIT_TESTS_REV_SPLIT_ABI_H

typedef struct {
  void *tape;
  double primal;
} augmented;

typedef struct {
  double dx;
} gradient;

#endif
