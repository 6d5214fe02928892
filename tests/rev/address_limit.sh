#!/bin/sh
# address_limit.sh KIB COMMAND...: runs COMMAND with its address space
# limited to KIB KiB (ulimit -v, as a small container or valgrind would);
# status 77 (meson: skipped) where the limit cannot be set.
limit=$1
shift
ulimit -v "$limit" 2>/dev/null || exit 77
exec "$@"
