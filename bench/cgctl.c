/* The anchor's callgrind hooks (cg_on, cg_off_dump: its cgctl.c), with one
 * difference: callgrind instruments nothing until the first window opens
 * (run with --instr-atstart=no), so loading, differentiating and compiling
 * the module run at valgrind's plain speed rather than under callgrind's
 * instrumentation (several times faster).  What a window counts is the
 * same: instrumentation is on for every window. */
#include <valgrind/callgrind.h>

static int instrumenting;

void cg_on(void) {
  if (!instrumenting) {
    CALLGRIND_START_INSTRUMENTATION;
    instrumenting = 1;
  }
  CALLGRIND_TOGGLE_COLLECT;
}

void cg_off_dump(const char *label) {
  CALLGRIND_TOGGLE_COLLECT;
  CALLGRIND_DUMP_STATS_AT(label);
}

void cg_zero(void) { CALLGRIND_ZERO_STATS; }
