/*
 * The target and floating-point environment of the functions the engine
 * defines: the string function attributes ("target-cpu",
 * "target-features", "tune-cpu", "denormal-fp-math", "no-trapping-math",
 * "unsafe-fp-math", ...) that decide how a function is compiled.
 *
 * A derivative (forward, augmented forward pass, reverse pass, split
 * mode's wrappers) is compiled as its primal is: a primal built for
 * clang's default "x86-64" has no FMA, and an augmented pass compiled for
 * the host would fuse its `contract`ed arithmetic, so its recomputed
 * primal values would differ from the primal's in the last bits.
 *
 * A helper the engine defines without a primal of its own (a tape push,
 * a shadow reset, a guard, a libm wrapper) takes its callers' environment
 * once they are built: with none it is compiled for the host, whose
 * features are wider than a caller's "x86-64", and LLVM does not inline a
 * callee whose target features the caller lacks (every tape push would
 * stay a call), nor one whose denormal mode differs.
 */
#include <stdlib.h>
#include <string.h>

#include "ad/ir/ir.h"
#include "common/alloc.h"

/* Attributes that name a role of the function, not how it is compiled:
 * Enzyme's ("enzyme_math", "enzyme_inactive", ...) would make a
 * derivative a math function or inactive, tanjit's ("tanjit-generated",
 * "tanjit-unwinding") mark its own functions. */
static const char *const role_prefixes[] = {"enzyme_", "tanjit-"};

/* Attributes that describe a function's own body, not its environment:
 * a helper neither inherits nor compares them (clang gives each function
 * of one file the widest vector its body uses). */
static const char *const body_keys[] = {"min-legal-vector-width"};

static int key_in(const char *k, unsigned len, const char *const *list,
                  size_t n, int prefix) {
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(list[i]);
    if (prefix ? len >= l && memcmp(k, list[i], l) == 0
               : len == l && memcmp(k, list[i], l) == 0)
      return 1;
  }
  return 0;
}

#define NELEMS(a) (sizeof(a) / sizeof *(a))

static int is_environment(LLVMAttributeRef a, int with_body_keys) {
  if (!LLVMIsStringAttribute(a))
    return 0;
  unsigned len;
  const char *k = LLVMGetStringAttributeKind(a, &len);
  if (key_in(k, len, role_prefixes, NELEMS(role_prefixes), 1))
    return 0;
  return with_body_keys || !key_in(k, len, body_keys, NELEMS(body_keys), 0);
}

/* fn's function attributes (malloc'd, *n of them; NULL when none or out
 * of memory, which only leaves a function without an environment). */
static LLVMAttributeRef *fn_attrs(LLVMValueRef fn, unsigned *n) {
  *n = LLVMGetAttributeCountAtIndex(fn, LLVMAttributeFunctionIndex);
  LLVMAttributeRef *attrs = *n ? tj_malloc(*n * sizeof *attrs) : NULL;
  if (!attrs) {
    *n = 0;
    return NULL;
  }
  LLVMGetAttributesAtIndex(fn, LLVMAttributeFunctionIndex, attrs);
  return attrs;
}

static void copy_environment(LLVMValueRef from, LLVMValueRef to,
                             int with_body_keys) {
  unsigned n;
  LLVMAttributeRef *attrs = fn_attrs(from, &n);
  for (unsigned i = 0; i < n; i++)
    if (is_environment(attrs[i], with_body_keys))
      LLVMAddAttributeAtIndex(to, LLVMAttributeFunctionIndex, attrs[i]);
  free(attrs);
}

void ad_copy_fn_environment(LLVMValueRef primal, LLVMValueRef derivative) {
  copy_environment(primal, derivative, 1);
}

static unsigned environment_size(LLVMValueRef fn) {
  unsigned n, size = 0;
  LLVMAttributeRef *attrs = fn_attrs(fn, &n);
  for (unsigned i = 0; i < n; i++)
    size += (unsigned)is_environment(attrs[i], 0);
  free(attrs);
  return size;
}

/* Whether a and b have the same environment (body keys aside). */
static int same_environment(LLVMValueRef a, LLVMValueRef b) {
  if (environment_size(a) != environment_size(b))
    return 0;
  unsigned n;
  LLVMAttributeRef *attrs = fn_attrs(a, &n);
  int same = 1;
  for (unsigned i = 0; i < n && same; i++) {
    if (!is_environment(attrs[i], 0))
      continue;
    unsigned klen, vlen, wlen;
    const char *k = LLVMGetStringAttributeKind(attrs[i], &klen);
    const char *v = LLVMGetStringAttributeValue(attrs[i], &vlen);
    LLVMAttributeRef o =
        LLVMGetStringAttributeAtIndex(b, LLVMAttributeFunctionIndex, k, klen);
    const char *w = o ? LLVMGetStringAttributeValue(o, &wlen) : NULL;
    same = w && wlen == vlen && memcmp(v, w, vlen) == 0;
  }
  free(attrs);
  return same;
}

/* A helper still waiting for its callers' environment: defined by the
 * engine, with a body, and no environment of its own. */
static int awaits_environment(LLVMValueRef fn) {
  return ad_is_generated_function(fn) && LLVMCountBasicBlocks(fn) > 0 &&
         environment_size(fn) == 0;
}

/* The function whose environment helper fn takes: the one all its callers
 * share.  NULL when it has no caller, when callers disagree (a helper
 * shared by functions built for two targets stays the host's: correct,
 * only not inlined), or while a caller still awaits its own. */
static LLVMValueRef callers_environment(LLVMValueRef fn) {
  LLVMValueRef agreed = NULL;
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!(LLVMIsACallInst(user) || LLVMIsAInvokeInst(user)) ||
        LLVMGetCalledValue(user) != fn)
      continue; /* an address taken: its callers are not known here */
    LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
    if (caller == fn)
      continue;
    if (awaits_environment(caller))
      return NULL;
    if (!agreed)
      agreed = caller;
    else if (agreed != caller && !same_environment(agreed, caller))
      return NULL;
  }
  return agreed;
}

void ad_settle_helper_environments(LLVMModuleRef m) {
  /* Each round settles the helpers whose callers are all settled; a
   * helper called by a helper waits a round.  A round that settles
   * nothing ends it (what still waits is a cycle of helpers: left to the
   * host, correct). */
  int settled;
  do {
    settled = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
      if (!awaits_environment(f))
        continue;
      LLVMValueRef from = callers_environment(f);
      if (from && environment_size(from) > 0) {
        copy_environment(from, f, 0);
        settled = 1;
      }
    }
  } while (settled);
}
