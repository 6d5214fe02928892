/* request_select.c: requests whose function is a select of functions. */
#ifndef TANJIT_AD_REQUEST_SELECT_H
#define TANJIT_AD_REQUEST_SELECT_H

#include "ad/core/context.h"

/* Replaces each request of mc's module whose function operand is a select
 * of functions (clang's merge of two requests) by a call of a dispatcher
 * holding one request per arm; *changed says whether any was.  0, or -1
 * on out of memory. */
int ad_split_selected_requests(ad_module_ctx *mc, int *changed);

#endif
