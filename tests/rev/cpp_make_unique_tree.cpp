// A tree built with std::make_unique inside the differentiated function:
// `new Node()` value-initializes, a memset of the whole fresh block before
// the constructor runs (at -O0 inside make_unique, from -O1 inlined).  The
// block's shadow is fresh and zeroed, and nothing precedes the memset, so
// neither pass needs to know what its bytes hold.
#include <cmath>
#include <memory>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

struct Node {
  double w;
  std::unique_ptr<Node> left, right;
};

static std::unique_ptr<Node> build(int depth, double w) {
  if (depth == 0)
    return nullptr;
  auto n = std::make_unique<Node>();
  n->w = w;
  n->left = build(depth - 1, w * 0.5);
  n->right = build(depth - 1, w * w * 0.25);
  return n;
}

static double eval(const Node *n, double x) {
  if (!n)
    return 1.0;
  return n->w * std::tanh(x) +
         eval(n->left.get(), x * 0.9) * eval(n->right.get(), x + 0.1);
}

static double model(double *p, int n) {
  (void)n;
  auto root = build(3, p[1]);
  return eval(root.get(), p[0]);
}
RC_ARRAY_TEST_AS("cpp_make_unique_tree", RC_MARKED, model, 2, 0.3, 1.7)
