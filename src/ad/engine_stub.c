/* Placeholder until the forward-mode engine lands: no request is honoured. */
#include <stdlib.h>
#include <string.h>

#include "ad/ad.h"

struct ad_engine {
  int unused;
};

ad_engine *ad_engine_new(void) { return calloc(1, sizeof(ad_engine)); }
void ad_engine_free(ad_engine *e) { free(e); }

int ad_transform_module(ad_engine *e, LLVMModuleRef m, tanjit_error **err) {
  (void)e;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    if (strncmp(name, "__enzyme_", 9) == 0 && LLVMGetFirstUse(f))
      return tj_fail(err, TANJIT_ERR_DIFFERENTIATE,
                     "derivative request %s: the engine is not built yet", name);
  }
  return 0;
}
