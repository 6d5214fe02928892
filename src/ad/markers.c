/*
 * Request markers: the one table of the names requests take, and the one
 * reader of an operand as a marker (request.c for forward and reverse
 * requests, batch.c for __enzyme_batch).  A marker is named by a global
 * (loaded or passed by address, as Enzyme's C and C++ headers do) or by a
 * metadata string.
 */
#include <string.h>

#include "ad/markers.h"

static const struct {
  const char *name;
  ad_marker marker;
  unsigned kinds;
} markers[] = {
    {.name = "enzyme_dup", .marker = AD_MARK_DUP, .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_const", .marker = AD_MARK_CONST, .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_dupnoneed", .marker = AD_MARK_DUPNONEED,
     .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_width", .marker = AD_MARK_WIDTH,
     .kinds = AD_MARKERS_DIFF | AD_MARKERS_BATCH},
    {.name = "enzyme_primal_return", .marker = AD_MARK_PRIMAL_RETURN,
     .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_dup_return", .marker = AD_MARK_DUP_RETURN,
     .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_const_return", .marker = AD_MARK_CONST_RETURN,
     .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_active_return", .marker = AD_MARK_ACTIVE_RETURN,
     .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_noret", .marker = AD_MARK_NORET, .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_runtime_activity", .marker = AD_MARK_RUNTIME_ACTIVITY,
     .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_out", .marker = AD_MARK_OUT, .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_interleave", .marker = AD_MARK_INTERLEAVE,
     .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_tape", .marker = AD_MARK_TAPE, .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_allocated", .marker = AD_MARK_ALLOCATED,
     .kinds = AD_MARKERS_DIFF},
    {.name = "enzyme_scalar", .marker = AD_MARK_SCALAR,
     .kinds = AD_MARKERS_BATCH},
    {.name = "enzyme_vector", .marker = AD_MARK_VECTOR,
     .kinds = AD_MARKERS_BATCH},
    {.name = "enzyme_buffer", .marker = AD_MARK_BUFFER,
     .kinds = AD_MARKERS_BATCH},
};

ad_marker ad_marker_of(LLVMValueRef v, unsigned kinds, const char **name,
                       size_t *len) {
  const char *s = NULL;
  size_t n = 0;
  if (LLVMIsAMDString(v)) {
    unsigned l = 0;
    s = LLVMGetMDString(v, &l);
    n = l;
  } else {
    if (LLVMIsALoadInst(v))
      v = LLVMGetOperand(v, 0);
    if (LLVMIsAGlobalVariable(v))
      s = LLVMGetValueName2(v, &n);
  }
  *name = s;
  *len = s ? n : 0;
  if (!s || n <= 7 || memcmp(s, "enzyme_", 7) != 0)
    return AD_MARK_NONE;
  for (size_t i = 0; i < sizeof markers / sizeof *markers; i++)
    if (strlen(markers[i].name) == n && memcmp(markers[i].name, s, n) == 0)
      return markers[i].kinds & kinds ? markers[i].marker : AD_MARK_UNKNOWN;
  return AD_MARK_UNKNOWN;
}
