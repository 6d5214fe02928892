/*
 * pipeline_text.c's face to pre_ad.c and wide_copy.c.
 */
#ifndef TANJIT_CLI_PIPELINE_TEXT_H
#define TANJIT_CLI_PIPELINE_TEXT_H

#include <stddef.h>

/* Which of clang's -O<N> passes a written-out pipeline keeps. */
typedef enum cli_pipeline_kind {
  CLI_PIPELINE_WIDE,   /* all, the late unroller without partial or runtime unrolling */
  CLI_PIPELINE_NO_SLP, /* all but the SLP vectorizer */
  CLI_PIPELINE_ROLLED  /* no loop vectorizer, no SLP, no late unroller */
} cli_pipeline_kind;

/* The pipeline text of `kind` at -O<opt_level> (2 or 3) into out; 0, or -1
 * when size is too small. */
int cli_pipeline_text(cli_pipeline_kind kind, int opt_level, char *out, size_t size);

#endif
