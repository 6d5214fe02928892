/*
 * Active-global discovery: the set of active globals, settled before the
 * first derivative is emitted, by queries alone.  Which globals are active
 * depends on the derivatives the requests need (a callee may make a global
 * active that its caller reads), and which derivatives are needed, with
 * which signatures, depends on the active globals (a call with no active
 * argument needs its callee's derivative when the callee uses one).  That
 * circle is cut by asking more than emission will: every function the
 * requests can differentiate (global_reach.c: targets, callees, functions
 * named as values or by metadata, address-taken functions behind indirect
 * calls, CUDA kernels passed to launches) is analysed once per round with
 * every parameter duplicated and its result's tangent returned.  Activity
 * is monotone in what is active, so what such a signature demands contains
 * what any signature emission asks for demands, whatever the derivatives'
 * signatures turn out to be; rounds repeat until the set stops growing
 * (a global made active makes its loads active, which may store into
 * others).  A global active here that a narrower signature would not have
 * demanded only receives zero tangents.
 *
 * Shadow globals of a higher-order request (a derivative's code storing
 * tangents into a first-order shadow) exist only once emitted; where a
 * request's code reaches another request, every writable shadow of an
 * active global is active from its creation (globals.c).
 *
 * An error of activity analysis here (a float/integer conflict in a body
 * emission may never analyse with this signature, or at all) is not the
 * transform's: only running out of memory is.
 */
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/analysis/globals.h"
#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"

/* Activity analysis of fn with everything active; its demands land in
 * mc->globals->set.  0, or -1 out of memory. */
static int analyse_all_active(ad_module_ctx *mc, LLVMValueRef fn) {
  unsigned np = LLVMCountParams(fn);
  unsigned char *act = tj_malloc(np ? np : 1);
  if (!act)
    return -1;
  memset(act, AD_ARG_DUP, np ? np : 1);
  LLVMTypeRef rt = LLVMGetReturnType(LLVMGlobalGetValueType(fn));
  ad_signature sig = {fn, np, act, 1,
                      LLVMGetTypeKind(rt) == LLVMVoidTypeKind ? AD_RET_VOID
                                                               : AD_RET_BOTH,
                      0, 0};
  ad_fn_ctx fc;
  memset(&fc, 0, sizeof fc);
  fc.mc = mc;
  fc.sig = &sig;
  fc.primal_fn = fn;
  fc.width = 1;
  ad_map_init(&fc.active);
  /* its errors go nowhere: see above */
  ad_diag kept = mc->diag;
  memset(&mc->diag, 0, sizeof mc->diag);
  ad_activity_analyze(&fc);
  int oom = mc->diag.failed && mc->diag.failed_code == TANJIT_ERR_NO_MEMORY;
  mc->diag = kept;
  ad_types_free(fc.types);
  ad_map_free(&fc.active);
  free(act);
  return oom ? -1 : 0;
}

int ad_discover_active_globals(ad_module_ctx *mc, LLVMValueRef const *requests,
                               size_t nrequests) {
  LLVMValueRef *differentiated = tj_malloc((nrequests ? nrequests : 1) *
                                           sizeof *differentiated);
  if (!differentiated)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  size_t n = 0;
  for (size_t i = 0; i < nrequests; i++)
    if (ad_request_kind_of(LLVMGetCalledValue(requests[i])) != AD_REQUEST_BATCH)
      differentiated[n++] = requests[i];
  ad_reached reached;
  int rc = ad_requests_reach(differentiated, n, &reached);
  free(differentiated);
  if (rc != 0)
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  int rounds = 0;
  if (reached.names_mutable_global) {
    size_t before;
    do {
      before = mc->globals->set.count;
      for (size_t i = 0; i < reached.n && rc == 0; i++)
        rc = analyse_all_active(mc, reached.fns[i]);
      rounds++;
    } while (rc == 0 && mc->globals->set.count != before && rounds < 64);
    if (rc != 0)
      rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    else if (mc->globals->set.count != before)
      rc = ad_fail(mc, NULL, "internal: global activity did not settle");
    mc->globals->shadows_active = reached.nested && mc->globals->set.count;
  }
  free(reached.fns);
  return rc != 0 ? -1 : rounds;
}
