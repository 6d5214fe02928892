/* Type analysis: the lattice of kinds (see types.h for the joins). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/type_model.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"

/* ---- the lattice ---- */

tfact ta_fact(ad_tkind k, unsigned bits) {
  tfact f = {(unsigned char)k, 0, (unsigned short)bits};
  return f;
}

tfact ta_weak(tfact f) {
  f.weak = f.kind != AD_T_UNKNOWN;
  return f;
}

tfact ta_strong(tfact f) { return f.weak ? ta_fact(AD_T_UNKNOWN, 0) : f; }

/* Weak facts (TBAA's promises) order below the IR's own: a weak fact fills
 * what the IR leaves unknown, and gives way to a fact the IR proves, so
 * metadata that disagrees with the code never makes a conflict (nor a
 * wrong kind) out of it.  Among facts of one strength the joins are those
 * of types.h. */
tfact ta_join(tfact a, tfact b) {
  if (a.kind == AD_T_UNKNOWN)
    return b;
  if (b.kind == AD_T_UNKNOWN)
    return a;
  if (a.weak != b.weak)
    return a.weak ? b : a;
  if (a.kind == b.kind && a.bits == b.bits)
    return a;
  tfact r = ta_fact(AD_T_CONFLICT, 0);
  if ((a.kind == AD_T_POINTER && b.kind == AD_T_INTEGER) ||
      (a.kind == AD_T_INTEGER && b.kind == AD_T_POINTER))
    r = ta_fact(AD_T_POINTER, 0);
  r.weak = a.weak;
  return r;
}

int ta_same(tfact a, tfact b) {
  return a.kind == b.kind && a.bits == b.bits && a.weak == b.weak;
}

const char *ad_tkind_name(ad_tkind k, unsigned bits) {
  switch (k) {
  case AD_T_INTEGER:
    return "integer";
  case AD_T_POINTER:
    return "pointer";
  case AD_T_CONFLICT:
    return "conflict";
  case AD_T_FLOAT:
    switch (bits) {
    case 16:
      return "float16";
    case 32:
      return "float32";
    case 64:
      return "float64";
    case 80:
      return "float80";
    case 128:
      return "float128";
    default:
      return "float";
    }
  default:
    return "unknown";
  }
}

unsigned long long ta_gcd(unsigned long long a, unsigned long long b) {
  while (b) {
    unsigned long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}
