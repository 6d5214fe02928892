#include "common/rename.h"

#include <string.h>

int tj_parse_rename(const char *name, tj_rename *out) {
  static const struct {
    const char *prefix;
    tj_rename_kind kind;
  } forms[] = {{TJ_RENAME_LIBRARY, TJ_RENAME_FROM_LIBRARY},
               {TJ_RENAME_HANDLE, TJ_RENAME_FROM_HANDLE}};
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
    size_t n = strlen(forms[i].prefix);
    if (strncmp(name, forms[i].prefix, n) != 0)
      continue;
    const char *fn = name + n, *sep = strchr(fn, '$');
    if (!sep || sep == fn || !sep[1])
      return -1;
    if (out) {
      out->kind = forms[i].kind;
      out->prefix = forms[i].prefix;
      out->fn = fn;
      out->fn_len = (size_t)(sep - fn);
      out->lib = sep + 1;
    }
    return 1;
  }
  return 0;
}
