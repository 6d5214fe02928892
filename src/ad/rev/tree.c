/*
 * libstdc++'s red-black tree helpers in reverse (rules/tree.c has their
 * forward rule): _Rb_tree_increment/_decrement, _Rb_tree_insert_and_
 * rebalance and _Rb_tree_rebalance_for_erase walk and relink node
 * pointers only.  The augmented pass does what forward mode does, the
 * same call on the shadow nodes, so the shadow tree keeps the primal's
 * shape and an iterator's shadow is the shadow of its node; no float
 * passes through them, so the reverse pass has nothing to do.
 */
#include "ad/core/context.h"
#include "ad/registry/registry.h"
#include "ad/rev/rev.h"

static int aug_as_forward(ad_rev_fn *r, const ad_rev_call_row *row,
                          LLVMValueRef call, LLVMValueRef clone) {
  (void)row;
  const ad_call_rule *rule = ad_rule_of_call(r->mc, call);
  return rule && rule->emit ? rule->emit(&r->fc, rule, call, clone) : 0;
}

#define TREE(n) {.name = n, .aug = aug_as_forward}
static const ad_rev_call_row tree_rows[] = {
    TREE("_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base"),
    TREE("_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base"),
    TREE("_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base"),
    TREE("_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base"),
    TREE("_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_"),
    TREE("_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_"),
};

const ad_rev_call_rows ad_rev_tree_rows = {"tree", tree_rows,
                                           sizeof tree_rows / sizeof *tree_rows};
