/* What memory one call of a function may point into (lanes_memory.c): the
 * memory it makes itself (allocas, heap blocks, in it or its callees) or
 * the memory that existed before it was called.  lanes.c asks it which
 * writes of a primal run again per lane are invisible to the next lane. */
#ifndef TANJIT_AD_REV_LANES_MEMORY_H
#define TANJIT_AD_REV_LANES_MEMORY_H

#include "ad/core/context.h"

typedef struct lane_memory lane_memory;

/* The points-to sets of every value of fn and of the defined functions it
 * calls (directly), for one call of fn; NULL when memory runs out. */
lane_memory *lane_memory_build(ad_module_ctx *mc, LLVMValueRef fn);
void lane_memory_free(lane_memory *m);

/* Whether pointer v (a value of a function the analysis covered, or a
 * constant) points only into memory the call made itself. */
int lane_memory_fresh(const lane_memory *m, LLVMValueRef v);

/* Whether pointer v points only into memory that existed before the
 * call (its arguments', globals'). */
int lane_memory_callers_only(const lane_memory *m, LLVMValueRef v);

#endif
