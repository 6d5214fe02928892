/*
 * The "tree" family: libstdc++'s red-black tree helpers behind std::map and
 * std::set (_Rb_tree_increment/_decrement, _Rb_tree_insert_and_rebalance,
 * _Rb_tree_rebalance_for_erase), compiled into libstdc++ so there is no
 * body to differentiate.  They move and relink node pointers only; no float
 * passes through them.  When the tree holds active values (a
 * std::map<int, double> of tangents) its nodes have shadow nodes, allocated
 * beside them by operator new's rule, and the shadow tree must keep the
 * primal's shape: so the shadow work is the same call on the shadow
 * pointers (the successor of a node's shadow is the shadow of its
 * successor; a node linked in here is linked in there).  When no pointer
 * argument has a shadow the tree is inactive and the primal call is all.
 */
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/tangent/tangent.h"

enum { TREE_MAX_ARGS = 8 };

static int emit_tree(ad_fn_ctx *fc, const ad_call_rule *r, LLVMValueRef call,
                     LLVMValueRef clone) {
  unsigned n = (unsigned)LLVMGetNumArgOperands(call);
  unsigned ops[TREE_MAX_ARGS], nops = 0, with_shadow = 0;
  for (unsigned i = 0; i < n && i < TREE_MAX_ARGS; i++) {
    LLVMValueRef a = LLVMGetOperand(call, i);
    if (LLVMGetTypeKind(LLVMTypeOf(a)) != LLVMPointerTypeKind)
      continue;
    ops[nops++] = i;
    if (ad_shadow_or_null(fc, a))
      with_shadow++;
  }
  if (with_shadow == 0)
    return 0;
  if (with_shadow != nops)
    /* relinking a shadowed node into a tree without shadows (or the
     * reverse) would leave the shadow tree a different shape */
    return ad_fail(fc->mc, call,
                   "%s links tree nodes with shadows and nodes without: the "
                   "container's nodes must all carry active values or none",
                   r->name);
  LLVMValueRef s = ad_lanewise(fc, call, clone, ops, nops);
  if (LLVMGetTypeKind(LLVMTypeOf(call)) == LLVMPointerTypeKind &&
      ad_is_active(fc, call))
    ad_set_shadow(fc, call, s);
  return 0;
}

#define WALK(n) {.name = n, .emit = emit_tree}
#define RELINK(n) {.name = n, .emit = emit_tree, .writes_pointer_args = 1}
static const ad_call_rule tree_rules[] = {
    WALK("_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base"),
    WALK("_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base"),
    WALK("_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base"),
    WALK("_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base"),
    RELINK("_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_"),
    RELINK("_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_"),
};

static const ad_call_rule *tree_lookup(const char *name) {
  for (size_t i = 0; i < sizeof tree_rules / sizeof *tree_rules; i++)
    if (strcmp(name, tree_rules[i].name) == 0)
      return &tree_rules[i];
  return NULL;
}

const ad_rule_family ad_tree_family = {
    .name = "tree",
    .lookup = tree_lookup,
};
