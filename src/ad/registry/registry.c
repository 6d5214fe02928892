/*
 * Which rule a call gets: its rule name, custom rules first, then the
 * families in order.
 */
#include <string.h>

#include "ad/ad.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "common/rename.h"

/* Families asked in order, after custom rules (rules/custom.c); the first rule
 * found wins.  A new family adds its lookup here. */
static const ad_call_family_lookup ad_call_families[] = {
    ad_inactive_lookup,
    ad_math_lookup,
    ad_memory_lookup,
    ad_vector_lookup,
    ad_cuda_lookup,
    ad_complex_lookup,
    ad_tree_lookup,
    ad_blas_lookup,
};

const char *ad_call_rule_name(const ad_engine *e, LLVMValueRef call, char *buf,
                              size_t bufsize) {
  LLVMValueRef fn = ad_called_function(call);
  if (!fn)
    return NULL;
  size_t n;
  const char *name = LLVMGetValueName2(fn, &n);
  (void)e; /* rule names come from the IR; registered rules are rules/custom.c's */
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex, "enzyme_math", 11);
  if (!a)
    a = LLVMGetCallSiteStringAttribute(call, LLVMAttributeFunctionIndex,
                                       "enzyme_math", 11);
  if (a) {
    unsigned len;
    const char *v = LLVMGetStringAttributeValue(a, &len);
    if (len < bufsize) {
      memcpy(buf, v, len);
      buf[len] = 0;
      return buf;
    }
  }
  tj_rename rn;
  if (tj_parse_rename(name, &rn) == 1 && rn.fn_len < bufsize) {
    memcpy(buf, rn.fn, rn.fn_len);
    buf[rn.fn_len] = 0;
    return buf;
  }
  return name;
}

const ad_call_rule *ad_find_call_rule(const ad_engine *e, LLVMValueRef call) {
  /* Custom rules (in-IR registrations, tanjit_register_fwd_rule, the
   * enzyme_inactive attribute) win over the built-in tables. */
  const ad_call_rule *custom = ad_custom_lookup(e, call);
  if (custom)
    return custom;
  char buf[256];
  const char *name = ad_call_rule_name(e, call, buf, sizeof buf);
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof ad_call_families / sizeof *ad_call_families;
       i++) {
    const ad_call_rule *r = ad_call_families[i](name);
    if (r)
      return r;
  }
  return NULL;
}

const ad_typed_rule *ad_typed_rule_of(const char *name) {
  const ad_typed_rule *r = ad_memory_typed_lookup(name);
  if (!r)
    r = ad_cuda_typed_lookup(name);
  return r ? r : ad_blas_typed_lookup(name);
}

/* The memo's value for a call with no rule (NULL means "not asked yet"). */
static const char no_rule;

const ad_call_rule *ad_rule_of_call(ad_module_ctx *mc, LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  void *known = ad_map_get(&mc->rule_memo, call);
  if (known && ad_map_get(&mc->rule_memo_callee, call) == (void *)callee)
    return known == &no_rule ? NULL : known;
  const ad_call_rule *r = ad_find_call_rule(mc->engine, call);
  mc->rule_lookups++;
  /* out of memory only costs the memo */
  if (ad_map_put(&mc->rule_memo, call, r ? (void *)r : (void *)&no_rule) == 0)
    ad_map_put(&mc->rule_memo_callee, call, callee);
  return r;
}
