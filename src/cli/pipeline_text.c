/*
 * clang's -O<N> pipeline written out as pass text, where `default<O<N>>`
 * cannot say what is wanted.
 *
 * LLVM's parser of the `default<O<N>>` (and `thinlto-pre-link<O<N>>`)
 * alias sets the loop and SLP vectorizer tunings from N itself (on from
 * O2), over what LLVMPassBuilderOptionsSetLoopVectorization and
 * ...SetSLPVectorization asked (LLVM 19: `default<O2>` with SLP tuned off
 * still runs SLPVectorizerPass on every function; opt's -vectorize-slp=false
 * is a switch inside the pass, which LLVM-C does not reach).  Loop unrolling
 * and interleaving it leaves as tuned.  So a pipeline that differs from
 * clang's in the vectorizers or the late unroller is
 * `thinlto-pre-link<O<N>>` (the module simplification: inlining, SROA,
 * GVN, full unrolling as tuned, no vectorizer) followed by the module
 * optimization passes of default<O<N>> as text, with the vectorizers and
 * the late unroller each kind's way.  On bench/kernels.c NO_SLP gives the
 * same IR as `opt-19 -passes='default<O<N>>' -vectorize-slp=false` (N = 2
 * and 3), ROLLED with unrolling tuned off the same as that with
 * -disable-loop-unrolling -vectorize-loops=false added (N = 2), and the
 * tail with the SLP vectorizer and the full late unroller the same as
 * default<O<N>> (N = 2 and 3).
 */
#include <stdio.h>

#include "cli/pipeline_text.h"

/* The module optimization passes of default<O<N>> (after the
 * simplification thinlto-pre-link<O<N>> runs), with three slots: the loop
 * vectorizer's parameters, the SLP vectorizer, the late unroller (its
 * -O level is the pipeline's). */
static const char optimization_tail[] =
    "elim-avail-extern,rpo-function-attrs,recompute-globalsaa,"
    "function<eager-inv>(float2int,lower-constant-intrinsics,"
    "loop(loop-rotate,loop-deletion),loop-distribute,inject-tli-mappings,"
    "loop-vectorize%s,infer-alignment,loop-load-elim,instcombine,"
    "simplifycfg<bonus-inst-threshold=1;forward-switch-cond;switch-range-to-icmp;"
    "switch-to-lookup;no-keep-loops;hoist-common-insts;sink-common-insts;"
    "speculate-blocks;simplify-cond-branch>,"
    "%svector-combine,instcombine,"
    "%s" "sroa,"
    "infer-alignment,instcombine,loop-mssa(licm),alignment-from-assumptions,"
    "loop-sink,instsimplify,div-rem-pairs,tailcallelim,simplifycfg),"
    "globaldce,constmerge";

static const struct pipeline_variant {
  const char *loop_vectorize; /* loop-vectorize's parameters */
  const char *slp;            /* the SLP vectorizer, or nothing */
  const char *late_unroll;    /* the late unroller's options after O<N>, or
                               * NULL for none */
} variants[] = {
    [CLI_PIPELINE_WIDE] = {"", "slp-vectorizer,", ";no-partial;no-runtime"},
    [CLI_PIPELINE_NO_SLP] = {"", "", ""},
    /* the library's own pipeline after differentiation unrolls, vectorizes
     * and warns about loop pragmas not followed */
    [CLI_PIPELINE_ROLLED] = {"<interleave-forced-only;vectorize-forced-only>", "", NULL},
};

int cli_pipeline_text(cli_pipeline_kind kind, int opt_level, char *out, size_t size) {
  const struct pipeline_variant *v = &variants[kind];
  char unroll[64] = "";
  if (v->late_unroll)
    snprintf(unroll, sizeof unroll, "loop-unroll<O%d%s>,transform-warning,", opt_level,
             v->late_unroll);
  int n = snprintf(out, size, "thinlto-pre-link<O%d>,", opt_level);
  if (n < 0 || (size_t)n >= size)
    return -1;
  int m = snprintf(out + n, size - (size_t)n, optimization_tail, v->loop_vectorize,
                   v->slp, unroll);
  return m < 0 || (size_t)m >= size - (size_t)n ? -1 : 0;
}
