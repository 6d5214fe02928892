/*
 * wide_copy.c's face to pre_ad.c (LLVM-C types, so not in cli.h).
 */
#ifndef TANJIT_CLI_WIDE_COPY_H
#define TANJIT_CLI_WIDE_COPY_H

#include <stddef.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "cli/cli.h"

/* Before a's pre-AD pipeline: for the forward requests in a that `mode`
 * picks, a module of a's context holding a copy of each one's function
 * optimized by `pipeline` (cli_wide_pipeline's text), tm and opts; a's
 * requests then name the copies (declared in a).  NULL, a left as it was,
 * when there are none or the copy would not be the same program. */
LLVMModuleRef cli_wide_copy(LLVMModuleRef a, cli_wide_mode mode, int opt_level,
                           LLVMTargetMachineRef tm, LLVMPassBuilderOptionsRef opts);
/* After a's pipeline: b linked into a (b taken); 0, or -1. */
int cli_wide_copy_link(LLVMModuleRef a, LLVMModuleRef b);
/* clang's -O<opt_level> pipeline without partial or runtime unrolling, into
 * out; 0, or -1 when size is too small. */
int cli_wide_pipeline(int opt_level, char *out, size_t size);

#endif
