/* A function returning struct {float x, y, z} (12 bytes, which the x86-64
 * ABI returns as { <2 x float>, float }: 16 bytes in IR, with tail padding)
 * requested at width 2 and 4 and with enzyme_primal_return: the C results
 * pack the triples at 12 bytes each, so the derivative's lanes must be
 * stored member by member, not at the IR type's 16-byte stride (which gave
 * shifted tangents and wrote past the result). */
#include "enzyme.h"
#include "tangent_check.h"

typedef struct {
  float x, y, z;
} f3;
typedef struct {
  f3 d[2];
} f3x2;
typedef struct {
  f3 d[4];
} f3x4;
typedef struct {
  f3 primal, tangent;
} f3pt;

f3x2 __enzyme_fwddiff_w2(void *, ...) asm("__enzyme_fwddiff");
f3x4 __enzyme_fwddiff_w4(void *, ...) asm("__enzyme_fwddiff");
f3pt __enzyme_fwddiff_pt(void *, ...) asm("__enzyme_fwddiff");

f3 curve(float t) {
  f3 v = {t, t * t, sinf(t)};
  return v;
}

static void check_f3(const char *what, f3 got, long double s, long double t) {
  check_tangent_float(what, got.x, s);
  check_tangent_float(what, got.y, s * 2 * t);
  check_tangent_float(what, got.z, s * cosl(t));
}

int main(void) {
  float t = 0.5f;
  volatile unsigned long long guard_before = 0x1122334455667788ULL;
  f3x2 w2 = __enzyme_fwddiff_w2((void *)curve, enzyme_width, 2, t, 1.0f, 2.0f);
  volatile unsigned long long guard_after = 0x8877665544332211ULL;
  check_f3("width 2 lane 0", w2.d[0], 1, t);
  check_f3("width 2 lane 1", w2.d[1], 2, t);
  f3x4 w4 = __enzyme_fwddiff_w4((void *)curve, enzyme_width, 4, t, 1.0f, 2.0f,
                                -1.0f, 0.5f);
  const float dirs[4] = {1, 2, -1, 0.5f};
  for (int i = 0; i < 4; i++)
    check_f3("width 4", w4.d[i], dirs[i], t);
  f3pt pt = __enzyme_fwddiff_pt((void *)curve, enzyme_primal_return, t, 1.0f);
  check_tangent_float("primal x", pt.primal.x, t);
  check_tangent_float("primal y", pt.primal.y, (long double)t * t);
  check_f3("primal_return tangent", pt.tangent, 1, t);
  check_int("nothing written around the results",
            guard_before == 0x1122334455667788ULL &&
                guard_after == 0x8877665544332211ULL,
            1);
  return tc_finish("packed_struct_results");
}
